#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# collect-bench.sh — cost of kptop's collector against perf, side by side.
#
# Runs the split workload on every CPU (one process per CPU, fixed rounds)
# with no profiler, with kptop's collector (tests/collect-probe, and
# `kptop --batch --format folded` when built), with `perf record -a -g` and
# with `perf top -g`, at each frequency, and prints one table:
#   slow%   workload wall time over the no-profiler baseline, minus 1
#   us/smp  workload time lost per sample on its CPU: (wall-base)/(F*wall)
#   ms/1k   the profiler's own CPU (all threads, ns from schedstat) per
#           1000 nominal samples (F x CPUs x window)
#   kept%   workload samples delivered / (F x workload CPU-seconds)
#   drops   samples the profiler reports as lost
# Root only. Not a test: numbers move with machine load. Usage:
#   bench/collect-bench.sh [-b BUILDDIR] [-f "99 999 4999"] [-r ROUNDS] [-p "probe kptop perf-record perf-top"]
set -u
builddir=${top_builddir:-.}
freqs="99 999 4999"
rounds=1500
peers="probe kptop perf-record perf-top"
while getopts b:f:r:p: opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	f) freqs=$OPTARG ;;
	r) rounds=$OPTARG ;;
	p) peers=$OPTARG ;;
	*) exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "collect-bench: needs root" >&2; exit 77; }
ncpu=$(nproc)
T=$(mktemp -d /tmp/kptop-cbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
cp "$builddir/tests/workload/split-fp" "$T/kpbench-work"	# a comm of its own
probe="$builddir/tests/collect-probe"
kptop="$builddir/kptop"

now_ns() { date +%s%N; }
# cpu_ns PID: CPU time of every thread of PID, ns (schedstat).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'; }

# run_workload: one process per CPU; prints the slowest wall and the sum of CPU seconds.
run_workload() {
	local i pids=""
	for i in $(seq "$ncpu"); do
		"$T/kpbench-work" --rounds "$rounds" >"$T/w$i" &
		pids="$pids $!"
	done
	wait $pids
	cat "$T"/w* | sed 's/.*wall=\([0-9.]*\) cpu=\([0-9.]*\).*/\1 \2/' |
		awk '{ if ($1 > w) w = $1; c += $2 } END { printf "%.4f %.4f\n", w, c }'
}

start_peer() {	# NAME F: starts it in the background, sets ppid
	case $1 in
	probe) "$probe" -Q -C kpbench-work -F "$2" -d 0 >"$T/out" 2>"$T/err" & ;;
	kptop) "$kptop" --batch -F "$2" --format folded >"$T/out" 2>"$T/err" & ;;
	perf-record) perf record -q -F "$2" -a -g -o "$T/perf.data" >"$T/out" 2>"$T/err" & ;;
	perf-top) perf top --stdio -F "$2" -g >"$T/out" 2>"$T/err" </dev/null & ;;
	esac
	ppid=$!
	sleep 1.5	# startup (snapshot, BPF load, perf top's symbol load)
}

# kept_drops NAME: workload samples and drops from the profiler's output.
kept_drops() {
	case $1 in
	probe) echo "$(sed -n 's/^COMM_SAMPLES //p' "$T/out") $(grep '^STATS ' "$T/out" |
		sed 's/.*bpf_full=\([0-9]*\) cpu_buffer=\([0-9]*\) queue_full=\([0-9]*\).*/\1 \2 \3/' |
		awk '{ print $1 + $2 + $3 }')" ;;
	kptop) echo "$(awk '/^kpbench-work/ { s += $NF } END { print s + 0 }' "$T/out") -" ;;
	perf-record) echo "$(perf script -i "$T/perf.data" -F comm 2>/dev/null | grep -c '^ *kpbench-work') $(
		perf report -i "$T/perf.data" --stats 2>/dev/null | awk '/LOST/ { s += $NF } END { print s + 0 }')" ;;
	*) echo "- -" ;;
	esac
}

base_wall() {
	local a b
	a=$(run_workload | cut -d' ' -f1)
	b=$(run_workload | cut -d' ' -f1)
	echo "$a $b" | awk '{ print ($1 < $2) ? $1 : $2 }'
}

echo "collect-bench: $ncpu CPUs, $rounds rounds per workload process, load $(cut -d' ' -f1-3 /proc/loadavg)"
base=$(base_wall)
printf "%-12s %5s %8s %7s %7s %7s %7s %7s\n" peer F wall_s slow% us/smp ms/1k kept% drops
printf "%-12s %5s %8s %7s %7s %7s %7s %7s\n" none - "$base" base - - - -
for F in $freqs; do
	for peer in $peers; do
		[ "$peer" = kptop ] && [ ! -x "$kptop" ] && continue
		start_peer "$peer" "$F"
		c0=$(cpu_ns "$ppid"); t0=$(now_ns)
		read -r wall wcpu < <(run_workload)
		c1=$(cpu_ns "$ppid"); t1=$(now_ns)
		kill -INT "$ppid"; wait "$ppid" 2>/dev/null
		read -r kept drops < <(kept_drops "$peer")
		awk -v p="$peer" -v F="$F" -v w="$wall" -v b="$base" -v wc="$wcpu" \
		    -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v n="$ncpu" -v k="$kept" -v d="$drops" 'BEGIN {
			nominal = F * n * t / 1e9;
			kp = (k == "-") ? "-" : sprintf("%.1f", 100 * k / (F * wc));
			printf "%-12s %5d %8.3f %+7.1f %7.1f %7.3f %7s %7s\n", p, F, w,
			       100 * (w / b - 1), 1e6 * (w - b) / (F * w), c / 1e6 / (nominal / 1000), kp, d }'
		rm -f "$T/perf.data" "$T/out"
	done
done
