#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# annotate-cpu.sh — kptop's own CPU at 999 Hz while the annotate screen of
# a hot function is open, against the functions view, in one run: kptop
# in a detached 160x40 tmux pane sampling the whole machine while
# tests/workload/annospin runs; three rounds of SECS of the functions
# view, then `a` on divloop and SECS of its annotation (refreshed every
# DELAY_S as the live view does), then Esc: kptop's cost follows the
# whole machine's samples, so the rounds alternate to show the drift.
#   bench/annotate-cpu.sh [KPTOP] [DELAY_S] [SECS] [WARMUP_S]
# Run as root from the build directory (make bench builds the workload).
set -eu
KPTOP=${1:-${KPTOP:-./kptop}}
DELAY=${2:-1}
SECS=${3:-20}
WARM=${4:-5}
SOCK="kptop-annotate-$$"
WL="$(dirname "$KPTOP")/tests/workload/annospin"

[ "$(id -u)" = 0 ] || { echo "annotate-cpu: run as root" >&2; exit 77; }
command -v tmux >/dev/null || { echo "annotate-cpu: needs tmux" >&2; exit 77; }
[ -x "$WL" ] || { echo "annotate-cpu: $WL not built (make check builds it)" >&2; exit 1; }
"$WL" $((WARM + 6 * SECS + 40)) >/dev/null &
WPID=$!
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; kill $WPID 2>/dev/null || true' EXIT

cpu_ns() {
	cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { print s }'
}

span() {	# span NAME: kptop's CPU over SECS
	a=$(cpu_ns "$pid")
	sleep "$SECS"
	b=$(cpu_ns "$pid")
	awk -v n="$1" -v a="$a" -v b="$b" -v s="$SECS" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
	    'BEGIN { printf "%-22s kptop CPU %6.3f%% of one CPU over %ds (load %s)\n", n, (b - a) / 1e7 / s, s, l }'
}

echo "999 Hz, refresh every ${DELAY}s, warm-up ${WARM}s, $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
tmux -L "$SOCK" new-session -d -s b -x 160 -y 40 "$KPTOP -F 999 -d $DELAY --no-mouse"
sleep "$WARM"
pp=$(tmux -L "$SOCK" display-message -p -t b '#{pane_pid}')
if [ "$(cat /proc/"$pp"/comm)" = kptop ]; then pid=$pp; else pid=$(pgrep -P "$pp" -x kptop); fi
tmux -L "$SOCK" send-keys -t b / && sleep 0.3 && tmux -L "$SOCK" send-keys -t b -l divloop &&
	tmux -L "$SOCK" send-keys -t b Enter
for round in 1 2 3; do
	span "functions view ($round)"
	tmux -L "$SOCK" send-keys -t b a
	sleep 1
	tmux -L "$SOCK" capture-pane -p -t b | grep -q 'Annotate divloop' ||
		{ echo "annotate-cpu: the annotate screen did not open" >&2; tmux -L "$SOCK" capture-pane -p -t b >&2; exit 1; }
	span "annotate divloop ($round)"
	tmux -L "$SOCK" send-keys -t b Escape
	sleep 1
done
