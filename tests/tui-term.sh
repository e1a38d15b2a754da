#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-term.sh — a terminal the live view cannot drive (TERM=dumb: no
# cursor addressing; a TERM terminfo does not know) is refused before
# anything is loaded: one line that names --batch, exit status 2, and
# nothing drawn. Run in a tmux pane, so that stdin and stdout are a tty
# (without one the view refuses for that reason first).
. "$top_srcdir/tests/lib.sh"
[ -x "${KPTOP:-}" ] || fail "kptop binary not built: ${KPTOP:-unset}"
. "$top_srcdir/tests/tui-lib.sh"

tui_start 120 30

# refused TERM WORD: exit 2, one line on stderr naming --batch and WORD.
# (The status line names the TERM: the last call's line, still on the
# screen until clear runs, must not be taken for this one's.)
refused() {
	keys "clear; TERM=$1 $KPTOP -d 1 2>$TUI_TMP/err; echo kptop-rc-$1=\$?" Enter
	tui_wait "kptop-rc-$1=[0-9]+" 10
	screen | grep -q "kptop-rc-$1=2" || { screen >&2; fail "TERM=$1: exit status not 2"; }
	[ "$(wc -l <"$TUI_TMP/err")" = 1 ] ||
		fail "TERM=$1: expected one line, got: $(cat "$TUI_TMP/err")"
	grep -q -- '--batch' "$TUI_TMP/err" || fail "TERM=$1: message does not name --batch"
	grep -q -- "$2" "$TUI_TMP/err" || fail "TERM=$1: message does not name $2"
	# the pane shows the command and the status line only
	[ "$(screen | grep -c .)" -le 2 ] || { screen >&2; fail "TERM=$1: drew on the terminal"; }
}

refused dumb "TERM=dumb"
refused kptop-no-such-term "TERM=kptop-no-such-term"
exit 0
