#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# readme-tour.sh — the README's "tour of the screen" is what the screen
# shows: kptop's live view of the known-split workload in an 80x24 tmux
# pane, compared line by line with the README's block, numbers masked
# (each run of digits becomes #, a size such as "938.5 KiB" SIZE), runs
# of blanks folded, and the fields the header shows only when not zero
# (Merged, [other]) left out of both. The block's
# lines before "  ..." are the top of the screen, the line after it the
# last line. To refresh the README, paste a capture-pane of that screen.
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"

readme="$top_srcdir/README.md"
awk '/^## A tour of the screen/ { t = 1; next }
	t && /^```/ { if (in_block) exit; in_block = 1; next }
	in_block' "$readme" >"$TUI_TMP/tour"
[ "$(wc -l <"$TUI_TMP/tour")" -ge 5 ] || fail "no screen block under \"## A tour of the screen\" in README.md"

WL="$top_builddir/tests/workload/split-fp"
[ -x "$WL" ] || fail "workload not built: $WL"
"$WL" 30 --quiet &
TUI_PIDS="$!"
tui_start 80 24
keys "$KPTOP -d 1 -p $TUI_PIDS" Enter
tui_wait ' hot_c ' 10
sleep 2	# a few refreshes: every row the block shows is there
screen >"$TUI_TMP/screen"
type_text 'q'

mask() {
	sed -e 's/  Merged [0-9][0-9]*//; s/  \[other\] [0-9.]*%//' \
	    -e 's/[0-9][0-9.]* [KMG]iB/SIZE/g; s/[0-9][0-9]* B\b/SIZE/g' \
	    -e 's/[0-9][0-9]*/#/g' -e 's/[[:space:]][[:space:]]*/ /g' -e 's/ $//'
}
mask <"$TUI_TMP/screen" >"$TUI_TMP/screen.m"
mask <"$TUI_TMP/tour" >"$TUI_TMP/tour.m"
top=$(grep -n '^ *\.\.\.$' "$TUI_TMP/tour.m" | head -1 | cut -d: -f1)
[ -n "$top" ] || fail "README block has no '  ...' line between the top and the last line"
head -n $((top - 1)) "$TUI_TMP/tour.m" >"$TUI_TMP/want.top"
head -n $((top - 1)) "$TUI_TMP/screen.m" >"$TUI_TMP/got.top"
tail -n +$((top + 1)) "$TUI_TMP/tour.m" >"$TUI_TMP/want.end"
tail -n "$(wc -l <"$TUI_TMP/want.end")" "$TUI_TMP/screen.m" >"$TUI_TMP/got.end"
if ! cmp -s "$TUI_TMP/want.top" "$TUI_TMP/got.top" ||
   ! cmp -s "$TUI_TMP/want.end" "$TUI_TMP/got.end"; then
	echo "---- screen ----" >&2; cat "$TUI_TMP/screen" >&2
	echo "---- README vs screen (masked) ----" >&2
	diff "$TUI_TMP/want.top" "$TUI_TMP/got.top" >&2
	diff "$TUI_TMP/want.end" "$TUI_TMP/got.end" >&2
	fail "README.md's tour of the screen is not what the screen shows"
fi
echo "readme-tour: $((top - 1)) top lines and the last line match the screen"
exit 0
