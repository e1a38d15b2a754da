#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-flame.sh — the live flame graph (view 8), through tmux, against the
# known-split workload (hot_a 50%, hot_b 30%, hot_c 20%), sampling
# stopped so that the views compare the same counts: on a 200-column
# pane the boxes of hot_a/hot_b/hot_c are within 2 columns of their Total%
# in the functions view (half cells: UTF-8 block elements); the arrows
# select them (the heading names the selection); Enter zooms (the box
# spans the width), Esc returns; a search highlights the matches and
# says their share; r puts the root at the bottom; 80x24 after a resize
# keeps the header, the heading, the boxes (within 2 columns) and the
# status line; and with NO_COLOR in the C locale the boxes are in reverse
# video with '|' edges, widths within 2 columns too.
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"

WL="$top_builddir/tests/workload/split-fp"
[ -x "$WL" ] || fail "workload not built: $WL"
"$WL" 90 --quiet &
TUI_PIDS="$!"
WLPID=$!

# shares: the Total% of the hot functions in the functions view, into
# $TUI_TMP/shares ("hot_a 49.8" lines).
shares() {
	keys 1
	tui_wait 'Self% Total%' 5
	: >"$TUI_TMP/shares"
	for h in hot_a hot_b hot_c; do
		v=$(total_of "$h")
		[ -n "$v" ] || { screen >&2; fail "no Total% for $h"; }
		echo "$h $v" >>"$TUI_TMP/shares"
	done
}

# check_widths COLS EDGE WHAT: the hot boxes' widths (their runs of half
# cells, plus EDGE half cells for the gap before each) against their
# shares of COLS columns, within 2 columns.
check_widths() {
	flame_boxes 'hot_a' >"$TUI_TMP/boxes"
	awk -v cols="$1" -v edge="$2" -v what="$3" '
		NR == FNR { share[$1] = $2; next }
		$1 in share { w = ($3 - $2 + edge) / 2; want = share[$1] * cols / 100;
			printf "%s: %s %.1f columns, want %.1f\n", what, $1, w, want;
			seen[$1] = 1; if (w - want > 2 || want - w > 2) bad = 1 }
		END { for (h in share) if (!(h in seen)) { print what ": no box " h; bad = 1 }
			exit bad }' "$TUI_TMP/shares" "$TUI_TMP/boxes" ||
		{ screen >&2; cat "$TUI_TMP/boxes" >&2; fail "$3: box widths off"; }
}

heading() { screen | sed -n 5p; }

# settled: after s, the samples already taken still come in for a
# refresh or two; wait until the header's Total holds still.
settled() {
	prev= n=0
	while :; do
		cur=$(screen | sed -n 's/.*Total \([0-9]*\).*/\1/p' | head -1)
		[ -n "$cur" ] && [ "$cur" = "$prev" ] && return 0
		n=$((n + 1))
		[ "$n" -le 20 ] || { screen >&2; fail "Total never held still"; }
		prev=$cur
		sleep 0.7
	done
}

# until_heading REGEX KEY: press KEY until the heading matches (20 at most).
until_heading() {
	n=0
	until heading | grep -Eq -- "$1"; do
		n=$((n + 1))
		[ "$n" -le 20 ] || { screen >&2; fail "heading never showed $1"; }
		keys "$2"
		sleep 0.1
	done
}

tui_start 200 50
keys "$KPTOP -d 0.5 -p $WLPID --no-mouse" Enter
tui_wait ' hot_c ' 10
sleep 2
type_text 's'
tui_wait 'stopped' 5
settled
shares
keys 8
tui_wait '8 Flame' 5
tui_wait 'hot_c' 5
check_widths 200 1 "200 columns"

