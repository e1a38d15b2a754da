#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unwind-leaf.sh — end to end: a frame-pointer build whose hot function
# (leaf_spin) is a frameless leaf. In fp mode, and in dwarf mode, its
# caller (middle) must appear in every stack that has leaf_spin.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/unwind-lib.sh"
require_bpf
wl=$top_builddir/tests/workload/unwind-leaf
[ -x "$wl" ] || fail "workload not built: $wl"
tmp=$(mktemp -d) || fail mktemp
trap 'kill $wl_pid 2>/dev/null; rm -rf "$tmp"' EXIT

for mode in dwarf fp; do
	start_workload "$wl" 5
	run_profiler "$tmp/f" $mode "$wl_pid" 3
	kill $wl_pid 2>/dev/null
	frames_of "$tmp/f" | awk -v mode=$mode '
		{
			for (i = 2; i <= NF; i++) if ($i == "leaf_spin") {
				leaf += $1;
				if (i > 3 && $(i-1) == "middle" && $(i-2) == "outer") ok += $1;
			}
		}
		END {
			printf "%s: %d samples in leaf_spin, %d with outer;middle above\n", mode, leaf, ok;
			exit !(leaf >= 200 && ok == leaf);
		}' || { head -10 "$tmp/f"; fail "frameless leaf's caller missing in $mode mode"; }
done
exit 0
