#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-formats.sh — kptop --batch against the known-split workload: the
# text, tree, folded and json reports each show hot_a/hot_b/hot_c at
# 50/30/20 within 5 points, folded stacks carry the whole chain from main,
# and the text header's counters add up (taken = delivered + drops).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/batch-lib.sh"

# 4999 Hz on the workload's pid only: enough samples in 2 s for the
# shares to be stable even on a busy machine. Default unwind mode (auto):
# the workload has frame pointers, so the chain from main is whole.
start_split 40	# killed at the end
for fmt in text tree folded json; do
	"$KPTOP" --batch -F 4999 -d 2 -p "$SPID" --format $fmt >"$T/$fmt" 2>"$T/$fmt.err" ||
		fail "--format $fmt: exit $?: $(cat "$T/$fmt.err")"
	[ -s "$T/$fmt" ] || fail "--format $fmt: empty report"
done

shares_text "$T/text" >"$T/s.text"
check_shares text "$T/s.text"
shares_tree "$T/tree" >"$T/s.tree"
check_shares tree "$T/s.tree"
shares_folded "$T/folded" >"$T/s.folded"
check_shares folded "$T/s.folded"
shares_json "$T/json" >"$T/s.json"
check_shares json "$T/s.json"

# folded: every line is "stack COUNT", the comm first, the whole chain.
grep -Evq '^[^ ].* [0-9]+$' "$T/folded" && fail "folded: a malformed line: $(grep -Ev '^[^ ].* [0-9]+$' "$T/folded" | head -3)"
grep -q '^split-fp;' "$T/folded" || fail "folded: comm split-fp not first"
dups=$(sed 's/ [0-9]*$//' "$T/folded" | sort | uniq -d | head -3)
[ -z "$dups" ] || fail "folded: the same stack on several lines: $dups"
for h in hot_a hot_b hot_c; do
	grep -q "main;run_rounds;do_round;level1;level2;level3;$h" "$T/folded" ||
		fail "folded: no full chain main..level3;$h"
done

# text: the counters add up, and there were samples.
awk '/^collector: taken/ { gsub(/,/, ""); taken = $3; deliv = $5 }
     /^drops:/ { gsub(/,/, ""); for (i = 2; i < NF; i += 2)
		if ($i == "bpf-full" || $i == "cpu-buf" || $i == "queue-full") d += $(i + 1) }
     END { if (taken < 1000 || taken != deliv + d) {
		printf "taken %d delivered %d drops %d\n", taken, deliv, d; exit 1 } }' "$T/text" ||
	fail "text: counters do not add up: $(head -6 "$T/text")"
# json: one object, the counters present.
grep -q '"taken": [1-9]' "$T/json" || fail "json: no collector counters"
[ "$(head -c1 "$T/json")" = "{" ] && [ "$(tail -n1 "$T/json")" = "}" ] || fail "json: not one object"

# -n 2: two reports, each of its own -d interval (as top -b -n 2).
"$KPTOP" --batch -d 0.7 -n 2 -p "$SPID" >"$T/two" 2>"$T/err" || fail "-n 2: exit $?: $(cat "$T/err")"
grep -q '^kptop .* report 1/2 ' "$T/two" && grep -q '^kptop .* report 2/2 ' "$T/two" ||
	fail "-n 2: not two reports: $(grep '^kptop' "$T/two")"
[ "$(grep -c '^ *Self% *Total%' "$T/two")" = 2 ] || fail "-n 2: not two tables"
# text: one stream, a blank line before the header of report 2.
awk '/^kptop .* report 2\/2 / { exit prev != "" } { prev = $0 }' "$T/two" ||
	fail "-n 2: no blank line between the text reports"
# json: -n 2 is JSON Lines, one compact object per report, each read whole
# with its schema_version and its 64-bit start time as a string.
"$KPTOP" --batch -d 0.5 -n 2 -p "$SPID" --format json >"$T/two.json" 2>"$T/err" ||
	fail "-n 2 json: exit $?: $(cat "$T/err")"
[ "$(wc -l <"$T/two.json")" = 2 ] || fail "-n 2 json: not two lines"
command -v jq >/dev/null 2>&1 || fail "jq is not installed (Debian package jq; scripts/setup-debian.sh installs it)"
jq -n -e '[inputs] as $r | ($r | length) == 2
	and ([range(0; 2)] | all(. as $i | $r[$i] as $o
		| $o.schema_version == 3 and $o.report == $i + 1 and $o.reports == 2
		and ($o.time_real_ns | type) == "string"
		and ($o.time_real_ns | tonumber) > 0
		and (($o.time_real_ns | tonumber) / 1e9 - $o.time_real_s | fabs) < 1e-3
		and $o.samples > 0 and ($o.functions | length) > 0))' \
	"$T/two.json" >"$T/jq" 2>&1 || fail "-n 2 json: jq does not read it as JSON Lines: $(cat "$T/jq")"
jq -e -s 'length == 1 and (.[0] | type) == "object"' "$T/json" >/dev/null ||
	fail "json: jq does not read one object"
grep -q '"schema_version": 3,' "$T/json" || fail "json: no schema_version"
echo ok
