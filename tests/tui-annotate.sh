#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-annotate.sh — the annotate screen through tmux, against
# tests/workload/annospin (divloop's time is on its division's line):
# `a` on divloop's row opens it, the division's source line (DIV_LINE)
# and the div are on screen, the selection (the hottest instruction) is
# within two instructions of the div; s cycles source only, instructions
# only, both; Esc returns to the table; and `a` on divloop's row in the
# tree view (expanded with *) and in the callers view, and on its box in
# the flame graph, opens it too.
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"

WL="$top_builddir/tests/workload/annospin"
src="$top_srcdir/tests/workload/annospin.c"
[ -x "$WL" ] || fail "workload not built: $WL"
"$WL" 90 >/dev/null &
TUI_PIDS="$!"
WLPID=$!
div_line=$(grep -n '/\* DIV_LINE' "$src" | head -1 | cut -d: -f1)

tui_start 160 40
keys "$KPTOP -d 0.5 -p $WLPID --no-mouse" Enter
tui_wait ' divloop ' 10
sleep 2
type_text '/'
tui_wait 'Search:' 3
type_text 'divloop'
keys Enter
sleep 0.3
type_text 'a'
tui_wait 'Annotate divloop \(annospin\)' 5
tui_wait "annospin\\.c:$div_line " 5
screen | grep -Eq ':  i?div ' || { screen >&2; fail "no div instruction on screen"; }
# the selected row (cyan or reverse video) is within two instructions of the div
tmx capture-pane -e -p -t t >"$TUI_TMP/attr"
screen | awk '/^ *[0-9.]* +[0-9a-f]+:  / { n++ } /:  i?div / { d = n }
	END { print d }' >"$TUI_TMP/div_at"
sel=$(awk '/\033\[[0-9;]*(46|7)m/ && /[0-9a-f]+:  / { print NR; exit }' "$TUI_TMP/attr")
[ -n "$sel" ] || { cat -v "$TUI_TMP/attr" >&2; fail "no selected instruction"; }
selidx=$(screen | awk -v s="$sel" '/^ *[0-9.]* +[0-9a-f]+:  / { n++ } NR == s { print n; exit }')
d=$(cat "$TUI_TMP/div_at")
awk -v a="$selidx" -v b="$d" 'BEGIN { x = a - b; if (x < 0) x = -x; exit x > 2 }' ||
	{ screen >&2; fail "selected instruction $selidx is not near the div ($d)"; }
type_text 's'
tui_wait 'source only' 3
screen | grep -Eq '[0-9a-f]+:  i?div' && fail "source only still shows instructions"
type_text 's'
tui_wait 'instructions only' 3
type_text 's'
tui_wait 'source and instructions' 3
keys Escape
tui_gone 'Annotate divloop' 3
tui_wait 'Self% Total%' 3

# annotate_row HEADER: in the view now shown (HEADER: a text of its
# table's header) the search selects divloop's row, a annotates it, Esc
# returns to that view
annotate_row() {
	type_text '/'
	tui_wait 'Search:' 3
	keys C-u
	type_text 'divloop'
	keys Enter
	sleep 0.3
	type_text 'a'
	tui_wait 'Annotate divloop \(annospin\)' 5
	tui_wait "annospin\\.c:$div_line " 5
	keys Escape
	tui_gone 'Annotate divloop' 3
	tui_wait "$1" 3
}
# the tree view, all expanded
keys 2
tui_wait 'Call tree \(callers first\)' 5
type_text '*'
tui_wait '▾ main ' 5
annotate_row 'Call tree \(callers first\)'
# the callers view of divloop (the search's row in the functions view)
keys 1
tui_wait 'Self% Total%' 3
type_text '/'
tui_wait 'Search:' 3
keys C-u
type_text 'divloop'
keys Enter
sleep 0.3
keys 3
tui_wait '3 Callers of divloop' 5
annotate_row 'Function, then its callers'

# the flame graph: the search selects divloop's box, a annotates it
keys 8
tui_wait '8 Flame' 5
type_text '/'
tui_wait 'Search:' 3
keys C-u
type_text 'divloop'
keys Enter
sleep 0.3
keys n
sleep 0.3
type_text 'a'
tui_wait 'Annotate divloop' 5
keys Escape
tui_gone 'Annotate divloop' 3
type_text 'q'
tui_wait 'tui-test\$' 5
echo "ok: the annotate screen"
