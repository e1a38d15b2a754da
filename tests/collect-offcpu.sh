#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# collect-offcpu.sh — the off-CPU program (--off-cpu) through the probe,
# on the off-CPU workload (tests/workload/offcpu.c), filtered to it by -p:
# with --off-cpu-min 0 every interval ended is read or counted lost
# (OFFINVARIANT), every record is of the workload, the pipe reader's are
# sleeps (S) with kernel and user stacks and the feeder as waker, and its
# time off the CPU over the run is what its own clock says it slept; with
# --off-cpu-min 5000 short intervals are folded into records of count > 1
# and the invariant holds up to the intervals still held.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collect-lib.sh"
require_collect
W="$top_builddir/tests/workload/offcpu"
[ -x "$W" ] || fail "workload not built: $W"

"$W" 20 >"$T/tids" 2>&1 &
wl=$!
sleep 0.3
kill -0 $wl 2>/dev/null || fail "workload did not start: $(cat "$T/tids")"
rc=0
"$PROBE" -n -F 99 -p "$wl" -O 0 -d 1.5 >"$T/o0" 2>"$T/err" || rc=$?
[ $rc = 0 ] || { kill $wl; cat "$T/err" >&2; tail -3 "$T/o0" >&2; fail "probe -O 0: exit $rc"; }
grep -q '^OFFINVARIANT ok' "$T/o0" || { kill $wl; grep '^OFF' "$T/o0" >&2; fail "off-CPU intervals not all read or counted"; }
awk -v want="$wl" '/^O / { n++; if ($2 != "pid=" want) { print "foreign: " $0; bad++ } }
	END { printf "%d off-CPU records, %d foreign\n", n, bad; exit (n < 100 || bad > 0) }' "$T/o0" ||
	{ kill $wl; fail "-p filter of the off-CPU records"; }
# the pipe reader: asleep in read, woken by the feeder, with both stacks
awk '/^O .* comm=piper / { n++;
		if ($0 ~ / state=1 /) s++;
		if ($0 ~ /waker=[0-9]+\/[0-9]+\/feeder /) w++;
		if ($0 !~ / nk=0 / && $0 !~ / nu=0 /) k++ }
	END { printf "piper: %d records, %d asleep, %d woken by feeder, %d with both stacks\n", n, s, w, k;
	      exit !(n >= 50 && s >= 0.95 * n && w >= 0.9 * n && k >= 0.95 * n) }' "$T/o0" ||
	{ kill $wl; grep '^O .* comm=piper ' "$T/o0" | head -3 >&2; fail "pipe reader's records"; }
# the spinner runs: it has few records, and those preempted (R, state 0)
awk '/^O .* comm=spinner / { n++; if ($0 !~ / state=0 /) bad++ }
	END { printf "spinner: %d records, %d not runnable\n", n, bad; exit bad > 0 }' "$T/o0" ||
	{ kill $wl; fail "spinner's records are not preemptions"; }
# the sleeper sleeps 20 ms at a time: it is off nearly all of the 1.5 s
# (and the time from attach to detach, a little longer under load)
awk '/^O .* comm=sleeper / { for (i = 1; i <= NF; i++) if ($i ~ /^off_ns=/) { sub(/off_ns=/, "", $i); t += $i } }
	END { printf "sleeper: %.3f s off in 1.5 s\n", t / 1e9; exit !(t > 1.2e9 && t < 2.0e9) }' "$T/o0" ||
	{ kill $wl; fail "sleeper's off-CPU time"; }

"$PROBE" -n -F 99 -p "$wl" -O 5000 -d 1 >"$T/o5" 2>"$T/err" || rc=$?
kill $wl 2>/dev/null
wait $wl 2>/dev/null
[ $rc = 0 ] || { cat "$T/err" >&2; fail "probe -O 5000: exit $rc"; }
grep -q '^OFFINVARIANT ok' "$T/o5" || { grep '^OFF' "$T/o5" >&2; fail "off-CPU intervals with a min"; }
awk '/^O / { if ($0 ~ / count=1 /) one++; else many++;
		for (i = 1; i <= NF; i++) if ($i ~ /^off_ns=/) { sub(/off_ns=/, "", $i); if ($i + 0 < 5000000) short++ } }
	END { printf "min 5 ms: %d records of one interval, %d of several, %d under 5 ms\n", one, many, short;
	      exit !(many > 0 && short == 0) }' "$T/o5" || fail "--off-cpu-min folding"
grep '^OFFSTATS' "$T/o0" "$T/o5"
