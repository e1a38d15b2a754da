#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# push-parca.sh — kptop --push parca://: WriteRaw over HTTP (grpc-gateway
# JSON at /profiles/writeraw) as Parca takes it (tests/push-receiver.py:
# label names, __name__, base64 pprof with sequential ids), under the
# name --app-name gives; go tool pprof reads each profile, 50/30/20
# within 3 points. Without --app-name the application is the command
# name (the workload in no service's cgroup).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/push-lib.sh"

start_split 30
start_receiver "$T/rx"
push_kptop -F 4999 -d 3 -n 2 --app-name shop-frontend \
	--push "parca://127.0.0.1:$PORT" 2>"$T/err" ||
	fail "kptop --push parca: exit $?: $(cat "$T/err")"
sleep 0.5
no_invalid "$T/rx"
[ "$(wc -l <"$T/rx/log" 2>/dev/null)" = 2 ] || fail "not 2 profiles: $(cat "$T/rx/log" "$T/err")"
awk '$2 != "parca" || $3 != "shop-frontend" { bad = 1 } END { exit bad }' "$T/rx/log" ||
	fail "protocol or application: $(cat "$T/rx/log")"
for f in "$T"/rx/0*.pb.gz; do
	check_profile "$f"
done

# The rule: the command name, where no service or container is named
# by the cgroup path (a test run from a login shell or a test harness).
case "$(cat /proc/$SPID/cgroup)" in
*.service*|*docker*|*containerd*|*crio*|*libpod*) ;;	# the rule names those
*)
	push_kptop -F 199 -d 1 -n 1 --push "parca://127.0.0.1:$PORT" 2>"$T/err" ||
		fail "kptop --push parca: exit $?: $(cat "$T/err")"
	sleep 0.5
	tail -1 "$T/rx/log" | grep -q ' parca split-fp ' || fail "app by command: $(tail -1 "$T/rx/log")"
	;;
esac
no_invalid "$T/rx"

# The whole machine: every application's profile as Parca takes it (ids
# 1, 2, ... in order though the main binary's mapping is written first,
# and most stacks start in libc or the kernel). clockspin is a second
# application, as a quiet machine may run nothing else for that second.
"$top_builddir/tests/workload/clockspin" 3 &
CPID=$!
"$KPTOP" --batch -F 199 -d 1 -n 1 --push-spool "$T/spool" \
	--push "parca://127.0.0.1:$PORT" 2>"$T/err" || fail "system-wide: exit $?: $(cat "$T/err")"
sleep 0.5
kill "$CPID" 2>/dev/null
no_invalid "$T/rx"
[ "$(wc -l <"$T/rx/log")" -ge 5 ] || fail "system-wide: $(wc -l <"$T/rx/log") profiles in all"
echo ok
