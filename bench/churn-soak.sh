#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# churn-soak.sh — kptop left running under a churn of short processes.
#   bench/churn-soak.sh [MINUTES (30)] [KPTOP (./kptop)] [EVERY_S (15)]
# Run as root (`make bench` builds what it needs; never run by `make
# check`). Starts bench/churn-load.sh (a shell running /bin/true 200
# times, a small compiled program, a python3 one-liner, in a loop), the
# live view in a detached 200x60 tmux pane (the functions view for the
# first half, the tree view for the second) and a concurrent
# `kptop --batch` over the same period. Every EVERY_S seconds it prints
# the live kptop's RSS (/proc/PID/status), its CPU over the interval
# (/proc/PID/task/*/schedstat: the nanoseconds every thread ran, the
# sum top's figure comes from), the header's "kptop CPU" figure (tmux
# capture-pane) next to /proc's over the same window, its [other] share
# and the merged processes, and the load average; EVERY_S is at least 12.
# The header's window is the 10 s up to the refresh that drew it, its
# start interpolated between kptop's readings at two refreshes: the bench
# reads /proc at every refresh it sees (the screen polled every 30 ms)
# and interpolates the same way. At the end: how many header
# figures were within 10% of /proc's over their window, the live
# view's [other] share, and the top 20 functions' Self% next to the batch
# report's, with the largest difference in points. KEEP=1 keeps the
# captures and the batch report.
set -eu
MIN=${1:-30}
KPTOP=${2:-${KPTOP:-./kptop}}
EVERY=${3:-15}
[ "$EVERY" -ge 12 ] || EVERY=12	# the header's 10 s window, and a refresh
here=$(cd "$(dirname "$0")" && pwd)
SOCK="kptop-soak-$$"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kptop-soak.XXXXXX")
LOADPID=""
BATCHPID=""

