#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-intervals.sh — kptop --batch -n 3: every report's counts are its
# own interval's, consistent with its own table: taken = delivered +
# bpf-full + cpu-buf + queue-full, delivered = the samples of its header
# (the table's), and the counts since the start, labelled as such, are
# the sums of the reports' own. Text, tree and JSON Lines.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/batch-lib.sh"

start_split 40	# killed at the end
for fmt in text tree json; do
	"$KPTOP" --batch -F 4999 -d 0.6 -n 3 -p "$SPID" --format $fmt >"$T/$fmt" 2>"$T/err" ||
		fail "--format $fmt: exit $?: $(cat "$T/err")"
done

# text and tree (a tree's header lines start with "# "): one block per
# report; checks each and the running sums.
check_counts() {	# WHAT FILE
	sed 's/^# //' "$2" | awk -v what="$1" '
	function bad(msg) { printf "%s report %d: %s\n", what, n, msg; err = 1 }
	function drops(arr,   i, k) {	# "drops[ since start]: NAME N, ..."
		k = $0; sub(/^[^:]*: /, "", k); gsub(/,/, "", k);
		split(k, f, " ");
		for (i = 1; f[i] != ""; i += 2) arr[f[i]] = f[i + 1];
	}
	function close_report(   s) {
		if (!n) return;
		if (!seen_c) bad("no collector line");
		if (!seen_d || !seen_r) bad("no drops or drops since start line");
		if (taken < 100) bad("taken " taken ": too few samples");
		lost = d["bpf-full"] + d["cpu-buf"] + d["queue-full"];
		if (taken != deliv + lost)
			bad("taken " taken " != delivered " deliv " + drops " lost);
		if (what == "text" && deliv != samples)
			bad("delivered " deliv " != the header samples " samples);
		if (what == "tree" && deliv != tsamples)
			bad("delivered " deliv " != the tree samples " tsamples);
		sum_t += taken; sum_d += deliv;
		if (run_t != sum_t || run_d != sum_d)
			bad("since start " run_t "/" run_d " != sums " sum_t "/" sum_d);
		for (s in d) {
			sum_l[s] += d[s];
			if (r[s] != sum_l[s]) bad(s " since start " r[s] " != sum " sum_l[s]);
		}
		seen_c = seen_d = seen_r = 0; delete d; delete r;
	}
	/^kptop / { close_report(); n++ }	# a report starts
	/^kptop .* call tree: / { tsamples = $5 }
	/(^|^kptop .* )report [0-9]+\/3 at / { if ($0 !~ "report " n "/3 ") bad("numbered " $0) }
	/^samples [0-9]+:/ { samples = $2 + 0 }
	/^collector: taken / {
		gsub(/[,()]/, ""); taken = $3; deliv = $5; run_t = $9; run_d = $11;
		seen_c = 1 }
	/^drops: / { drops(d); seen_d = 1 }
	/^drops since start: / { drops(r); seen_r = 1 }
	END { close_report(); if (n != 3) { printf "%s: %d reports, want 3\n", what, n; err = 1 }
		exit err }' || fail "$1: counts do not add up: $(grep -E '^(# )?(kptop|report|samples|collector|drops)' "$2")"
}
check_counts text "$T/text"
check_counts tree "$T/tree"

# JSON Lines, read by jq (Debian package jq): one object per line; the
# same checks, from the objects; the time as a decimal string that jq
# keeps whole, and as seconds that agree with it.
command -v jq >/dev/null 2>&1 || fail "jq is not installed (Debian package jq; scripts/setup-debian.sh installs it)"
lines=$(wc -l <"$T/json")
jq -n -e --argjson lines "$lines" '
	[inputs] as $r
	| ($r | length) == 3 and $lines == 3
	and ([range(0; 3)] | all(. as $i | $r[$i] as $o | $r[0:$i + 1] as $upto
		| $o.report == $i + 1 and $o.reports == 3
		and $o.collector.taken >= 100
		and $o.collector.taken == $o.collector.delivered + $o.drops["bpf-full"]
			+ $o.drops["cpu-buf"] + $o.drops["queue-full"]
		and $o.collector.delivered == $o.samples
		and $o.since_start.collector.taken == ([$upto[].collector.taken] | add)
		and $o.since_start.collector.delivered == ([$upto[].collector.delivered] | add)
		and ($o.drops | keys | all(. as $k
			| $o.since_start.drops[$k] == ([$upto[].drops[$k]] | add)))
		and ($o.time_real_ns | type) == "string"
		and (($o.time_real_ns[0:10] | tonumber) - ($o.time_real_s | floor) | fabs) <= 1))
' "$T/json" >"$T/jq" 2>&1 ||
	fail "json: jq finds the JSON Lines wrong ($(cat "$T/jq")): $(head -c 400 "$T/json")"

# -n 0: reports without end, until SIGTERM; each header says its number
# (no "of N"), the counters since start beside its own, and the report
# of the interval the signal cut short still comes, complete.
"$KPTOP" --batch -p "$SPID" -d 0.4 -n 0 >"$T/endless" 2>"$T/err" &
kp=$!
sleep 2.5
kill -TERM "$kp"
wait "$kp" || fail "-n 0: exit $?: $(cat "$T/err")"
n=$(grep -c '^kptop .* report [0-9]* at ' "$T/endless")
[ "$n" -ge 3 ] || fail "-n 0: $n reports in 2.5 s of -d 0.4: $(grep '^kptop' "$T/endless")"
grep -q '^kptop .* report [0-9]*/' "$T/endless" && fail "-n 0: a report says 'of N'"
grep -q '(since start: taken' "$T/endless" || fail "-n 0: no counts since start"
echo ok
