#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# jit-bench.sh — kptop's own CPU per 1000 samples on a Node workload with
# --perf-basic-prof (a hot JS function under two JS callers, one process
# per CPU) against perf record -g + perf report on the same workload for
# the same time (`make bench', from the build directory, as root).
# Prints CPU seconds, samples and CPU per 1000 samples of each, and the
# chains whole (outer;mid;hot) in kptop's folded output.
# Usage: jit-bench.sh [SECONDS]
set -u
secs=${1:-5}
[ "$(id -u)" = 0 ] || { echo "(not root: no measurement)"; exit 0; }
NODE=$(command -v node || command -v nodejs) || { echo "(no node)"; exit 0; }
command -v perf >/dev/null || { echo "(no perf: kptop alone)"; }
[ -x ./kptop ] || { echo "(build ./kptop first)"; exit 0; }
tmp=$(mktemp -d)
pids=
cleanup() { [ -n "$pids" ] && kill $pids 2>/dev/null; rm -rf "$tmp"; rm -f /tmp/perf-*.map.kpbench; }
trap cleanup EXIT
cat >"$tmp/hot.js" <<'EOF2'
function hot(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; }
function mid(n) { return hot(n) + 1; }
function outer(n) { return mid(n) + 1; }
const end = Date.now() + 1000 * Number(process.argv[2]);
let s = 0;
while (Date.now() < end) s += outer(200000);
console.log(s);
EOF2
busy() {
	pids=
	for i in 1 2; do
		"$NODE" --perf-basic-prof --interpreted-frames-native-stack --no-turbo-inlining "$tmp/hot.js" $((secs + 4)) >/dev/null &
		pids="$pids $!"
	done
	sleep 1.5
}
cpu_of() {
	/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$@" >"$tmp/out" 2>"$tmp/err"
	awk '/^[0-9.]+ [0-9.]+$/ { c = $1 + $2 } END { print c + 0 }' "$tmp/cpu"
}
stop() { kill $pids 2>/dev/null; wait 2>/dev/null; for p in $pids; do rm -f /tmp/perf-$p.map; done; pids=; }

echo "== 2 node processes (--perf-basic-prof), ${secs} s, 999 Hz; load: $(cut -d' ' -f1-3 /proc/loadavg) =="
busy
P=$(echo $pids | tr ' ' ,)
k=$(cpu_of ./kptop --batch --format folded -F 999 -d "$secs" -p "$P" -o "$tmp/k.folded")
kn=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/k.folded")
whole=$(awk '/hot_\[j\]/ { h += $NF; if ($0 ~ /outer_\[j\];mid_\[j\];hot_\[j\]/) w += $NF } END { printf "%d of %d", w, h }' "$tmp/k.folded")
stop
echo "kptop --batch (auto): cpu ${k}s, $kn samples, $(awk -v c="$k" -v n="$kn" 'BEGIN { printf "%.3f", n ? 1000 * c / n : 0 }') s per 1000 samples; hot's chain whole in $whole"

if command -v perf >/dev/null; then
	busy
	P=$(echo $pids | tr ' ' ,)
	r=$(cpu_of perf record -g -F 999 -p "$P" -o "$tmp/perf.data" -- sleep "$secs")
	rep=$(cpu_of perf report -i "$tmp/perf.data" --stdio --no-children)
	pn=$(perf script -i "$tmp/perf.data" -F pid 2>/dev/null | grep -c .)	# not timed
	stop
	echo "perf record -g + perf report: cpu ${r}s + ${rep}s, $pn samples, $(awk -v c="$r" -v d="$rep" -v n="$pn" 'BEGIN { printf "%.3f", n ? 1000 * (c + d) / n : 0 }') s per 1000 samples"
fi
