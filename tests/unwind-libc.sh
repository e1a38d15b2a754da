#!/bin/sh
# unwind-libc.sh — end to end in dwarf mode: a qsort comparator burning
# CPU is reached from main through libc's frames (>= 90% of its samples);
# a recursion deeper than --stack-bytes gives truncated stacks without a
# crash, and kptop still reports the innermost frames.
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

start_workload "$top_builddir/tests/workload/unwind-deep" 4
run_profiler "$tmp/d" dwarf "$wl_pid" 2 4096
kill $wl_pid 2>/dev/null
frames_of "$tmp/d" | awk '
	$NF == "spin" { n += $1; for (i = 2; i <= NF; i++) if ($i == "main") m += $1 }
	END { printf "deep: %d samples in spin (200 levels down), %d of them reach main\n", n, m; exit !(n >= 100 && m == 0) }' ||
	{ head -10 "$tmp/d"; fail "deep recursion: expected truncated stacks"; }
# counted by cause: the driver prints its counters (kptop shows them in
# its header and the report's notes)
if grep -q "^unwind-drive:" "$tmp/d.err"; then
	short=$(sed -n 's/.* short \([0-9]*\) .*/\1/p' "$tmp/d.err")
	[ "${short:-0}" -ge 100 ] || fail "deep recursion: truncations not counted as short copies: $(cat "$tmp/d.err")"
fi
exit 0
