#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-churn.sh — under a churn of short processes the exited ones are
# merged into one call tree per command: the report counts them, the tree
# report shows a "true xN" root instead of thousands of "true" roots (but
# for the last ones to exit, up to 1024, merged at the next merge), and
# no sample is folded under [other].
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/batch-lib.sh"

"$KPTOP" --batch --format tree -o "$T/tree" -w "$T/run.kps" 2>"$T/err" &
k=$!
sleep 2
kill -0 $k 2>/dev/null || fail "kptop did not start: $(cat "$T/err")"
sh -c 'for i in $(seq 3000); do /bin/true; done'
sleep 1
kill -INT $k
wait $k
rc=$?
[ "$rc" = 0 ] || fail "exit $rc, want 0: $(cat "$T/err")"
roots=$(grep -c '^ *[0-9.]\+ \+[0-9.]\+ \+[0-9]\+ \+true$' "$T/tree" || true)
[ "$roots" -le 1024 ] || fail "$roots separate 'true' roots: $(grep -m3 ' true$' "$T/tree")"
m=$(sed -n 's/^ *[0-9.]\+ \+[0-9.]\+ \+[0-9]\+ \+true x\([0-9]\+\)$/\1/p' "$T/tree" | head -1)
[ -n "$m" ] || fail "no merged 'true xN' root: $(grep -m5 'true' "$T/tree")"
[ "$m" -ge 1000 ] || fail "only $m processes in the merged 'true' root"
"$KPTOP" --batch -i "$T/run.kps" >"$T/text" 2>"$T/err2" || fail "replay: $(cat "$T/err2")"
n=$(sed -n 's/^exited processes merged by command \([0-9]*\), samples under \[other\] \([0-9]*\)$/\1 \2/p' "$T/text")
[ -n "$n" ] || fail "no merged count in the report: $(sed -n '1,8p' "$T/text")"
set -- $n
[ "$1" -ge 2000 ] || fail "only $1 processes merged of some 6000 identities"
[ "$2" = 0 ] || fail "$2 samples under [other]"
echo "ok: $1 merged"
