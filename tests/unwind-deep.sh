#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unwind-deep.sh — end to end in dwarf mode: a recursion deeper than
# --stack-bytes gives truncated stacks (the innermost frames, never main)
# without a crash, and the truncations are counted and shown with the drop
# counters (kptop's "unwind N" in the text report's drops line).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/unwind-lib.sh"
require_bpf
tmp=$(mktemp -d) || fail mktemp
trap 'kill $wl_pid 2>/dev/null; rm -rf "$tmp"' EXIT

start_workload "$top_builddir/tests/workload/unwind-deep" 6
run_profiler "$tmp/d" dwarf "$wl_pid" 2 4096
frames_of "$tmp/d" | awk '
	$NF == "spin" { n += $1; for (i = 2; i <= NF; i++) if ($i == "main") m += $1 }
	END { printf "deep: %d samples in spin (200 levels down), %d of them reach main\n", n, m; exit !(n >= 100 && m == 0) }' ||
	{ head -10 "$tmp/d"; fail "deep recursion: expected truncated stacks"; }
# counted: kptop shows truncated unwinds with the drop counters
"$KPTOP" --batch --format text --unwind dwarf --stack-bytes 4096 -F 999 -d 2 \
	-p "$wl_pid" >"$tmp/t" 2>"$tmp/t.err" || fail "kptop text report: $(cat "$tmp/t.err")"
n=$(sed -n 's/^drops:.* unwind \([0-9]*\).*/\1/p' "$tmp/t")
echo "deep: kptop counts ${n:-no} truncated unwinds"
[ "${n:-0}" -ge 100 ] || fail "deep recursion: truncated unwinds not counted: $(grep '^drops' "$tmp/t")"
kill $wl_pid 2>/dev/null
exit 0
