#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# push-spool.sh — nothing lost while the server is away: (1) the receiver
# down for three intervals, then back: every interval arrives, in order,
# none twice; (2) a restart of kptop pushes what its spool held first;
# (3) past --push-spool-size the oldest profiles are dropped and counted
# exactly: dropped + left in the spool = intervals.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/push-lib.sh"

start_split 60
start_receiver "$T/rx"
port=$PORT
stop_receiver
# (1) down for the first three intervals of six.
push_kptop -F 199 -d 1 -n 6 --push "pyroscope://127.0.0.1:$port" 2>"$T/err" &
KP=$!
sleep 3.3
start_receiver "$T/rx" --port "$port"
wait "$KP" || fail "kptop: exit $?: $(cat "$T/err")"
sleep 0.3
no_invalid "$T/rx"
grep -q "connection refused" "$T/err" || fail "no word of the refused connection: $(cat "$T/err")"
[ "$(wc -l <"$T/rx/log")" = 6 ] || fail "not 6 profiles: $(cat "$T/rx/log"; cat "$T/err")"
awk 'NR > 1 && $4 <= prev { bad = 1 } { prev = $4 } END { exit bad }' "$T/rx/log" ||
	fail "out of order or twice: $(cat "$T/rx/log")"
grep -q "at exit: push: sent 6, waiting 0 " "$T/err" || fail "final status: $(tail -2 "$T/err")"

# (2) two intervals spooled while the server is away, then a restart.
stop_receiver
push_kptop -F 199 -d 1 -n 2 --push "pyroscope://127.0.0.1:$port" 2>"$T/err2" ||
	fail "kptop: exit $?: $(cat "$T/err2")"
grep -q "at exit: push: sent 0, waiting 2 " "$T/err2" || fail "not 2 left: $(tail -2 "$T/err2")"
[ "$(ls "$T/spool" | grep -c '\.push$')" = 2 ] || fail "spool: $(ls "$T/spool")"
start_receiver "$T/rx" --port "$port"
push_kptop -F 199 -d 1 -n 1 --push "pyroscope://127.0.0.1:$port" 2>"$T/err3" ||
	fail "kptop: exit $?: $(cat "$T/err3")"
sleep 0.3
grep -q "2 profiles of an earlier run wait" "$T/err3" || fail "restart: $(cat "$T/err3")"
[ "$(wc -l <"$T/rx/log")" = 9 ] || fail "not 9 profiles: $(cat "$T/rx/log")"
awk 'NR > 1 && $4 <= prev { bad = 1 } { prev = $4 } END { exit bad }' "$T/rx/log" ||
	fail "restart: out of order or twice: $(cat "$T/rx/log")"
no_invalid "$T/rx"

# (3) the spool's limit, the server away: 16 KiB holds a few profiles.
stop_receiver
rm -rf "$T/spool"
n=30
push_kptop -F 999 -d 0.25 -n $n --push-spool-size 16K \
	--push "pyroscope://127.0.0.1:$port" 2>"$T/err4" ||
	fail "kptop: exit $?: $(cat "$T/err4")"
line=$(grep "at exit: push:" "$T/err4") || fail "no final status: $(cat "$T/err4")"
dropped=$(echo "$line" | sed -n 's/.*dropped \([0-9]*\) (spool full).*/\1/p')
waiting=$(echo "$line" | sed -n 's/.*waiting \([0-9]*\) .*/\1/p')
left=$(ls "$T/spool" | grep -c '\.push$')
[ "$dropped" -gt 0 ] || fail "nothing dropped at 16K: $line"
[ "$waiting" = "$left" ] || fail "waiting $waiting, but $left files in the spool"
[ $((dropped + left)) = $n ] || fail "dropped $dropped + left $left != $n: $line"
grep -q "is full: its .* oldest profiles dropped" "$T/err4" || fail "no word of the drops"
size=$(cat "$T"/spool/*.push | wc -c)
[ "$size" -le 16384 ] || fail "spool holds $size bytes, over 16K"
# What is left is the newest: the receiver gets them in order.
start_receiver "$T/rx2"
push_kptop -F 199 -d 0.5 -n 1 --push "pyroscope://127.0.0.1:$PORT" 2>"$T/err5" ||
	fail "kptop: exit $?: $(cat "$T/err5")"
sleep 0.3
[ "$(wc -l <"$T/rx2/log")" = $((left + 1)) ] || fail "not $((left + 1)) profiles: $(cat "$T/rx2/log")"
no_invalid "$T/rx2"
echo ok
