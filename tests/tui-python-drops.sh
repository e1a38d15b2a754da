#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-python-drops.sh — the live view's Drops line counts Python stacks
# not read whole as the reports do, also when it reads a saved file:
# Debian's python3.11 runs leaf() 200 frames deep (past the BPF walk's
# 127), a batch run saves it, and the view of that file (tmux) shows
# py-cut with the count the report of the same file gives.
. "$top_srcdir/tests/lib.sh"
require_bpf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "$PY (Debian package python3.11) is not installed"
. "$top_srcdir/tests/tui-lib.sh"
F=$(mktemp "${TMPDIR:-/tmp}/kp-pydrops.XXXXXX") || fail mktemp
trap 'rm -f "$F" "$F.txt" "$F.live" "$F.err"; tui_cleanup' EXIT

"$PY" "$top_srcdir/tests/workload/py-deep.py" 4 & WLPID=$!
sleep 0.5
"$KPTOP" --batch -d 2 -F 499 -p "$WLPID" -w "$F" -o "$F.live" 2>"$F.err" ||
	fail "kptop could not save the run: $(tail -2 "$F.err")"
wait "$WLPID"
"$KPTOP" -i "$F" --batch --format text -o "$F.txt" || fail "kptop -i could not read it"
cut=$(sed -n 's/^python:.* cut \([0-9]*\),.*/\1/p' "$F.txt")
[ -n "$cut" ] && [ "$cut" -gt 100 ] || fail "the report counts no cut chains: $(grep python: "$F.txt")"

tui_start 200 50
keys "$KPTOP -i $F; echo kptop-rc=\$?" Enter
tui_wait " leaf " 10
screen | grep -Eq "py-cut $cut( |$)" || { screen >&2; fail "the Drops line does not say py-cut $cut"; }
type_text 'q'
tui_wait 'kptop-rc=0' 5
echo "ok: the view of the saved file says py-cut $cut, as its report does"
