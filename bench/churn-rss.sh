#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# churn-rss.sh — the live view's memory under a churn of short processes.
#   bench/churn-rss.sh [MINUTES (10)] [KPTOP (./kptop)] [EVERY_S (15)]
# Run as root (`make bench` builds what it needs; never run by `make
# check`). Starts bench/churn-load.sh and the live view in a detached
# 200x60 tmux pane (extra kptop options in $KPTOP_OPTS). Every EVERY_S
# seconds it prints the live kptop's RSS and where it lies
# (/proc/PID/smaps: the brk heap, anonymous mappings, BPF maps, files)
# and the header's Model figure. At the end: the first and the last RSS
# and the growth over the second half of the run, in MB.
set -eu
MIN=${1:-10}
KPTOP=${2:-${KPTOP:-./kptop}}
EVERY=${3:-15}
here=$(cd "$(dirname "$0")" && pwd)
SOCK="kptop-rss-$$"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kptop-rss.XXXXXX")
LOADPID=""

[ "$(id -u)" = 0 ] || { echo "churn-rss: run as root" >&2; exit 77; }
command -v tmux >/dev/null || { echo "churn-rss: needs tmux" >&2; exit 77; }
cleanup() {
	[ -n "$LOADPID" ] && kill -TERM "-$LOADPID" 2>/dev/null || true
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

cat > "$TMP/hello.c" <<'EOC'
int main(void)
{
	volatile unsigned long s = 0;

	for (unsigned i = 0; i < 200000; i++)
		s += i;
	return (int)(s & 1);
}
EOC
prog=/bin/true
cc -O1 -o "$TMP/hello" "$TMP/hello.c" 2>/dev/null && prog="$TMP/hello"
CHURN_PIDFILE="$TMP/load.pid" setsid "$here/churn-load.sh" "$prog" >/dev/null 2>&1 &
n=0
while [ ! -s "$TMP/load.pid" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
LOADPID=$(cat "$TMP/load.pid")	# its process group

tmux -L "$SOCK" -f /dev/null new-session -d -s rss -x 200 -y 60 \
	"env TERM=screen-256color LANG=C.UTF-8 $KPTOP ${KPTOP_OPTS:-}"
sleep 3
pane=$(tmux -L "$SOCK" display-message -p -t rss '#{pane_pid}')
if [ "$(cat /proc/"$pane"/comm)" = kptop ]; then pid=$pane
else pid=$(pgrep -P "$pane" -x kptop) || { echo "churn-rss: kptop did not start" >&2; exit 1; }
fi
# RSS in MB of: all, the brk heap, anonymous mappings, BPF maps, files
breakdown() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { n = $6; k = "other"
		if (n == "[heap]") k = "heap"; else if (n == "") k = "anon"
		else if (n ~ /bpf/) k = "bpf"; else if (n ~ /^\//) k = "file"
		next }
	/^Rss:/ { r[k] += $2; t += $2 }
	END { printf "%8.1f %8.1f %8.1f %8.1f %8.1f", t / 1024, r["heap"] / 1024,
		r["anon"] / 1024, r["bpf"] / 1024, r["file"] / 1024 }' "/proc/$1/smaps"
}
field() { tmux -L "$SOCK" capture-pane -p -t rss | head -3 |
	sed -n "s/.*$1\([^ ]*\).*/\1/p" | head -1; }

printf '%6s %8s %8s %8s %8s %8s %8s\n' time RSS_MB heap anon bpf file model
secs=$((MIN * 60))
t0=$(date +%s)
while :; do
	sleep "$EVERY"
	now=$(date +%s)
	[ -d "/proc/$pid" ] || { echo "churn-rss: kptop exited" >&2; exit 1; }
	line=$(breakdown "$pid")
	printf '%6s %s %8s\n' $((now - t0)) "$line" "$(field 'Model ')" | tee -a "$TMP/rows"
	[ $((now - t0)) -ge "$secs" ] && break
done
awk '{ t[NR] = $1; r[NR] = $2 } END { h = int((NR + 1) / 2);
	printf "first %.1f MB, last %.1f MB, max %.1f MB; second half grew %.1f MB\n",
		r[1], r[NR], max(r), r[NR] - r[h] }
	function max(a,   i, m) { for (i in a) if (a[i] > m) m = a[i]; return m }' "$TMP/rows"
