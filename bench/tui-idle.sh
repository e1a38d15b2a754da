#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-idle.sh — kptop's own CPU while the live view idle-refreshes, next
# to top refreshing at the same rate, both in a detached 200x50 tmux pane.
#   bench/tui-idle.sh [KPTOP] [DELAY_S] [SECONDS] [WARMUP_S]
# Run as root on an idle machine. Prints the CPU of each in percent of one
# CPU over SECONDS (after WARMUP_S, default 3): kptop as a whole, its main thread
# (the view: pump, model, symbols, drawing) and top. When bench/tui-bench
# is built next to KPTOP (make bench), also the view alone: the same screen
# fed 2000 synthetic samples/s with 2000 functions, no BPF, no symbols.
set -eu
KPTOP=${1:-${KPTOP:-./kptop}}
DELAY=${2:-1}
SECS=${3:-20}
WARM=${4:-3}
SOCK="kptop-bench-$$"

[ "$(id -u)" = 0 ] || { echo "tui-idle: run as root" >&2; exit 77; }
command -v tmux >/dev/null || { echo "tui-idle: needs tmux" >&2; exit 77; }
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true' EXIT

# cpu_ns PID [TID]: CPU time in ns of a process's threads (or of one),
# from schedstat: exact, where utime + stime come in 10 ms ticks.
cpu_ns() {
	if [ -n "${2:-}" ]; then
		cut -d' ' -f1 "/proc/$1/task/$2/schedstat"
	else
		cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { print s }'
	fi
}

# measure NAME COMMAND PROCESS-NAME
measure() {
	tmux -L "$SOCK" new-session -d -s "$1" -x 200 -y 50 "$2"
	sleep "$WARM"
	# the process of this pane (sh may have exec'd it, or be its parent)
	pp=$(tmux -L "$SOCK" display-message -p -t "$1" '#{pane_pid}')
	if [ "$(cat /proc/"$pp"/comm)" = "$3" ]; then pid=$pp
	else pid=$(pgrep -P "$pp" -x "$3") || { echo "tui-idle: $3 did not start" >&2; exit 1; }
	fi
	a=$(cpu_ns "$pid"); am=$(cpu_ns "$pid" "$pid")
	sleep "$SECS"
	b=$(cpu_ns "$pid"); bm=$(cpu_ns "$pid" "$pid")
	tmux -L "$SOCK" kill-session -t "$1"
	awk -v n="$1" -v a="$a" -v b="$b" -v am="$am" -v bm="$bm" -v s="$SECS" \
	    'BEGIN { printf "%-6s CPU %5.3f%% (main thread %5.3f%%) over %ds\n",
		     n, (b - a) / 1e7 / s, (bm - am) / 1e7 / s, s }'
}

# kptop's first minute costs more than the rest: its symbols load, its
# spool of the last 60 s fills. A WARMUP_S of 70 or more measures the
# steady state.
echo "refresh every ${DELAY}s, warm-up ${WARM}s, $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure kptop "$KPTOP -d $DELAY" kptop
measure top "top -d $DELAY" top
VIEW="$(dirname "$KPTOP")/bench/tui-bench"
if [ -x "$VIEW" ]; then
	measure view "$VIEW --ui -n 2000 -d $DELAY" tui-bench
fi
