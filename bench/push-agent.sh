#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# push-agent.sh — kptop as a fleet agent: its own CPU and memory while it
# samples the whole machine and pushes every 15 s to a local receiver
# (tests/push-receiver.py, the stand-in for Pyroscope), at 19, 99 and
# 999 Hz, with the 2-CPU busy workload (one split-fp per CPU) running.
#   bench/push-agent.sh [MINUTES (10)] [KPTOP (./kptop)] [FREQS ("19 99 999")]
# Run as root from the build directory after `make check` built the
# workload (never run by `make check`). Extra kptop options in
# $KPTOP_OPTS (e.g. --cgroup /sys/fs/cgroup/...). For each frequency it
# prints: kptop's CPU time over the window after the first 20 s, in % of
# one CPU (utime + stime of the whole process, /proc/PID/stat; the BPF
# program's time in the sampling interrupt is charged to the interrupted
# task, as perf's own is); its RSS (VmRSS, read every 5 s) at the end and
# at most; the profiles the receiver took; and the load average, since on
# a shared machine the figures are only as quiet as it is.
set -eu
MIN=${1:-10}
KPTOP=${2:-${KPTOP:-./kptop}}
FREQS=${3:-19 99 999}
here=$(cd "$(dirname "$0")" && pwd)
src=${top_srcdir:-$here/..}
SPLIT=${SPLIT:-tests/workload/split-fp}
PY=/usr/bin/python3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kptop-push.XXXXXX")
PIDS=""

[ "$(id -u)" = 0 ] || { echo "push-agent: run as root" >&2; exit 77; }
[ -x "$PY" ] || { echo "push-agent: needs /usr/bin/python3" >&2; exit 77; }
[ -x "$SPLIT" ] || { echo "push-agent: no workload $SPLIT (make check builds it)" >&2; exit 77; }
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
hz=$(getconf CLK_TCK)
ncpu=$(nproc)

printf '%5s %6s %9s %8s %8s %9s  %s\n' Hz min cpu_%1cpu rss_MB max_MB profiles load
for F in $FREQS; do
	rm -rf "$TMP/rx" "$TMP/spool"
	mkdir -p "$TMP/rx"
	"$PY" "$src/tests/push-receiver.py" "$TMP/rx" 2>"$TMP/rx.err" &
	RX=$!
	PIDS="$PIDS $RX"
	while [ ! -s "$TMP/rx/port" ]; do sleep 0.1; done
	W=""
	for _ in $(seq "$ncpu"); do
		"$SPLIT" 100000 --quiet >/dev/null 2>&1 &
		W="$W $!"
	done
	PIDS="$PIDS $W"
	# shellcheck disable=SC2086
	"$KPTOP" --batch -n 0 -F "$F" --push "pyroscope://127.0.0.1:$(cat "$TMP/rx/port")" \
		--push-spool "$TMP/spool" ${KPTOP_OPTS:-} 2>"$TMP/kptop.err" &
	K=$!
	PIDS="$PIDS $K"
	sleep 20
	c0=$(ticks "$K")
	t0=$(date +%s.%N)
	max=0
	end=$(( $(date +%s) + MIN * 60 ))
	while [ "$(date +%s)" -lt "$end" ]; do
		sleep 5
		kill -0 "$K" 2>/dev/null || { echo "push-agent: kptop died: $(cat "$TMP/kptop.err")" >&2; exit 1; }
		r=$(rss_kb "$K")
		[ "$r" -gt "$max" ] && max=$r
	done
	c1=$(ticks "$K")
	t1=$(date +%s.%N)
	r=$(rss_kb "$K")
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	kill -INT "$K"
	wait "$K" 2>/dev/null || true
	# shellcheck disable=SC2086
	kill $W "$RX" 2>/dev/null || true
	wait 2>/dev/null || true
	PIDS=""
	n=$(wc -l <"$TMP/rx/log" 2>/dev/null || echo 0)
	awk -v F="$F" -v m="$MIN" -v c="$((c1 - c0))" -v hz="$hz" -v a="$t0" -v b="$t1" \
		-v r="$r" -v mx="$max" -v n="$n" -v load="$load" 'BEGIN {
		printf "%5d %6d %9.3f %8.1f %8.1f %9d  %s\n", F, m,
			100 * c / hz / (b - a), r / 1024, mx / 1024, n, load }'
	[ ! -s "$TMP/rx/invalid" ] || echo "push-agent: the receiver refused: $(head -3 "$TMP/rx/invalid")" >&2
done
