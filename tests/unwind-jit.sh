#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unwind-jit.sh — end to end, mixed unwinding: tests/workload/jitcall runs
# main -> run_jit -> jit_tramp (generated code: a frame pointer, no CFI,
# named by /tmp/perf-PID.map) -> jit_hot, its C code built without frame
# pointers. In dwarf and in auto mode the whole chain
# main;run_jit;jit_tramp;jit_hot is kept in at least 95% of jit_hot's
# samples: the CFI of jit_hot, the frame pointer of the generated code,
# the CFI of run_jit and main again. The code's name and source line
# (jitcall.js:14, the call) come from its jitdump.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/unwind-lib.sh"
require_bpf
[ "$(uname -m)" = x86_64 ] || skip "the jitcall workload is x86-64 code"
WL=$top_builddir/tests/workload/jitcall
[ -x "$WL" ] || fail "workload not built: $WL"
tmp=$(mktemp -d) || fail mktemp
wl_pid=
trap 'kill $wl_pid 2>/dev/null; rm -rf "$tmp"' EXIT

# whole_chains FILE: "hot N whole M" of a folded profile
whole_chains() {
	frames_of "$1" | awk '
		{
			at = 0;
			for (i = 2; i <= NF; i++) if ($i == "jit_hot") at = i;
			if (!at) next;
			h += $1;
			if (at >= 5 && $(at-1) == "jit_tramp_" && $(at-2) == "run_jit" &&
			    $(at-3) == "main")
				w += $1;
		}
		END { printf "hot %d whole %d\n", h, w }'
}

for mode in dwarf auto; do
	"$WL" 20 >"$tmp/wl.out" 2>&1 &
	wl_pid=$!
	n=50
	until grep -q '^ready' "$tmp/wl.out"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "jitcall did not start: $(cat "$tmp/wl.out")"
		sleep 0.1
	done
	run_profiler "$tmp/f" "$mode" "$wl_pid" 4
	if [ "$mode" = dwarf ]; then
		# the jitdump comes first: its source line of the call
		"$KPTOP" --batch -d 1 -p "$wl_pid" --unwind dwarf --format speedscope \
			-o "$tmp/ss" 2>"$tmp/ss.err" || fail "speedscope: $(cat "$tmp/ss.err")"
		grep -q '"name": "jit_tramp", "file": "jitcall.js", "line": 14}' "$tmp/ss" ||
			fail "the jitdump's line is not shown: $(grep -o '"name": "jit_tramp[^}]*}' "$tmp/ss")"
	fi
	kill $wl_pid 2>/dev/null
	wait $wl_pid 2>/dev/null
	set -- $(whole_chains "$tmp/f")
	echo "$mode: jit_hot samples $2, whole chain $4"
	[ "$2" -ge 300 ] || { head -5 "$tmp/f"; fail "$mode: too few jit_hot samples ($2)"; }
	[ $(($4 * 100)) -ge $(($2 * 95)) ] ||
		{ head -8 "$tmp/f"; fail "$mode: whole chains in $4 of $2 samples (< 95%)"; }
done
exit 0
