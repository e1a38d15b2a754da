#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# python-bench.sh — what Python frames cost (issue 24). Not a test:
# numbers move with the machine's load (given with each table).
#
#   bpf ns/run   the BPF program's time per run (kernel.bpf_stats_enabled,
#                bpftool's run_time_ns / run_cnt) while kptop -p samples a
#                native workload (tests/workload/split-fp) and a Python one
#                (bench/py-work.py under python3.11): each run of both is a
#                CPU of two, busy with the workload about half the time.
#   ms/1k        kptop's own CPU (schedstat, all threads) per 1000 samples
#                of the workload (its report's sample count).
#   slow%        the Python workload's wall time under the profiler over
#                its time alone, minus 1: kptop (every process sampled), and
#                `perf record -g` of python3.12 -X perf (its perf map
#                trampolines, the nearest peer here: py-spy is not in
#                Debian) when a python3.12 is found.
# -u fp: kptop --unwind fp, so that neither workload has its stack copied
# for DWARF and the BPF difference is the Python walk alone.
# Usage: bench/python-bench.sh [-b BUILDDIR] [-n ROUNDS] [-F HZ] [-u MODE]
set -u
builddir=${top_builddir:-.}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
rounds=400
freq=999
unwind=auto
while getopts b:n:F:u: opt; do
	case $opt in
	u) unwind=$OPTARG ;;
	b) builddir=$OPTARG ;;
	n) rounds=$OPTARG ;;
	F) freq=$OPTARG ;;
	*) exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "python-bench: needs root" >&2; exit 77; }
kptop="$builddir/kptop"
py=/usr/bin/python3.11
py312=$(ls /root/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | head -1)
work="$srcdir/bench/py-work.py"
T=$(mktemp -d /tmp/kptop-pybench.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled="$old_stats"; rm -rf "$T"' EXIT
sysctl -qw kernel.bpf_stats_enabled=1

cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'; }
prog_stats() {	# run_time_ns run_cnt of kp_sample
	bpftool prog show name kp_sample 2>/dev/null |
		sed -n 's/.*run_time_ns \([0-9]*\) run_cnt \([0-9]*\).*/\1 \2/p' | head -1
}

# one_bpf NAME CMD...: bpf ns/run and kptop ms/1k samples while CMD runs.
one_bpf() {
	local name=$1 wpid kpid s0 s1 c0 c1 n
	shift
	"$@" >/dev/null 2>&1 &
	wpid=$!
	"$kptop" --batch -F "$freq" -d 6 -p "$wpid" --unwind "$unwind" --format text \
		-o "$T/$name.txt" 2>"$T/$name.err" &
	kpid=$!
	sleep 2
	s0=$(prog_stats); c0=$(cpu_ns "$kpid")
	sleep 3
	s1=$(prog_stats); c1=$(cpu_ns "$kpid")
	wait "$kpid"
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	n=$(sed -n 's/^samples \([0-9]*\):.*/\1/p' "$T/$name.txt")
	echo "$s0 $s1 $c0 $c1 ${n:-0}" | awk -v name="$name" '{
		runs = $4 - $2; ns = $3 - $1;
		printf "%-8s bpf %7.0f ns/run (%d runs)   kptop %6.2f ms/1k samples (%d samples in 6 s)\n",
			name, runs ? ns / runs : 0, runs, $7 ? ($6 - $5) / 1e6 * 2 / $7 * 1000 : 0, $7 }'
}

# wall CMD...: the workload's wall seconds.
wall() { "$@" 2>/dev/null | sed -n 's/^wall=//p'; }

echo "python-bench: F=$freq Hz, --unwind $unwind, $(nproc) CPUs, load: $(uptime | sed 's/.*load average: //')"
one_bpf native "$builddir/tests/workload/split-fp" 30
one_bpf python "$py" "$work" 100000
base=$(wall "$py" "$work" "$rounds")
"$kptop" --batch -F "$freq" -d 600 --format text -o "$T/k.txt" 2>/dev/null &
kp=$!
sleep 2
under=$(wall "$py" "$work" "$rounds")
kill -INT "$kp"; wait "$kp"
echo "$base $under" | awk '{ printf "python3.11 alone %.2f s, under kptop %.2f s: slow %.1f%%\n", $1, $2, 100 * ($2 / $1 - 1) }'
if [ -n "$py312" ]; then
	base=$(wall "$py312" -X perf "$work" "$rounds")
	under=$(wall perf record -q -F "$freq" -g -o "$T/perf.data" -- "$py312" -X perf "$work" "$rounds")
	echo "$base $under" | awk '{ printf "python3.12 -X perf alone %.2f s, under perf record -g %.2f s: slow %.1f%%\n", $1, $2, 100 * ($2 / $1 - 1) }'
else
	echo "no python3.12: perf record -g of python3.12 -X perf not measured"
fi
echo "load after: $(uptime | sed 's/.*load average: //')"
