#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unwind-jit.sh — end to end, mixed unwinding: tests/workload/jitcall runs
# main -> run_jit -> jit_tramp (generated code: a frame pointer, no CFI,
# named by /tmp/perf-PID.map) -> jit_hot, its C code built without frame
# pointers. In dwarf and in auto mode the whole chain
# main;run_jit;jit_tramp;jit_hot is kept in at least 95% of jit_hot's
# samples: the CFI of jit_hot, the frame pointer of the generated code,
# the CFI of run_jit and main again. The code's name and source line
# (jitcall.js:14, the call) come from its jitdump. Then the same with
# generated code that keeps no frame pointer and branches before its call
# (jitcall ... cfi): only the call frame information its jitdump gives
# (an unwinding info record) tells its frame; the chain is whole there
# too, and in the replay of a save (the CODE record carries that CFI).
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

# check_whole FILE LABEL: at least 300 jit_hot samples, 95% whole
check_whole() {
	set -- $(whole_chains "$1") "$1" "$2"
	echo "$6: jit_hot samples $2, whole chain $4"
	[ "$2" -ge 300 ] || { head -5 "$5"; fail "$6: too few jit_hot samples ($2)"; }
	[ $(($4 * 100)) -ge $(($2 * 95)) ] ||
		{ head -8 "$5"; fail "$6: whole chains in $4 of $2 samples (< 95%)"; }
}

for run in "dwarf both" "auto both" "dwarf dump cfi" "auto dump cfi"; do
	set -- $run
	mode=$1
	shift
	"$WL" 20 "$@" >"$tmp/wl.out" 2>&1 &
	wl_pid=$!
	wait_ready "$tmp/wl.out" "jitcall"
	if [ "$run" = "dwarf dump cfi" ]; then
		"$KPTOP" --batch --format folded -o "$tmp/f" --unwind dwarf -F 999 -d 4 \
			-p "$wl_pid" -w "$tmp/save" 2>"$tmp/f.err" || fail "saving: $(cat "$tmp/f.err")"
		"$KPTOP" --batch --format folded -o "$tmp/replay" -i "$tmp/save" 2>"$tmp/r.err" ||
			fail "replay: $(cat "$tmp/r.err")"
	else
		run_profiler "$tmp/f" "$mode" "$wl_pid" 4
	fi
	if [ "$run" = "dwarf both" ]; then
		# the jitdump comes first: its source line of the call
		"$KPTOP" --batch -d 1 -p "$wl_pid" --unwind dwarf --format speedscope \
			-o "$tmp/ss" 2>"$tmp/ss.err" || fail "speedscope: $(cat "$tmp/ss.err")"
		grep -q '"name": "jit_tramp", "file": "jitcall.js", "line": 14}' "$tmp/ss" ||
			fail "the jitdump's line is not shown: $(grep -o '"name": "jit_tramp[^}]*}' "$tmp/ss")"
	fi
	kill $wl_pid 2>/dev/null
	wait $wl_pid 2>/dev/null
	check_whole "$tmp/f" "$run"
	[ "$run" != "dwarf dump cfi" ] || check_whole "$tmp/replay" "$run, its replay"
done
exit 0
