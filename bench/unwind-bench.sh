#!/bin/sh
# unwind-bench.sh — the DWARF unwinder's cost (run by `make bench'):
# 1. the unwinder alone over the recorded snapshots (bench/unwind-bench);
# 2. when kptop can sample (root, BPF) and perf is installed: 2 busy CPUs
#    (tests/workload/split-nofp) profiled in dwarf mode by kptop, then by
#    `perf record --call-graph dwarf' + `perf report' for the same time;
#    CPU seconds of each per unwound sample. Short runs (SECONDS, default 5).
# Usage: unwind-bench.sh [SECONDS]   (from the build directory)
set -u
top_srcdir=${top_srcdir:-$(dirname "$0")/..}
secs=${1:-5}
echo "== unwinder alone, recorded snapshots =="
./bench/unwind-bench "$top_srcdir" 20000 || exit 1

[ "$(id -u)" = 0 ] || { echo "(not root: skipping the end-to-end comparison)"; exit 0; }
command -v perf >/dev/null || { echo "(no perf: skipping the comparison)"; exit 0; }
wl=./tests/workload/split-nofp
[ -x "$wl" ] || { echo "(build $wl first: make check)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu_of CMD...: user+sys CPU seconds of CMD and its children, into $tmp/cpu
cpu_of() {
	/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$@" >"$tmp/out" 2>"$tmp/err"
	awk '{ print $1 + $2 }' "$tmp/cpu"
}

echo "== 2 busy CPUs (split-nofp), ${secs}s, 999 Hz, dwarf mode =="
$wl "$((secs + 2))" --quiet & w1=$!
$wl "$((secs + 2))" --quiet & w2=$!
sleep 0.5
if [ -x ./kptop ] && ./kptop --help 2>&1 | grep -q -- '--unwind'; then
	k=$(cpu_of ./kptop --batch --unwind dwarf -F 999 -d "$secs" --format folded -o "$tmp/k.folded")
	ks=$(awk '{ s += $NF } END { print s + 0 }' "$tmp/k.folded" 2>/dev/null)
	echo "kptop: cpu ${k}s samples $ks"
	grep -i -E "drop|lost" "$tmp/err" | head -5
else
	echo "(kptop has no --unwind yet)"
fi
p=$(cpu_of perf record -q -F 999 -a --call-graph dwarf,8192 -o "$tmp/perf.data" -- sleep "$secs")
pr=$(cpu_of perf report -i "$tmp/perf.data" --stdio -g folded,0,caller,count --no-children)
ps=$(perf report -i "$tmp/perf.data" --stdio -F sample 2>/dev/null | awk '/^ *[0-9]+ *$/ { s += $1 } END { print s + 0 }')
echo "perf: record cpu ${p}s + report cpu ${pr}s, samples $ps"
wait $w1 $w2 2>/dev/null
