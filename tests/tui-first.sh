#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-first.sh — the first frame with data does not wait for the refresh
# interval: with -d 10 the hot function of the known-split workload is on
# screen within 5 s (the early frames come in the first half second; the
# old view showed it after 10 s). How soon exactly is measured by
# bench/tui-first-frame.sh, not here.
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"

WL="$top_builddir/tests/workload/split-fp"
[ -x "$WL" ] || fail "workload not built: $WL"
"$WL" 60 --quiet &
TUI_PIDS="$!"
WLPID=$!

tui_start 200 50
keys "$KPTOP -d 10 -p $WLPID; echo kptop-rc=\$?" Enter
tui_wait ' hot_a ' 5
table_top 5 | grep -q ' hot_a ' || { screen >&2; fail "hot_a not in the top 5 rows"; }
type_text 'q'
tui_wait 'kptop-rc=0' 5
exit 0
