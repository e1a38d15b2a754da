#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-fork.sh — a process forked after kptop started, that never execs
# (a shell's child before its exec, a prefork server's worker), is named
# with the mappings it inherited from its parent: no MMAP record says it
# has them. The known-split workload runs in such a child; its hot_a,
# hot_b and hot_c must be named under main, with their 50/30/20 split.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/batch-lib.sh"

"$KPTOP" --batch -F 4999 --format folded >"$T/folded" 2>"$T/err" &
k=$!
sleep 2
kill -0 $k 2>/dev/null || fail "kptop did not start: $(cat "$T/err")"
"$SPLIT" 1.5 --fork >"$T/split.out" 2>&1 || fail "workload failed: $(cat "$T/split.out")"
sleep 1
kill -INT $k
wait $k
rc=$?
[ "$rc" = 0 ] || fail "exit $rc, want 0: $(cat "$T/err")"
cpid=$(sed -n 's/^split pid=\([0-9]*\) .*/\1/p' "$T/split.out")
[ -n "$cpid" ] || fail "no child pid in: $(cat "$T/split.out")"
grep '^split-fp;' "$T/folded" >"$T/child.folded"
grep -q '^split-fp;.*;main;.*hot_a [0-9]*$' "$T/child.folded" ||
	fail "forked child not named: $(sort -k2 -nr -t' ' "$T/child.folded" | head -3)"
unk=$(awk '/\[unknown\]/ { n += $NF } END { print n + 0 }' "$T/child.folded")
all=$(awk '{ n += $NF } END { print n + 0 }' "$T/child.folded")
[ "$unk" -le $((all / 20)) ] ||
	fail "$unk of $all samples of the forked child in [unknown]"
shares_folded "$T/child.folded" >"$T/s.folded"
check_shares folded "$T/s.folded"
echo ok
