#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-sigint.sh — kptop --batch without -d runs until SIGINT (as
# /work/shared/peers runs it) or SIGTERM; the signal still yields a
# complete, parseable report of what was collected, and exit status 0.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/batch-lib.sh"

start_split 30	# killed at the end

# SIGINT, folded on stdout.
"$KPTOP" --batch -F 999 --format folded >"$T/folded" 2>"$T/err" &
k=$!
sleep 3
kill -INT $k
wait $k
rc=$?
[ "$rc" = 0 ] || fail "SIGINT: exit $rc, want 0: $(cat "$T/err")"
[ -s "$T/folded" ] || fail "SIGINT: no folded output"
bad=$(grep -Ev '^[^ ].* [0-9]+$' "$T/folded" | head -3)
[ -z "$bad" ] || fail "SIGINT: malformed folded lines: $bad"
grep -q '^split-fp;.*hot_a' "$T/folded" || fail "SIGINT: workload missing from folded output"
grep -q '_\[k\] [0-9]*$' "$T/folded" || grep -q '_\[k\];' "$T/folded" ||
	fail "SIGINT: no kernel frame marked _[k]"

# SIGTERM, a text report to a file, sampling one pid.
"$KPTOP" --batch -F 999 -p "$SPID" -o "$T/text" 2>"$T/err" &
k=$!
sleep 2
kill -TERM $k
wait $k
rc=$?
[ "$rc" = 0 ] || fail "SIGTERM: exit $rc, want 0: $(cat "$T/err")"
grep -q '^collector: taken [1-9]' "$T/text" || fail "SIGTERM: no header: $(head -5 "$T/text")"
grep -Eq '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +hot_a ' "$T/text" || fail "SIGTERM: no table: $(cat "$T/text")"
echo ok
