#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Overload: a 64 KiB queue and a reader that stalls for 1.5 s while the
# split workload runs. Afterwards the invariant holds exactly, samples
# were dropped at the queue (and counted in LOST records), control records
# were not: every pid in a delivered sample has its PROCESS record, unless
# the kernel lost side-band events in the stall (its own ring, 256 KiB a
# CPU, overflows when other programs start many processes meanwhile: a
# parallel build), which the side-band counter must then say.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collect-lib.sh"
require_collect

"$PROBE" -F 999 -q 65536 -s 1500 -d 2.5 -- "$SPLIT" 2 >"$T/out" 2>"$T/err" ||
	{ cat "$T/err" >&2; fail "probe failed"; }
check_invariant "$T/out"
qf=$(grep '^STATS ' "$T/out" | field queue_full)
[ "${qf:-0}" -gt 0 ] || fail "no queue-full drops with a 64 KiB queue and a stalled reader"
lost=$(awk '/^L stage=4 / { sub(/.*count=/, ""); s += $0 } END { print s + 0 }' "$T/out")
[ "$lost" = "$qf" ] || fail "LOST records say $lost queue-full drops, the counter $qf"
awk "$AWK_HEX"'
/^P / { sub(/^P pid=/, ""); sub(/ .*/, ""); have[$0] = 1; next }
/^S / {
	pid = $2; sub(/pid=/, "", pid); fl = $5; sub(/flags=/, "", fl);
	if (hex(fl) % 2 == 1) next;	# idle
	n++;
	if (!(pid in have)) { missing[pid] = 1; bad++ }
}
END {
	for (p in missing) printf "no PROCESS record for sampled pid %s\n", p;
	printf "%d samples delivered, %d without a process record\n", n, bad;
	exit (n == 0 || bad > 0);
}' "$T/out" >"$T/missing" || {
	sb=$(grep '^STATS ' "$T/out" | field sideband)
	[ "${sb:-0}" -gt 0 ] || { cat "$T/missing" >&2; fail "samples without process records"; }
	echo "collect-overload: side-band lost $sb events in the stall: $(tail -1 "$T/missing")" >&2
}
