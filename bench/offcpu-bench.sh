#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# offcpu-bench.sh — the cost of recording off-CPU time (kptop --off-cpu)
# beside the tools that do it today, on switch-heavy workloads.
#
# Workloads (tests/workload/pingpong):
#   pipe   two processes pass a byte back and forth through pipes, both
#          pinned to CPU 1 (taskset -c 1): every pass is a switch
#   mutex  8 threads contending on one mutex, each holding it for 5,000
#          increments (a few us: the waiters sleep on the futex), a
#          half the passes each
# Rows, run interleaved (row by row in each repetition):
#   none        no tracer
#   bpf-count   bpftrace counting sched_switch (the tracepoint's floor)
#   bpf-stacks  bpftrace keeping kernel and user stacks per switch
#   perf-record perf record -e sched:sched_switch -a -g
#   perf-record-dwarf  the same with --call-graph dwarf (8 KiB of user
#               stack per switch, unwound later by perf report: whole
#               stacks of code built without frame pointers, as kptop's
#               --unwind auto and dwarf)
#   perf-record-cpu  the same with -e cpu-clock/freq=999/ as well: what
#               kptop --off-cpu records (CPU samples and switches)
#   offcputime  offcputime-bpfcc (where it runs: it needs kprobes)
#   kptop       kptop --batch --off-cpu (--off-cpu-min default, folded)
#   kptop-fp    the same with --unwind fp (no program on the return to
#               user space, which --unwind auto and dwarf attach)
#   kptop-FN    kptop with -F N (kptop-F1: off-CPU records and almost
#               no CPU samples, what perf-record records)
#   kptop-min0  the same with --off-cpu-min 0 (a record per interval);
#               kptop-minN any other N (microseconds), for a sweep:
#               -p "none kptop-min0 kptop-min250 kptop-min1000 ..."
# Columns: the workload's wall time (median of the repetitions, min-max),
# slowdown over none, the switches in the window (/proc/stat ctxt), the
# tracer's own CPU per 1000 switches (schedstat of its threads over the
# workload's run) and, for kptop, off-CPU intervals lost (its text
# report's drops). Root only; not a test: the figures move with the load
# of the machine, which is printed first. At the default 40,000 passes
# (well under a second) kptop's column holds its once-per-program work
# (the new program's symbols and CFI, read as its first records come;
# perf leaves that to perf report); -n 400000 measures the steady state.
# Usage: bench/offcpu-bench.sh [-b BUILDDIR] [-n PASSES] [-r REPS] [-w "pipe mutex"] [-p "ROWS"]
set -u
builddir=${top_builddir:-.}
passes=40000
reps=3
works="pipe mutex"
rows="none bpf-count bpf-stacks perf-record offcputime kptop kptop-min0"
while getopts b:n:r:w:p: opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	n) passes=$OPTARG ;;
	r) reps=$OPTARG ;;
	w) works=$OPTARG ;;
	p) rows=$OPTARG ;;
	*) exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "offcpu-bench: needs root" >&2; exit 77; }
