#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# stop then start: samples before and after are all delivered (exact
# invariant at both stops), nothing is taken while stopped; flush makes
# buffered samples visible at once (ten times, the newest sample read
# right after a flush is under 5 ms old, where the consumer's own 20 ms
# cycle alone would leave it up to 20 ms old).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collect-lib.sh"
require_collect

"$SPLIT" 4 >/dev/null &
wl=$!
"$PROBE" -F 999 -Q -m stopstart -d 2 >"$T/out" 2>"$T/err" || { kill $wl; cat "$T/err" >&2; fail "probe (stopstart) failed"; }
check_invariant "$T/out" 1
check_invariant "$T/out"
grep -q '^PAUSE taken_delta=0 sampling=0$' "$T/out" || { grep PAUSE "$T/out" >&2; fail "samples taken while stopped"; }
first=$(grep '^PHASES' "$T/out" | field first)
second=$(grep '^PHASES' "$T/out" | field second)
[ "$first" -gt 500 ] && [ "$second" -gt 500 ] || fail "samples before/after stop: $first / $second"

"$PROBE" -F 999 -Q -m flush -d 0.3 >"$T/flush" 2>"$T/err" || { kill $wl; cat "$T/err" >&2; fail "probe (flush) failed"; }
kill $wl 2>/dev/null
check_invariant "$T/flush"
awk '/^FLUSH / { n++; split($2, a, "="); split($3, b, "=");
	if (a[2] <= 0 || b[2] > 5000) { print "flush: " $0; bad++ } }
	END { exit (n != 10 || bad > 0) }' "$T/flush" || fail "flush did not make buffered samples visible"
