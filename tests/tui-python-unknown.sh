#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-python-unknown.sh — the live view says once, in its message line,
# that a Python process runs a version kptop cannot read, and keeps its
# native stacks: pyenv's 3.7 runs tests/workload/py-split.py (a machine
# without it skips as absent, tests/lib.sh).
. "$top_srcdir/tests/lib.sh"
require_bpf
py=$(ls "${PYENV_ROOT:-/root/.pyenv}"/versions/3.7.*/bin/python3.7 2>/dev/null | head -1)
[ -n "$py" ] && [ -x "$py" ] || skip_absent "no pyenv Python 3.7 (the unknown version here)"
. "$top_srcdir/tests/tui-lib.sh"

"$py" "$top_srcdir/tests/workload/py-split.py" 60 2 >/dev/null &
TUI_PIDS="$!"
WLPID=$!
sleep 0.5

tui_start 200 50
keys "$KPTOP -d 0.5 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait "pid $WLPID runs Python 3\\.7 or older, which kptop cannot read: its native stacks are shown" 10
# its native stacks: the interpreter's loop, no Python function
tui_wait ' _PyEval_EvalFrameDefault ' 10
if screen | grep -Eq ' (spin|hot_a|hot_b|hot_c) '; then
	screen >&2
	fail "Python functions shown for a version kptop cannot read"
fi
type_text 'q'
tui_wait 'kptop-rc=0' 5
echo "ok: the message names pid $WLPID and Python 3.7 or older; native stacks shown"