PP="$builddir/tests/workload/pingpong"
KPTOP="$builddir/kptop"
[ -x "$PP" ] && [ -x "$KPTOP" ] || { echo "offcpu-bench: build first (make bench-build kptop)" >&2; exit 1; }
T=$(mktemp -d /tmp/kptop-obench.XXXXXX)
trap 'rm -rf "$T"' EXIT

ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
# cpu_ns PID...: CPU of every thread of the processes and their children
cpu_ns() {
	local p all="$*"
	for p in $*; do all="$all $(pgrep -P "$p" 2>/dev/null)"; done
	for p in $all; do cat /proc/"$p"/task/*/schedstat 2>/dev/null; done |
		awk '{ s += $1 } END { printf "%d\n", s }'
}

start_row() {	# ROW: starts the tracer; sets tpid (empty: none)
	tpid=
	case $1 in
	none) return 0 ;;
	bpf-count) bpftrace -e 'tracepoint:sched:sched_switch { @ = count(); }' >"$T/out" 2>&1 & ;;
	bpf-stacks) bpftrace -e 'tracepoint:sched:sched_switch { @[kstack, ustack] = count(); }' >"$T/out" 2>&1 & ;;
	perf-record) perf record -q -e sched:sched_switch -a -g -o "$T/perf.data" >"$T/out" 2>&1 & ;;
	perf-record-dwarf) perf record -q -e sched:sched_switch -a --call-graph dwarf \
		-o "$T/perf.data" >"$T/out" 2>&1 & ;;
	perf-record-cpu) perf record -q -e cpu-clock/freq=999/ -e sched:sched_switch -a -g \
		-o "$T/perf.data" >"$T/out" 2>&1 & ;;
	offcputime) offcputime-bpfcc -f >"$T/out" 2>&1 & ;;
	kptop) "$KPTOP" --batch --off-cpu --weight off --format text >"$T/out" 2>&1 & ;;
	kptop-fp) "$KPTOP" --batch --off-cpu --unwind fp --weight off --format text >"$T/out" 2>&1 & ;;
	kptop-F[0-9]*) "$KPTOP" --batch --off-cpu -F "${1#kptop-F}" --weight off \
		--format text >"$T/out" 2>&1 & ;;
	kptop-min[0-9]*) "$KPTOP" --batch --off-cpu --off-cpu-min "${1#kptop-min}" --weight off \
		--format text >"$T/out" 2>&1 & ;;
	esac
	tpid=$!
	sleep 2	# attached (bpftrace and BCC compile first)
	kill -0 "$tpid" 2>/dev/null || { tpid=dead; return 1; }
}

stop_row() {
	[ -n "$tpid" ] && [ "$tpid" != dead ] || return 0
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
}

run_work() {	# WORK: prints its wall time
	case $1 in
	pipe) taskset -c 1 "$PP" pipe "$passes" ;;
	mutex) "$PP" mutex 8 $((passes / 2)) 5000 ;;
	esac | sed -n 's/^wall=//p'
}

echo "offcpu-bench: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $passes passes, $reps reps"
for w in $works; do
	for rep in $(seq "$reps"); do
		for row in $rows; do
			if ! start_row "$row"; then
				echo "$w $row - - - - -" >>"$T/res"
				continue
			fi
			c0=$(ctxt)
			u0=$( [ -n "$tpid" ] && cpu_ns "$tpid" || echo 0)
			wall=$(run_work "$w")
			u1=$( [ -n "$tpid" ] && cpu_ns "$tpid" || echo 0)
			c1=$(ctxt)
			stop_row
			lost=-
			case $row in kptop*) lost=$(sed -n 's/^drops:.* off-cpu \([0-9]*\).*/\1/p' "$T/out" | head -1) ;; esac
			echo "$w $row ${wall:-0} $((c1 - c0)) $((u1 - u0)) ${lost:--}" >>"$T/res"
		done
	done
done
awk -v rows="$rows" -v works="$works" '
function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int((n + 1) / 2)] }
$3 != "-" { k = $1 " " $2; n[k]++; w[k, n[k]] = $3; sw[k] += $4; cpu[k] += $5; lost[k] = $6 }
$3 == "-" { dead[$1 " " $2] = 1 }
END {
	nr = split(rows, R, " "); nw = split(works, Wk, " ");
	printf "%-6s %-12s %8s %15s %7s %10s %12s %6s\n", "work", "row", "wall s", "min-max", "slow", "switches", "cpu ms/1k sw", "lost";
	for (x = 1; x <= nw; x++) {
		base = 0;
		for (y = 1; y <= nr; y++) {
			k = Wk[x] " " R[y];
			if (!n[k]) { printf "%-6s %-12s %8s\n", Wk[x], R[y], dead[k] ? "does not run here" : "-"; continue }
			for (i = 1; i <= n[k]; i++) v[i] = w[k, i];
			m = med(v, n[k]); lo = v[1]; hi = v[n[k]];
			if (R[y] == "none") base = m;
			printf "%-6s %-12s %8.3f %7.3f-%-7.3f %6.2fx %10d %12.3f %6s\n", Wk[x], R[y], m, lo, hi,
				base ? m / base : 0, sw[k] / n[k], sw[k] ? cpu[k] / 1e6 / (sw[k] / 1000) : 0, lost[k];
		}
	}
}' "$T/res"