# The arrows: down the widest children to hot_a, right to hot_b.
until_heading '^hot_a ' Down
heading | grep -q 'total [0-9.]*%  [0-9]* samples' || fail "heading: $(heading)"
keys Right
tui_wait '^hot_b ' 3
# Enter zooms: hot_b spans the width; Esc returns.
keys Enter
tui_wait 'zoom hot_b' 3
w=$(flame_boxes 'hot_b' | awk '$1 == "hot_b" { print ($3 - $2 + 1) / 2 }')
[ "${w%.*}" -ge 198 ] || { screen >&2; fail "zoomed hot_b is $w columns wide, not 200"; }
keys Escape
tui_gone 'zoom hot_b' 3
check_widths 200 1 "after the zoom"

# Search: hot_a and hot_b match; the share is theirs; they are purple.
type_text '/'
tui_wait 'Search:' 3
keys C-u
type_text 'hot_[ab]'
keys Enter
tui_wait '/hot_\[ab\]: 2, ' 3
got=$(heading | sed -n 's/.*\/hot_\[ab\]: 2, \([0-9.]*\)%.*/\1/p')
want=$(awk '$1 == "hot_a" || $1 == "hot_b" { s += $2 } END { print s }' "$TUI_TMP/shares")
awk -v g="$got" -v w="$want" 'BEGIN { exit !(g - w < 0.6 && w - g < 0.6) }' ||
	fail "search share $got%, want $want%"
tmx capture-pane -e -p -t t | grep -a 'hot_a' | grep -q '48;5;201m' ||
	{ tmx capture-pane -e -p -t t | grep -a hot_a | cat -v >&2; fail "matches not highlighted"; }
keys n
sleep 0.3
heading | grep -Eq '^hot_[ab] ' || fail "n: $(heading)"

# r: the root at the bottom, below the hot boxes.
row_of() { screen | grep -n -m1 -- "$1" | cut -d: -f1; }
[ "$(row_of '^.all')" -lt "$(row_of 'hot_a')" ] || fail "the root is not at the top"
type_text 'r'
sleep 0.5
[ "$(row_of '^.all')" -gt "$(row_of 'hot_a')" ] || { screen >&2; fail "r: the root is not at the bottom"; }
check_widths 200 1 "root at the bottom"

# 80x24: whole after a resize.
tmx resize-window -t t -x 80 -y 24
sleep 1
[ "$(screen | wc -l)" -eq 24 ] || fail "pane is not 24 lines"
screen | head -1 | grep -q '^kptop' || { screen >&2; fail "80x24: header lost"; }
screen | sed -n 4p | grep -q '8 Flame' || { screen >&2; fail "80x24: tabs lost"; }
n=0
until screen | tail -1 | grep -q 'F1Help'; do
	n=$((n + 1))
	[ "$n" -lt 30 ] || { screen >&2; fail "80x24: status line lost"; }
	sleep 0.2
done
check_widths 80 1 "80x24"
type_text 'q'
tui_gone '8 Flame' 5

# Without colours, in the C locale: reverse video, '|' edges, whole cells.
tmx resize-window -t t -x 200 -y 50
keys "NO_COLOR=1 LC_ALL=C $KPTOP -d 0.5 -p $WLPID --no-mouse" Enter
tui_wait ' hot_c ' 10
sleep 1
type_text 's'
tui_wait 'stopped' 5
settled
shares
keys 8
tui_wait 'hot_c' 5
tmx capture-pane -e -p -t t | tail -n +6 >"$TUI_TMP/mono"
grep -aq '38;5\|48;5\|\[[34][0-7]m\|;[34][0-7]m' "$TUI_TMP/mono" &&
	fail "NO_COLOR: colours in the flame graph"
grep -aq '\[7m\|;7m' "$TUI_TMP/mono" || fail "NO_COLOR: no reverse video"
screen | grep 'hot_a' | grep -q '|hot_b' || { screen >&2; fail "C locale: no '|' edge"; }
check_widths 200 0 "NO_COLOR, C locale"
type_text 'q'
tui_gone '8 Flame' 5
echo ok
