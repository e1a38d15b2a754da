# SPDX-License-Identifier: GPL-2.0-only
# unwind-lib.sh — helpers of the unwinder's end-to-end tests (sourced
# after tests/lib.sh). A folded line is "frame;frame;...;frame COUNT",
# outermost first; a frame may carry a module or offset after its name
# ("main [split-nofp]", "level1+0x12"), which frames_of strips.

# frames_of FILE: one line per stack, "COUNT name name ...".
frames_of() {
	awk '{
		n = $NF; sub(/[ \t]+[0-9]+$/, "");
		k = split($0, f, ";"); line = n;
		for (i = 1; i <= k; i++) {
			x = f[i]; sub(/^[ \t]+/, "", x);
			sub(/[ \t(+\[].*$/, "", x); line = line " " x;
		}
		print line;
	}' "$1"
}

# chain_counts FILE LEAF MID OUTER [gaps]: "LEAF's samples, and those
# with MID and OUTER right above it" (frame names as frames_of gives
# them); with gaps, other frames may lie between the three.
chain_counts() {
	frames_of "$1" | awk -v leaf="$2" -v mid="$3" -v outer="$4" -v gaps="${5:-}" '
		{
			at = 0;
			for (i = 2; i <= NF; i++) if ($i == leaf) at = i;
			if (!at) next;
			h += $1;
			if (!gaps) {
				if (at >= 4 && $(at-1) == mid && $(at-2) == outer) w += $1;
				next;
			}
			for (i = at - 1; i > 1 && $i != mid; i--) ;
			for (j = i - 1; j > 1 && $j != outer; j--) ;
			if (i > 1 && j > 1) w += $1;
		}
		END { printf "%d %d\n", h, w }'
}

# run_profiler OUT MODE PID SECONDS [STACK_BYTES]: a folded profile of PID
# into OUT with kptop --batch --unwind MODE at 999 Hz. Stderr is kept in
# OUT.err.
run_profiler() {
	out=$1 mode=$2 pid=$3 secs=$4 sb=${5:-}
	"$KPTOP" --batch --format folded -o "$out" --unwind "$mode" -F 999 -d "$secs" \
		-p "$pid" ${sb:+--stack-bytes "$sb"} 2>"$out.err"
	rc=$?
	[ "$rc" = 0 ] || fail "profiling pid $pid ($mode) failed: $(tail -5 "$out.err")"
	[ -s "$out" ] || fail "empty profile of pid $pid ($mode): $(tail -5 "$out.err")"
	cat "$out.err" >&2
}

# start_workload CMD...: start it in the background; its pid in $wl_pid.
start_workload() {
	"$@" >/dev/null 2>&1 &
	wl_pid=$!
	sleep 0.5
}
