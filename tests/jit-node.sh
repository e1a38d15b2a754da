#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# jit-node.sh — a real JIT: node --perf-basic-prof running a hot JS
# function reached through two JS callers (outer -> mid -> hot; TurboFan's
# inlining off, so that each keeps its frame). Its frames are named from
# node's perf map (V8's "JS:*hot file:line:col" taken apart: the function
# hot, module [jit:node]) and, in auto and dwarf mode, the chain
# outer;mid;hot is whole in at least 95% of hot's samples: the frame
# pointers of the JIT code, then the CFI of node's own code.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/unwind-lib.sh"
require_bpf
NODE=$(command -v node || command -v nodejs) || skip "node (Debian nodejs) not installed"
T=$(mktemp -d) || fail mktemp
wl_pid=
trap 'kill $wl_pid 2>/dev/null; wait $wl_pid 2>/dev/null; rm -rf "$T"; rm -f /tmp/perf-$wl_pid.map' EXIT

cat >"$T/hot.js" <<'EOF'
function hot(n) {
	let x = 0;
	for (let i = 0; i < n; i++)
		x = (x * 31 + i) | 0;
	return x;
}
function mid(n) { return hot(n) + 1; }
function outer(n) { return mid(n) + 1; }
const end = Date.now() + 1000 * Number(process.argv[2]);
let s = 0;
console.log('ready ' + process.pid);
while (Date.now() < end)
	s += outer(200000);
console.log('done ' + s);
EOF

for mode in auto dwarf; do
	# from $T: --perf-basic-prof writes an isolate-*-v8.log where it runs
	(cd "$T" && exec "$NODE" --perf-basic-prof --interpreted-frames-native-stack \
		--no-turbo-inlining "$T/hot.js" 20) >"$T/node.out" 2>&1 &
	wl_pid=$!
	n=100
	until grep -q '^ready' "$T/node.out"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "node did not start: $(cat "$T/node.out")"
		sleep 0.1
	done
	sleep 1		# hot, mid and outer compiled
	run_profiler "$T/f" "$mode" "$wl_pid" 4
	if [ "$mode" = auto ]; then
		"$KPTOP" --batch -d 1 -p "$wl_pid" --format text -o "$T/t" 2>"$T/t.err" ||
			fail "text report: $(cat "$T/t.err")"
		grep -Eq ' hot +\[jit:node\]' "$T/t" ||
			fail "hot is not shown as [jit:node]: $(grep -i 'hot\|jit' "$T/t" | head -5)"
	fi
	kill $wl_pid 2>/dev/null
	wait $wl_pid 2>/dev/null
	rm -f "/tmp/perf-$wl_pid.map"
	set -- $(frames_of "$T/f" | awk '
		{
			at = 0;
			for (i = 2; i <= NF; i++) if ($i == "hot_") at = i;
			if (!at) next;
			h += $1;
			if (at >= 4 && $(at-1) == "mid_" && $(at-2) == "outer_") w += $1;
		}
		END { printf "%d %d\n", h, w }')
	echo "$mode: hot samples $1, outer;mid;hot whole in $2"
	[ "$1" -ge 300 ] || { head -5 "$T/f"; fail "$mode: hot not named in enough samples ($1)"; }
	[ $(($2 * 100)) -ge $(($1 * 95)) ] ||
		{ grep 'hot_' "$T/f" | head -8; fail "$mode: whole chains in $2 of $1 samples (< 95%)"; }
done
exit 0
