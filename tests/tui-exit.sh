#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-exit.sh — the live view leaves the terminal clean on every exit path
# (Ctrl-C, SIGTERM), gives it back on Ctrl-Z and takes it again on fg, and
# honours NO_COLOR. Driven through tmux.
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"

WL="$top_builddir/tests/workload/split-fp"
[ -x "$WL" ] || fail "workload not built: $WL"
"$WL" 30 --quiet &
TUI_PIDS="$!"
WLPID=$!

tui_start 120 30
keys "stty -g > $TUI_TMP/stty.before" Enter

check_clean() {	# $1: what ended the view
	tui_wait 'kptop-rc=[0-9]+' 5
	screen | grep -q 'kptop-rc=0' || { screen >&2; fail "$1: exit status not 0"; }
	screen | grep -q 'Self%' && { screen >&2; fail "$1: the view is still on screen"; }
	keys "clear; stty -g > $TUI_TMP/stty.after" Enter
	sleep 0.3
	cmp -s "$TUI_TMP/stty.before" "$TUI_TMP/stty.after" ||
		fail "$1: terminal modes not restored"
}

# NO_COLOR: attributes only, no colour escapes; Ctrl-C quits cleanly.
keys "NO_COLOR=1 $KPTOP -d 0.5 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait ' hot_a ' 10
tmx capture-pane -e -p -t t > "$TUI_TMP/esc"
grep -q "$(printf '\033')\[[0-9;]*3[0-7][;m]" "$TUI_TMP/esc" &&
	fail "NO_COLOR set but the view uses colours"
grep -q "$(printf '\033')\[[0-9;]*7[;m]" "$TUI_TMP/esc" ||
	fail "NO_COLOR: no reverse video for the headings"
keys C-c
check_clean "Ctrl-C"

# Ctrl-Z gives the terminal back while stopped; fg takes it again.
keys "$KPTOP -d 0.5 -p $WLPID" Enter	# fg gives its status below
tui_wait ' hot_a ' 10
keys C-z
tui_wait 'Stopped' 5
keys "clear; stty -g > $TUI_TMP/stty.stopped" Enter
sleep 0.3
cmp -s "$TUI_TMP/stty.before" "$TUI_TMP/stty.stopped" ||
	fail "Ctrl-Z: terminal modes not restored while stopped"
keys "fg" Enter
tui_wait ' hot_a ' 5
type_text 'q'
tui_gone 'Self%' 5
keys "echo kptop-rc=\$?" Enter
check_clean "Ctrl-Z, fg, q"

# SIGTERM seen by the loop.
keys "$KPTOP -d 0.5 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait ' hot_a ' 10
# the kptop started by this pane's shell, not any other kptop running here
pid=$(pgrep -P "$(tmx display-message -p -t t '#{pane_pid}')" -x kptop) ||
	fail "kptop process not found"
kill -TERM "$pid"
check_clean "SIGTERM"
exit 0
