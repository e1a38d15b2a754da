#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# jit-reuse.sh — JIT code replaced at the same address (issue 23): a
# runtime frees compiled code and compiles other code in its place.
# tests/workload/jitspin reuse runs a loop its perf map names jit_gen_old;
# on SIGUSR1, sent half way through kptop's run, it writes the loop again
# in place and appends a line naming it jit_gen_new. kptop looks at the
# map again (at most once a second), and the samples from then on are
# named jit_gen_new while those before keep jit_gen_old: each holds at
# least a tenth of the loop's samples (nearer half each; the ones
# between the change and kptop's look are old, and kptop's start under a
# loaded machine shortens the old part). A save (-w) read back (-i)
# splits them the same, to the sample.
. "$top_srcdir/tests/lib.sh"
require_bpf
[ "$(uname -m)" = x86_64 ] || skip "the jitspin workload is x86-64 code"
JS="$top_builddir/tests/workload/jitspin"
[ -x "$JS" ] || fail "workload not built: $JS"
T=$(mktemp -d) || fail mktemp
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	wait
	rm -rf "$T"
}
trap cleanup EXIT

"$JS" reuse 30 >"$T/js.out" 2>&1 &
PID=$!
wait_ready "$T/js.out" "jitspin"
"$KPTOP" --batch -d 7 -p "$PID" --format folded -w "$T/save.kps" -o "$T/live" \
	2>"$T/live.err" &
KP=$!
sleep 3.5
kill -USR1 "$PID"
wait "$KP" || fail "kptop: $(cat "$T/live.err")"
kill "$PID"
wait "$PID"
PID=
grep -q '^reused' "$T/js.out" || fail "jitspin did not replace its code: $(cat "$T/js.out")"

# count NAME FILE: the samples whose leaf is NAME (a JIT frame)
count() {
	awk -v f="$1_[j]" '{ n = split($1, s, ";"); if (s[n] == f) c += $2 }
		END { print c + 0 }' "$2"
}
old=$(count jit_gen_old "$T/live")
new=$(count jit_gen_new "$T/live")
echo "live: jit_gen_old $old, jit_gen_new $new"
all=$((old + new))
[ "$all" -gt 1000 ] || fail "too few samples in the loop: $all: $(head -5 "$T/live")"
[ $((old * 10)) -ge "$all" ] || fail "jit_gen_old holds $old of $all: the old code's samples were renamed"
[ $((new * 10)) -ge "$all" ] || fail "jit_gen_new holds $new of $all: the new code was not named"

"$KPTOP" --batch -i "$T/save.kps" --format folded -o "$T/replay" 2>"$T/replay.err" ||
	fail "kptop -i: $(cat "$T/replay.err")"
rold=$(count jit_gen_old "$T/replay")
rnew=$(count jit_gen_new "$T/replay")
echo "replay: jit_gen_old $rold, jit_gen_new $rnew"
[ "$rold" = "$old" ] && [ "$rnew" = "$new" ] ||
	fail "the replay splits them otherwise: old $rold, new $rnew"
exit 0
