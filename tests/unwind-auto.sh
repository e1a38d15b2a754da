#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unwind-auto.sh — end to end, --unwind auto: a -fomit-frame-pointer
# process (split-nofp) is marked once its frame-pointer stacks are seen not
# to reach the entry, and its samples are unwound with CFI from the first
# (its program's first samples carry a stack copy before any judgement,
# kptop.bpf.c auto_dwarf): at least 99.8% of its hot samples have the
# whole chain; a frame-pointer process (unwind-leaf) is never marked and
# keeps its leaf's caller. Then, system-wide, a second split-nofp started
# while kptop runs, for 1.5 s, is whole from its first sample too (the
# first was marked soon, leaving its program's copies to the next:
# before, the samples taken until it was marked, 2-6%, ended early).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/unwind-lib.sh"
require_bpf
tmp=$(mktemp -d) || fail mktemp
nofp_pid= fp_pid=
trap 'kill $nofp_pid $fp_pid 2>/dev/null; rm -rf "$tmp"' EXIT

start_workload "$top_builddir/tests/workload/split-nofp" 8
nofp_pid=$wl_pid
start_workload "$top_builddir/tests/workload/unwind-leaf" 8
fp_pid=$wl_pid
run_profiler "$tmp/f" auto "$nofp_pid,$fp_pid" 6
kill $nofp_pid $fp_pid 2>/dev/null
frames_of "$tmp/f" | awk '
	{
		hot = 0; full = 0; leaf = 0; mid = 0;
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^hot_[abc]$/) { hot = 1; at = i }
			if ($i == "leaf_spin") { leaf = 1; mid = ($(i-1) == "middle" && $(i-2) == "outer") }
		}
		if (hot) { h += $1; if (at >= 8 && $(at-6) == "main") f += $1 }
		if (leaf) { l += $1; if (mid) m += $1 }
	}
	END {
		printf "auto: split-nofp %d hot samples, %d with the whole chain; unwind-leaf %d, %d with its caller\n", h, f, l, m;
		exit !(h >= 300 && f >= 0.998 * h && l >= 200 && m == l);
	}' || { head -5 "$tmp/f"; fail "auto mode: nofp process not unwound, or fp process broken"; }

# A process of the same program started while kptop runs, system-wide.
start_workload "$top_builddir/tests/workload/split-nofp" 8
nofp_pid=$wl_pid
( sleep 2; exec "$top_builddir/tests/workload/split-nofp" 1.5 >/dev/null 2>&1 ) &
late_pid=$!
"$KPTOP" --batch --format folded --folded-pid -o "$tmp/late" --unwind auto -F 999 -d 5 \
	2>"$tmp/late.err" || fail "system-wide auto: exit $?: $(tail -3 "$tmp/late.err")"
wait $late_pid
awk -v p="split-nofp-$late_pid;" '
	index($0, p) == 1 && /;hot_[abc]/ { h += $NF; if (/;main;.*;hot_[abc]/) f += $NF }
	END {
		printf "auto: split-nofp started later: %d hot samples, %d with the whole chain\n", h, f;
		exit !(h >= 300 && f >= 0.998 * h);
	}' "$tmp/late" || { grep "^split-nofp-$late_pid;" "$tmp/late" | grep -v ';main;' | head -3; fail "auto mode: a later process of a marked program lost its first stacks"; }
exit 0
