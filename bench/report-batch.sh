#!/bin/sh
# report-batch.sh — kptop's own CPU time per 1000 samples in batch mode
# (collector + pump + model + report), system-wide, at 999 and 4999 Hz
# per CPU, with a CPU-bound workload on every CPU. `make bench`; needs
# root. Usage: bench/report-batch.sh [SECONDS]   (default 5)
set -eu
secs=${1:-5}
top_builddir=${top_builddir:-$(pwd)}
kptop=${KPTOP:-$top_builddir/kptop}
[ -x "$kptop" ] || { echo "report-batch: build kptop first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "report-batch: needs root" >&2; exit 1; }
T=$(mktemp -d)
pids=
trap 'kill $pids 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' & pids="$pids $!"
done
clk=$(getconf CLK_TCK)
printf '%6s %9s %9s %10s %14s\n' Hz samples drops cpu_ms ms/1000samples
for hz in 999 4999; do
	"$kptop" --batch -F "$hz" -d "$secs" --format text -o "$T/r" &
	k=$!
	sleep $((secs)); sleep 0.5
	# utime + stime of kptop (all threads) just before it exits.
	cpu=$(awk '{ print $14 + $15 }' "/proc/$k/stat" 2>/dev/null || echo 0)
	wait $k
	taken=$(sed -n 's/^collector: taken \([0-9]*\),.*/\1/p' "$T/r")
	drops=$(sed -n 's/^drops: //p' "$T/r" | tr -cd '0-9 ' | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }')
	awk -v hz="$hz" -v t="$taken" -v d="$drops" -v c="$cpu" -v clk="$clk" 'BEGIN {
		ms = c * 1000 / clk;
		printf "%6d %9d %9d %10.0f %14.3f\n", hz, t, d, ms, t ? ms * 1000 / t : 0 }'
done
