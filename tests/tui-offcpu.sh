#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-offcpu.sh — the off-CPU keys of the live view through tmux, on the
# off-CPU workload: o turns off-CPU recording on (the header says so, with
# the switch rate), O cycles the weight to off-CPU (the header says so and
# clock_nanosleep, where the sleeping threads wait, shows up), then to wall
# and back to CPU; o turns it off again.
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"

WL="$top_builddir/tests/workload/offcpu"
[ -x "$WL" ] || fail "workload not built: $WL"
"$WL" 60 >/dev/null &
TUI_PIDS="$!"
WLPID=$!

tui_start 200 50
keys "$KPTOP -d 0.5 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait ' spin_here ' 10
screen | grep -q 'Off-CPU' && fail "off-CPU on before o"

type_text 'o'
tui_wait 'off-CPU recording on' 5
tui_wait 'Off-CPU on [0-9]+ sw/s' 5

type_text 'O'
tui_wait 'weight: off-CPU microseconds' 3
tui_wait 'Weight off-CPU us' 3
tui_wait ' clock_nanosleep ' 10
type_text 'O'
tui_wait 'Weight wall us' 3
tui_wait ' spin_here ' 10
type_text 'O'
tui_gone 'Weight ' 3

type_text 'o'
tui_wait 'off-CPU recording off' 5
tui_gone 'Off-CPU on' 5
type_text 'q'
tui_wait 'kptop-rc=0' 5
echo "ok: o and O drive off-CPU recording and the weight"
