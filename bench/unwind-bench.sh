#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unwind-bench.sh — the DWARF unwinder's cost (`make bench', from the build
# directory):
# 1. the unwinder alone over the recorded snapshots (bench/unwind-bench);
# 2. as root with BPF and perf: two busy split-nofp processes (2 CPUs) at
#    999 Hz in dwarf mode for SECONDS (default 5), profiled by kptop
#    --batch (text report), by kptop's pieces alone (tests/unwind-drive:
#    collector + unwinder + symbols, folded output), then by
#    `perf record --call-graph dwarf,8192' + `perf report' on fresh
#    processes for the same time. Prints CPU per unwound sample of each
#    and the ratios (goal: kptop <= 0.5 x perf), and the drops.
# Usage: unwind-bench.sh [SECONDS]
set -u
top_srcdir=$(cd "${top_srcdir:-$(dirname "$0")/..}" && pwd)	# absolute: the snapshots name files under it
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
d=$(cpu_of ./tests/unwind-drive -p "$a,$b" -m dwarf -F 999 -d "$secs" -o "$tmp/d.folded")
sed 's/^unwind-drive: /kptop pieces (tests\/unwind-drive): /' "$tmp/err"
dn=$(sed -n 's/.* dwarf \([0-9]*\) .*/\1/p' "$tmp/err")
kill $pids 2>/dev/null; wait 2>/dev/null

kn=0 k=0
if [ -x ./kptop ]; then
	busy
	k=$(cpu_of ./kptop --batch --format text --unwind dwarf -F 999 -d "$secs" -p "$a,$b")
	kill $pids 2>/dev/null; wait 2>/dev/null
	if grep -q "^samples" "$tmp/out"; then
		kn=$(sed -n 's/^samples \([0-9]*\):.*/\1/p' "$tmp/out")
		echo "kptop --batch: cpu ${k}s for $kn samples; $(grep '^drops' "$tmp/out")"
	else
		echo "(kptop --batch cannot sample: $(head -1 "$tmp/err"))"
		kn=0
	fi
fi

busy
p=$(cpu_of perf record -q -F 999 --call-graph dwarf,8192 -p "$a,$b" -o "$tmp/perf.data" -- sleep "$secs")
kill $pids 2>/dev/null; wait 2>/dev/null; pids=
r=$(cpu_of perf report -i "$tmp/perf.data" --stdio --no-children)
pn=$(perf report -i "$tmp/perf.data" --stdio -g none --sort comm -F sample,comm 2>/dev/null |
	awk '!/^#/ && NF == 2 { s += $1 } END { print s + 0 }')
lost=$(sed -n 's/^# Total Lost Samples: \([0-9]*\)/\1/p' "$tmp/out" | head -1)
echo "perf: record cpu ${p}s + report cpu ${r}s for ${pn:-?} samples (lost ${lost:-?})"
awk -v d="$d" -v dn="${dn:-0}" -v k="$k" -v kn="${kn:-0}" -v p="$p" -v r="$r" -v pn="${pn:-0}" 'BEGIN {
	if (pn == 0) { print "perf took no samples: no comparison"; exit }
	pu = 1e6 * (p + r) / pn;
	printf "CPU per unwound sample: perf record+report %.0f us\n", pu;
	if (kn > 0)
		printf "  kptop --batch %.0f us, ratio %.2f (goal <= 0.50)\n", 1e6 * k / kn, 1e6 * k / kn / pu;
	if (dn > 0)
		printf "  kptop pieces (collector + unwinder + symbols) %.0f us, ratio %.2f\n", 1e6 * d / dn, 1e6 * d / dn / pu;
}'
