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

# run_kptop OUT ARGS...: kptop --batch ... --format folded -o OUT, with the
# stderr kept in OUT.err; fails the test on a non-zero exit.
run_kptop() {
	out=$1; shift
	"$KPTOP" --batch --format folded -o "$out" "$@" 2>"$out.err" ||
		fail "kptop --batch $* failed: $(tail -5 "$out.err")"
	[ -s "$out" ] || fail "kptop --batch $*: empty report ($(tail -5 "$out.err"))"
}

# wait_exec PID: wait until PID has exec'd (its maps are the workload's).
start_workload() {
	"$@" >/dev/null 2>&1 &
	wl_pid=$!
	sleep 0.3
}
