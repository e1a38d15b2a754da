#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-python.sh — the P key of the live view through tmux (issue 24), on
# Debian's python3.11 running tests/workload/py-split.py: the Python
# functions first (spin, where hot_a, hot_b and hot_c spend their time,
# the first row), P switches to the interpreter's native stacks (the
# message says so, the counts zeroed, spin goes and
# _PyEval_EvalFrameDefault is the first row), P again brings the Python
# functions back (spin the first row again).
. "$top_srcdir/tests/lib.sh"
require_bpf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "$PY (Debian package python3.11) is not installed"
. "$top_srcdir/tests/tui-lib.sh"

"$PY" "$top_srcdir/tests/workload/py-split.py" 60 2 >/dev/null &
TUI_PIDS="$!"
WLPID=$!

tui_start 200 50
keys "$KPTOP -d 0.5 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait ' hot_a ' 10
top_is() {	# FUNCTION SECONDS: the first row of the table is FUNCTION's
	n=$(($2 * 5))
	while [ "$n" -gt 0 ]; do
		[ "$(table_top 1 | awk '{ print $4 }')" = "$1" ] && return 0
		sleep 0.2
		n=$((n - 1))
	done
	screen >&2
	fail "the first row is not $1 after $2 s"
}
top_is spin 10

type_text 'P'
tui_wait 'Python processes: native stacks \(counts zeroed\)' 3
top_is _PyEval_EvalFrameDefault 10
tui_gone ' spin ' 10

type_text 'P'
tui_wait 'Python processes: Python frames \(counts zeroed\)' 3
top_is spin 10
type_text 'q'
tui_wait 'kptop-rc=0' 5
echo "ok: P switches between Python functions and native stacks"