[ "$(id -u)" = 0 ] || { echo "churn-soak: run as root" >&2; exit 77; }
command -v tmux >/dev/null || { echo "churn-soak: needs tmux" >&2; exit 77; }
cleanup() {
	[ -n "$LOADPID" ] && kill -TERM "-$LOADPID" 2>/dev/null || true
	[ -n "$BATCHPID" ] && kill -TERM "$BATCHPID" 2>/dev/null || true
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	if [ -n "${KEEP:-}" ]; then echo "churn-soak: files kept in $TMP" >&2
	else rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

cat > "$TMP/hello.c" <<'EOF'
int main(void)
{
	volatile unsigned long s = 0;

	for (unsigned i = 0; i < 200000; i++)
		s += i;
	return (int)(s & 1);
}
EOF
prog=/bin/true
cc -O1 -o "$TMP/hello" "$TMP/hello.c" 2>/dev/null && prog="$TMP/hello"
CHURN_PIDFILE="$TMP/load.pid" setsid "$here/churn-load.sh" "$prog" >/dev/null 2>&1 &
n=0
while [ ! -s "$TMP/load.pid" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
LOADPID=$(cat "$TMP/load.pid")	# its process group

secs=$((MIN * 60))
tmux -L "$SOCK" -f /dev/null new-session -d -s soak -x 200 -y 60 \
	"env TERM=screen-256color LANG=C.UTF-8 $KPTOP"
"$KPTOP" --batch -d "$secs" -o "$TMP/batch.txt" 2>"$TMP/batch.err" &
BATCHPID=$!
sleep 3
pane=$(tmux -L "$SOCK" display-message -p -t soak '#{pane_pid}')
if [ "$(cat /proc/"$pane"/comm)" = kptop ]; then pid=$pane
else pid=$(pgrep -P "$pane" -x kptop) || { echo "churn-soak: kptop did not start" >&2; exit 1; }
fi
# kptop's CPU in seconds: every thread's run time (ns), summed
cpu_s() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.6f\n", s / 1e9 }'; }
rss_mb() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
screen() { tmux -L "$SOCK" capture-pane -p -t soak; }
# a header field: the text after LABEL up to two spaces
field() { screen | head -3 | sed -n "s/.*$1\([^ ]*\).*/\1/p" | head -1; }
# the header's Model figure (B, KiB or MiB: its unit changes) in MiB
model_mb() {
	screen | head -3 | sed -n 's/.*Model \([0-9.]*\) \([KM]*i*B\).*/\1 \2/p' | head -1 |
		awk '{ d = $2 == "MiB" ? 1 : $2 == "KiB" ? 1024 : 1048576; printf "%.1f", $1 / d }'
}
now_s() { date +%s.%N; }
# Wait (up to 5 s) for the next refresh: the header's first line (its
# sample total) changes only when a refresh draws it.
redrawn() {
	l0=$(screen | head -1)
	n=0
	while [ "$(screen | head -1)" = "$l0" ] && [ $n -lt 160 ]; do
		sleep 0.03
		n=$((n + 1))
	done
}
# /proc's figure over the header's window: "TIME CPU" readings taken at
# refreshes (the last at the refresh whose header is read), the CPU at
# the last time minus 10 s interpolated between the two readings around
# it, as kptop does with its own readings (tui/app.c kp_cpu_window__push).
window10() {
	awk '{ t[NR] = $1; c[NR] = $2 } END {
		s = t[NR] - 10;
		for (i = NR - 1; i > 1 && t[i] > s; i--) ;
		c0 = t[i] >= s ? c[i] : c[i] + (c[i + 1] - c[i]) * (s - t[i]) / (t[i + 1] - t[i]);
		printf "%.2f", 100 * (c[NR] - c0) / (t[NR] - (t[i] >= s ? t[i] : s)) }'
}

printf '%6s %8s %8s %8s %8s %8s %8s %9s %6s\n' time RSS_MB model_MB cpu% hdr_cpu% proc10% other% merged load1
t0=$(date +%s)
c0=$(cpu_s "$pid")
w0=$t0
half=0
near=0
reads=0
while :; do
	# /proc at every refresh until 10 s are covered; the header drawn
	# at the last covers the 10 s before it
	sleep $((EVERY - 12))
	: > "$TMP/readings"
	redrawn
	echo "$(now_s) $(cpu_s "$pid")" >> "$TMP/readings"
	ta=$(head -1 "$TMP/readings" | cut -d' ' -f1)
	while redrawn; echo "$(now_s) $(cpu_s "$pid")" >> "$TMP/readings"
		[ "$(awk -v a="$ta" 'END { print ($1 - a >= 10) }' "$TMP/readings")" = 0 ]
	do :; done
	hdr=$(field 'kptop CPU ')
	cb=$(tail -1 "$TMP/readings" | cut -d' ' -f2)
	now=$(date +%s)
	[ -d "/proc/$pid" ] || { echo "churn-soak: kptop exited" >&2; screen >&2; exit 1; }
	c1=$cb
	cpu=$(awk -v a="$c0" -v b="$c1" -v d=$((now - w0)) \
		'BEGIN { printf "%.2f", 100 * (b - a) / d }')
	p10=$(window10 < "$TMP/readings")
	reads=$((reads + 1))
	near=$((near + $(awk -v h="${hdr%\%}" -v p="$p10" \
		'BEGIN { d = h - p; if (d < 0) d = -d; print (p > 0 && d <= 0.1 * p) }')))
	printf '%6s %8s %8s %8s %8s %8s %8s %9s %6s\n' $((now - t0)) "$(rss_mb "$pid")" \
		"$(model_mb)" "$cpu" "$hdr" "$p10" \
		"$(field '\[other\] ')" "$(field 'Merged ')" \
		"$(cut -d' ' -f1 /proc/loadavg)"
	c0=$c1
	w0=$now
	if [ "$half" = 0 ] && [ $((now - t0)) -ge $((secs / 2)) ]; then
		tmux -L "$SOCK" send-keys -t soak 2	# the tree view
		half=1
	fi
	[ $((now - t0)) -ge "$secs" ] && break
done
tmux -L "$SOCK" send-keys -t soak 1	# the functions view, for the table
sleep 3
screen > "$TMP/live.txt"
wait "$BATCHPID" || true
BATCHPID=""
kill -TERM "-$LOADPID" 2>/dev/null || true
LOADPID=""

echo "header within 10% of /proc over its 10 s: $near of $reads readings"
echo "live header:"
head -3 "$TMP/live.txt"
echo "batch report:"
sed -n '2,8p' "$TMP/batch.txt"
# rows: Self% Total% Samples Function Module [Command/PID], by Self%; cut
# at the heading's columns (names hold spaces); key function@module (its
# first 8 characters: the live view cuts it to its column) and its rank
# among the rows of that key (two binaries of one name)
rows() {
	awk '/Self%/ && /Function/ && !f { f = index($0, "Function"); m = index($0, "Module");
		c = index($0, "Command"); next }
	f && $1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ {
		fn = substr($0, f, m - f); mod = c ? substr($0, m, c - m) : substr($0, m);
		gsub(/^ +| +$/, "", fn); gsub(/^ +| +$/, "", mod); gsub(/ /, "_", fn);
		k = fn "@" substr(mod, 1, 8); print k "#" ++seen[k], $1 }' "$1"
}
rows "$TMP/batch.txt" | head -20 > "$TMP/b20"
rows "$TMP/live.txt" > "$TMP/lall"
echo "top 20 of the batch report, Self% batch vs live:"
awk 'NR == FNR { live[$1] = $2; next }
	{ l = ($1 in live) ? live[$1] : 0; d = l - $2; if (d < 0) d = -d;
	  if (d > max) max = d; printf "  %-60s %6.2f %6.2f\n", $1, $2, l }
	END { printf "largest difference: %.2f points\n", max }' "$TMP/lall" "$TMP/b20"
other=$(awk '$4 == "[other]" { print $1 }' "$TMP/live.txt" | head -1)
echo "live [other] Self%: ${other:-0}"
