#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Exec storm: 300 short-lived processes (each a few ms of split-fp) while
# sampling. No crash, the invariant holds, and every sampled short-lived
# process has its own identity: a PROCESS record from its fork and an EXEC
# record with its new comm. The PROCESS record carries the comm the child
# had at its fork, its parent shell's ("sh"), not a later one. The EXEC
# records name the new program's file (from the MMAP record that follows
# it: most of these processes are gone before a /proc read could name it).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collect-lib.sh"
require_collect

cp "$SPLIT" "$T/kp-storm"	# a comm no other process on the machine has
"$PROBE" -F 999 -d 0 -- sh -c "i=0; while [ \$i -lt 300 ]; do \"$T/kp-storm\" --rounds 3 --quiet; i=\$((i+1)); done" \
	>"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "probe failed"; }
check_invariant "$T/out"
awk '
/^P / { p = $2; sub(/pid=/, "", p); proc[p] = 1; pcomm[p] = $6; next }
/^E / && / comm=kp-storm / { p = $2; sub(/pid=/, "", p); ex[p]++;
	if ($NF != "exe=" exe) { if (!badx++) printf "pid %s: EXEC %s, not exe=%s\n", p, $NF, exe }
	next }
/^S / && / comm=kp-storm / { p = $2; sub(/pid=/, "", p); sampled[p] = 1; next }
END {
	for (p in ex) {
		execs++; if (ex[p] != 1) dup++;
		if ((p in proc) && pcomm[p] != "comm=sh") { if (!badc++) printf "pid %s: PROCESS %s, not comm=sh\n", p, pcomm[p] }
	}
	for (p in sampled) {
		n++;
		if (!(p in proc)) { printf "pid %s: no PROCESS record\n", p; bad++ }
		if (!(p in ex)) { printf "pid %s: no EXEC record\n", p; bad++ }
	}
	printf "%d exec records of kp-storm, %d sampled processes, %d problems, %d fork comms not the parent%s, %d without the file\n", execs, n, bad, badc, "s", badx;
	exit (execs < 300 || n < 30 || bad > 0 || dup > 0 || badc > 0 || badx > 0);
}' exe="$T/kp-storm" "$T/out" || fail "short-lived processes without their own identity"
