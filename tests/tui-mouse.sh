#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-mouse.sh — the mouse in the live view, as htop has it: a click on a
# view's name switches to it, on a column title sorts by it, on a row
# selects it; a double-click on a function opens its callers; the wheel
# moves the selection; --no-mouse leaves the mouse to the terminal.
# Driven through tmux with raw X10 mouse reports (what tmux sends to an
# application on screen-256color, whose kmous is \E[M).
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"

WL="$top_builddir/tests/workload/split-fp"
[ -x "$WL" ] || fail "workload not built: $WL"
"$WL" 60 --quiet &
TUI_PIDS="$!"
WLPID=$!

# mouse X Y BUTTON: one report (0-based cell; button 0 press, 3 release,
# 64 wheel up, 65 wheel down).
mouse() {
	tmx send-keys -t t -H 1b 5b 4d "$(printf '%x' $((32 + $3)))" \
		"$(printf '%x' $(($1 + 33)))" "$(printf '%x' $(($2 + 33)))"
}
click() { mouse "$1" "$2" 0; mouse "$1" "$2" 3; }
# the screen row of the first table row showing function $1
row_of() { screen | awk -v f="$1" '$4 == f { print NR - 1; exit }'; }

tui_start 200 50
# -d 10: the rows stay in place between the early frames and the test's end
keys "$KPTOP -d 10 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait ' hot_b ' 10
[ "$(tmx display -p -t t '#{mouse_any_flag}#{mouse_standard_flag}')" != 00 ] ||
	fail "the view did not turn the mouse on"

# the heading (row 4): Total% at column 9 sorts by total, Self% by self
click 9 4
tui_wait 'Sort total' 3
click 3 4
tui_wait 'Sort self' 3

# a click on hot_b's row selects it: c shows its callers
y=$(row_of hot_b)
[ -n "$y" ] || { screen >&2; fail "hot_b not on screen"; }
click 30 "$y"
sleep 0.5	# ncurses waits the double-click interval before it reports
type_text 'c'
tui_wait 'Callers of hot_b' 3
click 3 3	# the Functions tab
tui_wait ' 3 Callers 4 ' 3

# a double-click on hot_c's row opens its callers
y=$(row_of hot_c)
[ -n "$y" ] || { screen >&2; fail "hot_c not on screen"; }
click 30 "$y"; click 30 "$y"
tui_wait 'Callers of hot_c' 3
click 3 3	# the Functions tab
tui_wait ' 3 Callers 4 ' 3

# the wheel: three rows down from the first, then c names that row
keys Home
name=$(screen | awk 'f && ++n == 4 { print $4; exit } /Self%/ { f = 1 }')
mouse 30 10 65
sleep 0.3
type_text 'c'
tui_wait "Callers of $name" 3
click 3 3
tui_wait ' 3 Callers 4 ' 3

# the tab line (row 3): " 1 Functions 2 Tree": column 3 is Functions,
# 15 is Tree
click 15 3
tui_wait 'Call tree \(callers first\)' 3
type_text 'q'
tui_wait 'kptop-rc=0' 5

# --no-mouse: the terminal keeps the mouse
keys "clear; $KPTOP --no-mouse -d 10 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait ' hot_a ' 10
[ "$(tmx display -p -t t '#{mouse_any_flag}#{mouse_standard_flag}')" = 00 ] ||
	fail "--no-mouse: the view turned the mouse on"
type_text 'q'
tui_wait 'kptop-rc=0' 5
exit 0
