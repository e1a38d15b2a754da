#!/bin/sh
# unwind-bench.sh — the DWARF unwinder's cost (`make bench', from the build
# directory):
# 1. the unwinder alone over the recorded snapshots (bench/unwind-bench);
# 2. as root with BPF and perf: two busy split-nofp processes (2 CPUs) at
#    999 Hz in dwarf mode for SECONDS (default 5), profiled by kptop's
#    pieces (tests/unwind-drive: collector + unwinder + symbols, folded
#    output; kptop --batch itself once it samples), then by
#    `perf record --call-graph dwarf,8192' + `perf report' on fresh
#    processes for the same time. Prints CPU seconds per unwound sample
#    of each and their ratio (goal: kptop <= 0.5 x perf), and the drops.
# Usage: unwind-bench.sh [SECONDS]
set -u
top_srcdir=${top_srcdir:-$(dirname "$0")/..}
secs=${1:-5}
echo "== unwinder alone, recorded snapshots =="
./bench/unwind-bench "$top_srcdir" 20000 || exit 1

[ "$(id -u)" = 0 ] || { echo "(not root: no end-to-end comparison)"; exit 0; }
command -v perf >/dev/null || { echo "(no perf: no comparison)"; exit 0; }
wl=./tests/workload/split-nofp
for f in $wl ./tests/unwind-drive; do
	[ -x "$f" ] || { echo "(build $f first: make check)"; exit 0; }
done
tmp=$(mktemp -d)
pids=
cleanup() { [ -n "$pids" ] && kill $pids 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# cpu_of CMD...: user+sys CPU seconds of CMD (and its children)
cpu_of() {
	/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$@" >"$tmp/out" 2>"$tmp/err"
	awk '{ print $1 + $2 }' "$tmp/cpu"
}
busy() {
	$wl "$((secs + 3))" --quiet & a=$!
	$wl "$((secs + 3))" --quiet & b=$!
	pids="$a $b"
	sleep 0.5
}

echo "== 2 busy processes (split-nofp), ${secs} s, 999 Hz, dwarf, 8 KiB stacks =="
busy
k=$(cpu_of ./tests/unwind-drive -p "$a,$b" -m dwarf -F 999 -d "$secs" -o "$tmp/k.folded")
sed 's/^unwind-drive: /kptop pieces: /' "$tmp/err"
kn=$(sed -n 's/.* dwarf \([0-9]*\) .*/\1/p' "$tmp/err")
kill $pids 2>/dev/null; wait 2>/dev/null

busy
p=$(cpu_of perf record -q -F 999 --call-graph dwarf,8192 -p "$a,$b" -o "$tmp/perf.data" -- sleep "$secs")
kill $pids 2>/dev/null; wait 2>/dev/null; pids=
r=$(cpu_of perf report -i "$tmp/perf.data" --stdio --no-children)
pn=$(sed -n 's/^# Samples: \([0-9]*\) .*/\1/p' "$tmp/out" | head -1)
lost=$(sed -n 's/^# Total Lost Samples: \([0-9]*\)/\1/p' "$tmp/out" | head -1)
echo "perf: record cpu ${p}s + report cpu ${r}s for ${pn:-?} samples (lost ${lost:-?})"
awk -v k="$k" -v kn="${kn:-0}" -v p="$p" -v r="$r" -v pn="${pn:-0}" 'BEGIN {
	if (kn == 0 || pn == 0) { print "no samples: no comparison"; exit }
	ku = 1e6 * k / kn; pu = 1e6 * (p + r) / pn;
	printf "CPU per unwound sample: kptop pieces %.0f us, perf record+report %.0f us, ratio %.2f (goal <= 0.50)\n", ku, pu, ku / pu;
}'
