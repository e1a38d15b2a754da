#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unwind-libc.sh — end to end in dwarf mode: a qsort comparator burning
# CPU is reached from main through libc's frames (>= 90% of its samples).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/unwind-lib.sh"
require_bpf
tmp=$(mktemp -d) || fail mktemp
trap 'kill $wl_pid 2>/dev/null; rm -rf "$tmp"' EXIT

start_workload "$top_builddir/tests/workload/unwind-qsort" 4
run_profiler "$tmp/q" dwarf "$wl_pid" 2
kill $wl_pid 2>/dev/null
frames_of "$tmp/q" | awk '
	{
		for (i = 2; i <= NF; i++) if ($i == "cmp_slow") {
			cmp += $1;
			for (j = 2; j < i - 1; j++)
				if ($j == "main" && $(j+1) == "sort_rounds" && i - j >= 3) { ok += $1; break }
		}
	}
	END {
		printf "qsort: %d samples in cmp_slow, %d reach main through libc\n", cmp, ok;
		exit !(cmp >= 100 && ok >= 0.9 * cmp);
	}' || { head -10 "$tmp/q"; fail "comparator stacks do not reach main through libc"; }

exit 0
