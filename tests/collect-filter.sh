#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Filters applied in BPF: with -p PID only that process is sampled; with
# --cgroup DIR only tasks in that cgroup2 directory (or below) are.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collect-lib.sh"
require_collect

cp "$SPLIT" "$T/kp-filt"
"$T/kp-filt" 3 >/dev/null &
wl=$!
sleep 0.2
"$PROBE" -n -F 999 -p "$wl" -d 1 >"$T/pid" 2>"$T/err" || { kill $wl; cat "$T/err" >&2; fail "probe -p failed"; }
check_invariant "$T/pid"
awk -v want="$wl" '/^S / { n++; if ($2 != "pid=" want) { print "foreign sample: " $0; bad++ } }
	END { printf "%d samples with -p %s, %d of other processes\n", n, want, bad; exit (n < 100 || bad > 0) }' \
	"$T/pid" || { kill $wl; fail "-p filter"; }
kill $wl 2>/dev/null
wait $wl 2>/dev/null

cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$cg" ] && mkdir "$cg/kptop-test-$$" 2>/dev/null || { echo "no writable cgroup2 mount: --cgroup not tested"; exit 0; }
dir="$cg/kptop-test-$$"
sh -c "echo \$\$ > '$dir/cgroup.procs' && exec '$T/kp-filt' 3" >/dev/null &
wl=$!
sleep 0.2
rc=0
"$PROBE" -n -F 999 -c "$dir" -d 1 >"$T/cg" 2>"$T/err" || rc=$?
kill $wl 2>/dev/null
wait $wl 2>/dev/null
rmdir "$dir"
[ $rc = 0 ] || { cat "$T/err" >&2; fail "probe -c failed"; }
check_invariant "$T/cg"
awk '/^S / { n++; if ($0 !~ / comm=kp-filt /) { print "foreign sample: " $0; bad++ } }
	END { printf "%d samples with --cgroup, %d of other processes\n", n, bad; exit (n < 100 || bad > 0) }' \
	"$T/cg" || fail "--cgroup filter"
