#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-first-frame.sh — how soon the live view shows the hot function:
# with the known-split workload busy (hot_a is half of its CPU), kptop
# starts in a detached 200x50 tmux pane and the pane is read every 50 ms
# until it shows hot_a; the time from the start of kptop to then.
#   bench/tui-first-frame.sh [KPTOP] [DELAY_S] [RUNS] [WORKLOAD]
# KPTOP_ARGS adds options (e.g. KPTOP_ARGS=-p to watch the workload only:
# its pid is appended). Run as root. Prints each run and the min / median over RUNS (default 5)
# in ms. KPTOP defaults to ./kptop, WORKLOAD to tests/workload/split-fp
# next to it (make check builds it).
set -eu
KPTOP=${1:-${KPTOP:-./kptop}}
DELAY=${2:-2}
RUNS=${3:-5}
WL=${4:-$(dirname "$KPTOP")/tests/workload/split-fp}
SOCK="kptop-bench-$$"

[ "$(id -u)" = 0 ] || { echo "tui-first-frame: run as root" >&2; exit 77; }
command -v tmux >/dev/null || { echo "tui-first-frame: needs tmux" >&2; exit 77; }
[ -x "$WL" ] || { echo "tui-first-frame: no workload $WL" >&2; exit 77; }
unset TMUX
"$WL" 600 --quiet &
WLPID=$!
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; kill $WLPID 2>/dev/null || true' EXIT
sleep 0.5	# the workload in its hot loop
case "${KPTOP_ARGS:-}" in
*-p) ARGS="$KPTOP_ARGS $WLPID" ;;
*) ARGS="${KPTOP_ARGS:-}" ;;
esac

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# one run: ms from kptop's start to hot_a on screen (or "timeout")
one() {
	t0=$(now_ms)
	tmux -L "$SOCK" -f /dev/null new-session -d -s ff -x 200 -y 50 \
		"env TERM=screen-256color LANG=C.UTF-8 $KPTOP -d $DELAY $ARGS"
	while :; do
		t=$(now_ms)
		if tmux -L "$SOCK" capture-pane -p -t ff 2>/dev/null | grep -q ' hot_a '; then
			echo $((t - t0)); break
		fi
		[ $((t - t0)) -lt 20000 ] || { echo timeout; break; }
		sleep 0.05
	done
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	sleep 0.5	# kptop gone, its BPF unloaded
}

echo "kptop -d $DELAY $ARGS, $RUNS runs, $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
all=""
i=0
while [ "$i" -lt "$RUNS" ]; do
	ms=$(one)
	echo "run $((i + 1)): $ms ms"
	all="$all $ms"
	i=$((i + 1))
done
echo "$all" | tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | awk '
	{ v[NR] = $1 }
	END { if (!NR) { print "no run saw hot_a"; exit 1 }
	      printf "hot_a on screen after: min %d ms, median %d ms\n", v[1], v[int((NR + 1) / 2)] }'
