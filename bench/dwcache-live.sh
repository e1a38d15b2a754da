#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# dwcache-live.sh — the live view's own CPU in its first seconds with the
# persistent DWARF cache cold and warm, in turn: kptop -d 1 -p PID of a
# workload busy in libc (awk's sprintf), in a detached 200x50 tmux pane,
# so that libc's frames are named with lines and inlined frames at the
# first refresh; libc6-dbg's debug file has its DWARF compressed. Cold:
# libc's file removed from the cache (/var/cache/kptop/dwarf) first;
# warm: the file the cold run wrote.
#   bench/dwcache-live.sh [KPTOP] [RUNS] [SECONDS]
# Run as root. Prints each run's CPU ms (the whole process, from its start
# to SECONDS, default 10) and the median of each over RUNS (default 3)
# pairs, with the load (other users' work blurs single runs).
set -eu
KPTOP=${1:-${KPTOP:-./kptop}}
RUNS=${2:-3}
SECS=${3:-10}
SOCK="kptop-dwcache-$$"
CACHE=/var/cache/kptop/dwarf
LIBC=$(ldd /bin/sh | awk '/libc\.so/ { print $3 }')

[ "$(id -u)" = 0 ] || { echo "dwcache-live: run as root" >&2; exit 77; }
command -v tmux >/dev/null || { echo "dwcache-live: needs tmux" >&2; exit 77; }
bid=$(readelf -n "$LIBC" | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug
[ -r "$dbg" ] || { echo "dwcache-live: no $dbg (install libc6-dbg)" >&2; exit 77; }
file=$CACHE/$bid.debug
unset TMUX

awk 'BEGIN { for (;;) s = sprintf("%d %s %.3f", i++, "x", i / 3) }' &
WLPID=$!
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; kill $WLPID 2>/dev/null || true' EXIT
sleep 0.5
hz=$(getconf CLK_TCK)

# one MODE: kptop's CPU ms over its first SECS seconds
one() {
	[ "$1" = warm ] || rm -f "$file"
	tmux -L "$SOCK" -f /dev/null new-session -d -s dw -x 200 -y 50 \
		"env TERM=screen-256color LANG=C.UTF-8 $KPTOP -d 1 -p $WLPID"
	pp=$(tmux -L "$SOCK" display-message -p -t dw '#{pane_pid}')
	sleep 0.2
	if [ "$(cat /proc/"$pp"/comm)" = kptop ]; then pid=$pp
	else pid=$(pgrep -P "$pp" -x kptop) || { echo "dwcache-live: kptop did not start" >&2; exit 1; }
	fi
	sleep "$SECS"
	ms=$(awk -v hz="$hz" '{ sub(/.*\) /, ""); print ($12 + $13) * 1000 / hz }' /proc/"$pid"/stat)
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	sleep 0.5	# kptop gone, its BPF unloaded
	[ -f "$file" ] || echo "dwcache-live: $file not written: libc's DWARF was not begun" >&2
	echo "$ms"
}

echo "kptop -d 1 -p PID (awk busy in libc), first ${SECS}s, $RUNS pairs, $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
cold="" warm=""
i=0
while [ "$i" -lt "$RUNS" ]; do
	c=$(one cold); w=$(one warm)
	echo "pair $((i + 1)): cold $c ms, warm $w ms"
	cold="$cold $c" warm="$warm $w"
	i=$((i + 1))
done
med() { echo "$1" | tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "median: cold $(med "$cold") ms, warm $(med "$warm") ms (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
