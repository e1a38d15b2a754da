#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The DWARF stack copy stops where the sampled thread's frames end
# (common.bpf.h kp_stack_want), not --stack-bytes above its stack pointer:
# - split-nofp's main thread (about 0.5 KiB of frames below the kernel's
#   arguments): its copies under 1 KiB, where 8 KiB were asked (the whole
#   copy ran on into its arguments and environment: about 6 KiB);
# - python3's second thread (its thread pointer tops its stack, about 3
#   KiB up): its copies under 6 KiB (8192 before: a thread's stack
#   mapping is megabytes).
# That the chains stay whole with the shorter copies is unwind-dwarf.sh's
# and python-split.sh's part.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collect-lib.sh"
require_collect
PY=/usr/bin/python3
[ -x "$PY" ] || skip_absent "$PY (Debian package python3) is not installed"

# copies FILE WHO: the median stack copy of the samples of WHO (main: the
# main thread, thread: the others) that have one, and their count
copies() {
	awk -v who="$2" '/^S / {
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^pid=/) p = substr($i, 5);
			if ($i ~ /^tid=/) t = substr($i, 5);
			if ($i ~ /^stack=/) s = substr($i, 7) + 0;
		}
		if (s > 64 && (p == t) == (who == "main")) print s }' "$1" |
		sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0, NR }'
}

# check NAME WHO MIN_SAMPLES BELOW CMD...: CMD's copies of WHO under BELOW
# bytes (median), from at least MIN_SAMPLES samples
check() {
	name=$1 who=$2 least=$3 below=$4
	shift 4
	"$PROBE" -u dwarf -d 0 -- "$@" >"$T/out" 2>"$T/err" ||
		{ cat "$T/err" >&2; fail "probe failed ($name)"; }
	check_invariant "$T/out"
	set -- $(copies "$T/out" "$who")
	echo "$name ($who): median copy $1 bytes of 8192 asked, $2 samples"
	[ "$2" -ge "$least" ] || fail "$name: $2 samples with a stack copy (want >= $least)"
	[ "$1" -lt "$below" ] || fail "$name: median copy $1 bytes: not cut where its frames end"
}

check split-nofp main 500 1024 "$top_builddir/tests/workload/split-nofp" 2
check python3 thread 300 6144 "$PY" "$top_srcdir/tests/workload/py-split.py" 2 2
exit 0
