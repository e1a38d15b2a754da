#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# report-batch.sh — kptop's own CPU per 1000 samples in batch mode
# (collector thread + pump + model), system-wide, at 999 and 4999 Hz per
# CPU, with a CPU-bound loop on every CPU. `make bench`; needs root.
# Two figures per frequency: the whole run (start-up included: BPF load,
# /proc snapshot, first symbol loads, the report) and the steady state
# (kptop's CPU between 2 s after the start and the end of sampling, over
# the samples due in that time: Hz x CPUs x seconds).
# Usage: bench/report-batch.sh [SECONDS]   (steady-state seconds, default 4)
set -eu
secs=${1:-4}
top_builddir=${top_builddir:-$(pwd)}
kptop=${KPTOP:-$top_builddir/kptop}
[ -x "$kptop" ] || { echo "report-batch: build kptop first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "report-batch: needs root" >&2; exit 1; }
T=$(mktemp -d)
pids=
trap 'kill $pids 2>/dev/null; rm -rf "$T"' EXIT
ncpu=$(nproc)
for i in $(seq "$ncpu"); do
	sh -c 'while :; do :; done' & pids="$pids $!"
done
clk=$(getconf CLK_TCK)
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
now() { awk '{ print $1 }' /proc/uptime; }
printf '%6s %9s %6s %12s %12s %16s\n' Hz taken drops run_cpu_ms run_ms/1000 steady_ms/1000
for hz in 999 4999; do
	"$kptop" --batch -F "$hz" -d $((secs + 2)) --format text -o "$T/r" &
	k=$!
	sleep 2
	c1=$(cpu_of $k); t1=$(now)
	sleep "$secs"
	c2=$(cpu_of $k); t2=$(now)
	cpu=$c2
	while c=$(cpu_of $k); do cpu=$c; sleep 0.1; done
	wait $k
	taken=$(sed -n 's/^collector: taken \([0-9]*\),.*/\1/p' "$T/r")
	drops=$(sed -n 's/^drops: //p' "$T/r" | tr -cd '0-9 ' | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }')
	awk -v hz="$hz" -v n="$ncpu" -v t="$taken" -v d="$drops" -v c="$cpu" -v clk="$clk" \
	    -v c1="$c1" -v c2="$c2" -v t1="$t1" -v t2="$t2" 'BEGIN {
		ms = c * 1000 / clk;
		st = (c2 - c1) * 1000 / clk;
		due = hz * n * (t2 - t1);
		printf "%6d %9d %6d %12.0f %12.3f %16.3f\n", hz, t, d, ms,
			t ? ms * 1000 / t : 0, due ? st * 1000 / due : 0 }'
done
