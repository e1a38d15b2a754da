#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-exited.sh — a process that ran and exited while kptop sampled is
# named in the report: its binary and libraries are read from their paths
# once /proc/PID is gone (the kernel's mmap2 events give a build-id, not
# a device and inode, and the file's build-id must match), so hot_a,
# hot_b and hot_c keep their names and their 50/30/20 split.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/batch-lib.sh"

"$KPTOP" --batch -F 4999 --format folded >"$T/folded" 2>"$T/err" &
k=$!
sleep 2
kill -0 $k 2>/dev/null || fail "kptop did not start: $(cat "$T/err")"
"$SPLIT" 1 >"$T/split.out" 2>&1 || fail "workload failed: $(cat "$T/split.out")"
sleep 1
kill -INT $k
wait $k
rc=$?
[ "$rc" = 0 ] || fail "exit $rc, want 0: $(cat "$T/err")"
grep -q '^split-fp;.*;main;.*hot_a [0-9]*$' "$T/folded" ||
	fail "exited workload not named: $(grep '^split-fp;' "$T/folded" | sort -k2 -nr -t' ' | head -3)"
shares_folded "$T/folded" >"$T/s.folded"
check_shares folded "$T/s.folded"
echo ok
