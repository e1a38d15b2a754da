#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cli-event.sh — -e and -c (root + BPF): -e page-faults -c 100 on a
# workload whose faults happen in fault_pages() puts >= 90% of its samples
# there, and every report names the event and its period; -e cycles
# samples cycles where the machine has a PMU, and elsewhere falls back to
# cpu-clock with one warning line, the reports saying so; the saved stream
# keeps the event for -i.
. "$top_srcdir/tests/lib.sh"
require_bpf
FAULTS="$top_builddir/tests/workload/faults"
SPLIT="$top_builddir/tests/workload/split-fp"
[ -x "$FAULTS" ] && [ -x "$SPLIT" ] || fail "workloads not built (make check builds them)"
T=$(mktemp -d) || fail "mktemp"
WPID=
cleanup() {
	[ -n "$WPID" ] && kill "$WPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

"$FAULTS" 20 >"$T/w.out" 2>&1 &
WPID=$!
sleep 0.3
kill -0 "$WPID" 2>/dev/null || fail "faults workload did not start: $(cat "$T/w.out")"

# folded, user stacks: the leaf is the faulting function.
"$KPTOP" --batch -d 1.5 -p "$WPID" -e page-faults -c 100 --user-only \
	--format folded -w "$T/pf.kps" >"$T/folded" 2>"$T/err" ||
	fail "-e page-faults: exit $?: $(cat "$T/err")"
head -1 "$T/folded" | grep -q '^# kptop: event page-faults, every 100 events; counts are samples$' ||
	fail "folded: no event line first: $(head -1 "$T/folded")"
awk '/^#/ { next } { n = $NF; t += n; if ($0 ~ /;fault_pages [0-9]+$/) f += n }
     END { printf "fault_pages %d of %d samples\n", f, t;
	   exit !(t >= 50 && f >= 0.9 * t) }' "$T/folded" >"$T/share" ||
	fail "-e page-faults: $(cat "$T/share"); $(grep -v '^#' "$T/folded" | sort -t' ' -k2 -nr | head -3)"

# the saved stream keeps the event: text and json of the replay.
"$KPTOP" -i "$T/pf.kps" --batch >"$T/text" 2>"$T/err" || fail "-i: exit $?: $(cat "$T/err")"
grep -q '^duration .*, event page-faults, every 100 events, ' "$T/text" ||
	fail "text: no event: $(head -3 "$T/text")"
"$KPTOP" -i "$T/pf.kps" --batch --format json >"$T/json" 2>"$T/err" || fail "-i json: $(cat "$T/err")"
grep -q '"event": "page-faults"' "$T/json" && grep -q '"period": 100,' "$T/json" &&
	grep -q '"period_unit": "events"' "$T/json" || fail "json: no event or period"
"$KPTOP" -i "$T/pf.kps" --batch --format tree >"$T/tree" 2>"$T/err" || fail "-i tree: $(cat "$T/err")"
grep -q '^# kptop .* call tree: .*, event page-faults, every 100 events$' "$T/tree" ||
	fail "tree: no event: $(head -1 "$T/tree")"
kill "$WPID"
WPID=

# -e cycles: the real event with a PMU, else cpu-clock and one warning.
"$SPLIT" 20 >"$T/w.out" 2>&1 &
WPID=$!
sleep 0.3
"$KPTOP" --batch -d 0.5 -p "$WPID" -e cycles >"$T/cyc" 2>"$T/err" ||
	fail "-e cycles: exit $?: $(cat "$T/err")"
if grep -q 'warning' "$T/err"; then
	[ "$(wc -l <"$T/err")" = 1 ] || fail "-e cycles: more than one line: $(cat "$T/err")"
	grep -q '^kptop: warning: -e cycles: .*no PMU.*cpu-clock instead$' "$T/err" ||
		fail "-e cycles: unclear warning: $(cat "$T/err")"
	grep -q 'event cpu-clock (cycles cannot be counted here), 999 Hz per CPU' "$T/cyc" ||
		fail "-e cycles: the report does not say it fell back: $(sed -n 2p "$T/cyc")"
else
	grep -q 'event cycles, 999 Hz per CPU' "$T/cyc" ||
		fail "-e cycles: report does not name cycles: $(sed -n 2p "$T/cyc")"
fi
grep -q 'hot_a' "$T/cyc" || fail "-e cycles: no samples of the workload"
echo "ok: $(cat "$T/share")"
