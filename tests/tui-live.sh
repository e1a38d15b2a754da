#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-live.sh — the live view, driven through tmux against the known-split
# workload (hot_a 50%, hot_b 30%, hot_c 20%): the hot function shows in the
# top rows, s stops and starts, z zeroes, the help opens and closes, w
# saves a stream that kptop -i reads back, an 80x24 resize keeps the
# layout, and q leaves the terminal as it was.
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"

WL="$top_builddir/tests/workload/split-fp"
[ -x "$WL" ] || fail "workload not built: $WL"
"$WL" 60 --quiet &
TUI_PIDS="$!"
WLPID=$!

tui_start 200 50
keys "stty -g > $TUI_TMP/stty.before" Enter
keys "$KPTOP -d 0.5 -p $WLPID; echo kptop-rc=\$?" Enter

# The hot function in the top rows within a few refreshes.
tui_wait ' hot_a ' 10
table_top 5 | grep -q ' hot_a ' || { screen >&2; fail "hot_a not in the top 5 rows"; }
screen | grep -q 'sampling' || fail "header does not say sampling"
screen | grep -q 'F1Help' || fail "no status line"

# Help opens and closes.
keys F1
tui_wait 'kptop help' 3
screen | grep -q 'stop / start sampling' || fail "help does not list s"
type_text 'x'
tui_gone 'kptop help' 3
tui_wait 'Self%' 3

# s stops: the count stops growing; s again starts it.
type_text 's'
tui_wait 'stopped' 3
sleep 1.2
a=$(samples_of hot_a)
sleep 1.5
b=$(samples_of hot_a)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "samples grew while stopped: $a -> $b"
type_text 's'
tui_wait 'sampling' 3
sleep 1.5
c=$(samples_of hot_a)
[ -n "$c" ] && [ "$c" -gt "$b" ] || fail "samples did not grow after start: $b -> $c"

# z zeroes.
type_text 'z'
tui_wait 'counts zeroed' 3
d=$(samples_of hot_a)
[ -z "$d" ] || [ "$d" -lt "$c" ] || fail "z did not zero: $c -> $d"

# w saves; w again stops; kptop -i reads the file back.
type_text 'w'
tui_wait 'Save to: ' 3
keys C-u
type_text "$TUI_TMP/live.kps"
keys Enter
tui_wait 'Saving' 3
sleep 1.5
type_text 'w'
tui_wait "saved $TUI_TMP/live.kps" 10
[ -s "$TUI_TMP/live.kps" ] || fail "w did not write $TUI_TMP/live.kps"

# An 80x24 terminal keeps the header, the headings and the status line.
tmx resize-window -t t -x 80 -y 24
sleep 1
[ "$(screen | wc -l)" -eq 24 ] || fail "pane is not 24 lines"
screen | head -1 | grep -q '^kptop' || { screen >&2; fail "80x24: header lost"; }
screen | grep -q 'Self% Total%' || { screen >&2; fail "80x24: table headings lost"; }
n=0	# a message may hold the status line for a few seconds
until screen | tail -1 | grep -q 'F1Help'; do
	n=$((n + 1))
	[ "$n" -lt 30 ] || { screen >&2; fail "80x24: status line lost"; }
	sleep 0.2
done
screen | grep -q ' hot_a ' || { screen >&2; fail "80x24: hot_a lost"; }

# q leaves the terminal clean: the shell again, exit 0, same tty modes.
type_text 'q'
tui_wait 'kptop-rc=0' 5
screen | grep -q 'Self%' && { screen >&2; fail "the view is still on screen after q"; }
keys "stty -g > $TUI_TMP/stty.after" Enter
sleep 0.3
cmp -s "$TUI_TMP/stty.before" "$TUI_TMP/stty.after" || fail "terminal modes not restored"

# The saved stream opens in the same view, offline.
tmx resize-window -t t -x 200 -y 50
keys "clear; $KPTOP -i $TUI_TMP/live.kps; echo kptop-rc=\$?" Enter
tui_wait 'reading' 10
tui_wait ' hot_a ' 5
table_top 5 | grep -q ' hot_a ' || { screen >&2; fail "-i: hot_a not in the top 5 rows"; }
type_text 's'
tui_wait 'not sampling' 3
type_text 'q'
tui_wait 'kptop-rc=0' 5
exit 0
