#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-rc.sh — the settings that last: W writes $XDG_CONFIG_HOME/kptop/kptoprc
# (view, sorts, delay, time mode, hidden frames), the next start reads it
# back, -d on the command line wins over it, and a broken file is a
# one-line warning in the status line, not a failure to start.
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"

WL="$top_builddir/tests/workload/split-fp"
[ -x "$WL" ] || fail "workload not built: $WL"
"$WL" 60 --quiet &
TUI_PIDS="$!"
WLPID=$!
RC="$TUI_TMP/cfg/kptop/kptoprc"

tui_start 200 50
keys "export XDG_CONFIG_HOME=$TUI_TMP/cfg" Enter
keys "$KPTOP -d 0.5 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait ' hot_a ' 10
type_text '4'	# processes
tui_wait 'Self% Total%   Samples      PID Command' 3
type_text 'T'	# sorted by total
type_text 'k'
type_text 'm'	# decaying
tui_wait 'Mode decaying' 3
type_text 'W'
tui_wait "settings saved to $RC" 3
type_text 'q'
tui_wait 'kptop-rc=0' 5
[ -f "$RC" ] || fail "W wrote no $RC"
grep -q '^view = processes$' "$RC" || fail "kptoprc: no view = processes: $(cat "$RC")"
grep -q '^sort.processes = total$' "$RC" || fail "kptoprc: no sort.processes = total"
grep -q '^mode = decaying$' "$RC" || fail "kptoprc: no mode = decaying"
grep -q '^hide-kernel = yes$' "$RC" || fail "kptoprc: no hide-kernel = yes"
grep -q '^delay = 0.50$' "$RC" || fail "kptoprc: no delay = 0.50"
[ "$(stat -c %a "$TUI_TMP/cfg/kptop")" = 700 ] || fail "kptop/ not created 0700"

# read back at the next start, without -d: the file's delay
keys "clear; $KPTOP -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait 'Samples      PID Command' 10
screen | grep -q 'Mode decaying  Sort total' || { screen >&2; fail "mode and sort not read back"; }
screen | grep -q 'kernel hidden' || { screen >&2; fail "hidden kernel frames not read back"; }
type_text 'q'
tui_wait 'kptop-rc=0' 5

# a broken file: one warning, the view starts with its defaults
printf 'view = processes\nnonsense\n' > "$RC"
keys "clear; $KPTOP -d 0.5 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait 'kptoprc:2: not a setting' 10
tui_wait 'Samples      PID Command' 5	# the line before the bad one
type_text 'q'
tui_wait 'kptop-rc=0' 5
exit 0
