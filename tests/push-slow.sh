#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# push-slow.sh — a slow server (3 s per answer) never slows sampling: the
# pushes wait on their own thread, so each report's interval stays its
# -d of 1 s, no sample is dropped at any stage (taken == delivered, every
# drop counter 0) and the run takes its 5 s (+ the 2 s of grace at exit).
# What the slow server could not take yet waits in the spool, counted.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/push-lib.sh"

start_split 60
start_receiver "$T/rx" --slow 3
t0=$(date +%s.%N)
push_kptop -F 999 -d 1 -n 5 -o "$T/rep-%n.txt" \
	--push "pyroscope://127.0.0.1:$PORT" 2>"$T/err" ||
	fail "kptop --push: exit $?: $(cat "$T/err")"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 12) }' ||
	fail "the run took $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s, not about 7 (startup, 5 s, 2 s of grace)"
for n in 1 2 3 4 5; do
	f=$T/rep-$n.txt
	[ -f "$f" ] || fail "no report $n"
	awk '/^# *duration/ || /^duration/ { for (i = 1; i <= NF; i++) if ($i == "duration")
		d = $(i + 1); if (d < 0.9 || d > 1.3) { print "duration " d; bad = 1 } }
	/collector: taken/ { t = $3; sub(/,/, "", t); if (t != $5) { print; bad = 1 } }
	/^#? *drops:/ { s = $0; gsub(/[^0-9 ]/, " ", s); n = split(s, v, " ");
		for (i = 1; i <= n; i++) if (v[i] != 0) { print; bad = 1 } }
	END { exit bad }' "$f" >"$T/bad" || fail "report $n: $(cat "$T/bad")"
done
line=$(grep "at exit: push:" "$T/err") || fail "no final status: $(cat "$T/err")"
sent=$(echo "$line" | sed -n 's/.*sent \([0-9]*\),.*/\1/p')
waiting=$(echo "$line" | sed -n 's/.*waiting \([0-9]*\) .*/\1/p')
[ $((sent + waiting)) = 5 ] || fail "sent $sent + waiting $waiting != 5: $line"
[ "$sent" -ge 1 ] || fail "the slow server got nothing: $line"
no_invalid "$T/rx"
echo ok
