#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# push-pyroscope.sh — kptop --push pyroscope://: three intervals arrive at
# the receiver as Pyroscope's /ingest takes them (tests/push-receiver.py
# checks the query, the name's labels and the pprof), each in its own
# [from, until), under the application of the rule (the workload sits in
# a cgroup named like a systemd service, kptop-push-PID.service, where
# cgroup2 is mounted), and each read by go tool pprof with the 50/30/20
# split within 3 points. The spool is left empty and private.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/push-lib.sh"

start_split 30
app=split-fp
cg=
for root in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ "$(stat -f -c %T "$root" 2>/dev/null)" = cgroup2fs ] || continue
	cg=$root/kptop-push-$$.service
	if mkdir "$cg" 2>/dev/null && echo "$SPID" >"$cg/cgroup.procs" 2>/dev/null; then
		app=kptop-push-$$
	fi
	break
done
cg_cleanup() {
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		kill "$SPID" 2>/dev/null
		sleep 0.2
		rmdir "$cg" 2>/dev/null
	fi
	push_cleanup
}
trap cg_cleanup EXIT

echo "application expected: $app"
start_receiver "$T/rx"
push_kptop -F 4999 -d 3 -n 3 --push "pyroscope://127.0.0.1:$PORT" 2>"$T/err" >"$T/out" ||
	fail "kptop --push: exit $?: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "--push without -o wrote a report: $(head -3 "$T/out")"
sleep 0.5
no_invalid "$T/rx"
[ -f "$T/rx/log" ] || fail "nothing arrived: $(cat "$T/err")"
[ "$(wc -l <"$T/rx/log")" = 3 ] || fail "$(wc -l <"$T/rx/log") profiles arrived, not 3: $(cat "$T/rx/log")"
awk -v app="$app" -v host="$(hostname | tr -c 'A-Za-z0-9_.\n-' _)" '
	$2 != "pyroscope" { print "protocol " $2; bad = 1 }
	$3 != app { print "application " $3 ", want " app; bad = 1 }
	$6 != host { print "hostname " $6 ", want " host; bad = 1 }
	$5 - $4 < 3 || $5 - $4 > 5 { print "interval " $4 "-" $5; bad = 1 }
	NR > 1 && $4 < prev { print "from " $4 " before the last until " prev; bad = 1 }
	{ prev = $5 - 1 }
	END { exit bad }' "$T/rx/log" >"$T/logerr" || fail "profiles: $(cat "$T/logerr"): $(cat "$T/rx/log")"
for f in "$T"/rx/0*.pb.gz; do
	check_profile "$f"
done
grep -q "accepts profiles" "$T/err" || fail "no word of the first push: $(cat "$T/err")"
grep -q "at exit: push: sent 3, waiting 0" "$T/err" || fail "final status: $(cat "$T/err")"
[ "$(stat -c %a "$T/spool")" = 700 ] || fail "spool mode $(stat -c %a "$T/spool")"
[ "$(ls "$T/spool" | grep -cv '^kptop-spool$')" = 0 ] || fail "spool not empty: $(ls "$T/spool")"
echo ok
