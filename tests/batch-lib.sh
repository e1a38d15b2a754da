# SPDX-License-Identifier: GPL-2.0-only
# batch-lib.sh — helpers for the batch end-to-end tests (sourced after
# lib.sh): root + BPF, the known-split workload (50/30/20 over
# hot_a/hot_b/hot_c), and share checks for every report format.
require_bpf
SPLIT="$top_builddir/tests/workload/split-fp"
[ -x "$SPLIT" ] || fail "workload not built: $SPLIT (make check builds it)"
T=$(mktemp -d) || fail "mktemp"
SPID=
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# start_split SECS: run the workload in the background; SPID is its pid.
start_split() {
	"$SPLIT" "$1" >"$T/split.out" 2>&1 &
	SPID=$!
	sleep 0.3
	kill -0 "$SPID" 2>/dev/null || fail "workload did not start: $(cat "$T/split.out")"
}

# check_shares WHAT FILE [POINTS]: FILE holds "NAME VALUE" lines for
# hot_a, hot_b, hot_c (values summed per name); each share of their sum
# must be within POINTS (default 5) points of 50/30/20.
check_shares() {
	awk -v what="$1" -v tol="${3:-5}" '
	{ v[$1] += $2 }
	END {
		t = v["hot_a"] + v["hot_b"] + v["hot_c"];
		if (t <= 0) { printf "%s: no hot_a/hot_b/hot_c found\n", what; exit 1 }
		split("hot_a 50 hot_b 30 hot_c 20", e, " ");
		bad = 0;
		for (i = 1; i <= 6; i += 2) {
			p = 100 * v[e[i]] / t;
			printf "%s: %s %.1f%% (want %d%%)\n", what, e[i], p, e[i + 1];
			if (p < e[i + 1] - tol || p > e[i + 1] + tol) bad = 1;
		}
		exit bad;
	}' "$2" || fail "$1: shares off by more than ${3:-5} points"
}

# Extract "NAME VALUE" for the hot functions from each report format.
shares_text() {	# Total% of the flat table
	awk '$4 ~ /^hot_[abc]$/ && $1 ~ /^[0-9.]+$/ { print $4, $2 }' "$1"
}
shares_tree() {	# Total% of every tree node named hot_X
	awk '$4 ~ /^hot_[abc]$/ && $1 ~ /^[0-9.]+$/ { print $4, $1 }' "$1"
}
shares_folded() {	# samples of stacks through hot_X
	awk '{ n = $NF; for (f = split($0, a, ";"); f > 0; f--) {
		sub(/ [0-9]+$/, "", a[f]);
		if (a[f] ~ /^hot_[abc]$/) { print a[f], n; break } } }' "$1"
}
shares_json() {	# total_pct of the functions array
	sed -n 's/.*"function": "\(hot_[abc]\)".*"total_pct": \([0-9.]*\).*/\1 \2/p' "$1"
}

# The function table of a text report (from its column header on).
text_table() {
	sed -n '/^ *Self% *Total%/,$p' "$1"
}
