#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# jit-node.sh — a real JIT: node --perf-basic-prof running a hot JS
# function reached through two JS callers (outer -> mid -> hot; TurboFan's
# inlining off, so that each keeps its frame). Its frames are named from
# node's perf map (V8's "JS:*hot file:line:col" taken apart: the function
# hot, module [jit:node]) and, in auto and dwarf mode, the chain
# outer;mid;hot is whole in at least 95% of hot's samples: the frame
# pointers of the JIT code, then the CFI of node's own code. Then the
# same from node's jitdump (--perf-prof --perf-prof-unwinding-info:
# before each code load an unwinding info record, header-only for most
# code, the call frame information of optimized functions), which kptop
# reads instead of a perf map: named the same, chains as whole, and none
# of its records counted bad. V8 writes its jitdump through a stdio
# buffer, so a code load reaches the file only when 4 KiB more follow:
# the script compiles nothing new for its first 2.5 s (outer and mid's
# optimized code, compiled meanwhile, stays in the buffer while the
# profile starts), then ten small functions every 100 ms, as a live
# program keeps compiling; kptop names again the JIT frames it sampled
# before their entry was written.
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
let made = 0;
function churn() { for (let i = 0; i < 10; i++) new Function('return ' + made++)(); }
const end = Date.now() + 1000 * Number(process.argv[2]);
let s = 0, next = Date.now() + 2500;
console.log('ready ' + process.pid);
while (Date.now() < end) {
	s += outer(200000);
	if (Date.now() >= next) { churn(); next = Date.now() + 100; }
}
console.log('done ' + s);
EOF

for run in auto dwarf dump; do
	mode=$run prof=--perf-basic-prof
	[ "$run" = dump ] && mode=dwarf prof="--perf-prof --perf-prof-unwinding-info"
	# from $T: node writes an isolate-*-v8.log (and jit-PID.dump) where it runs
	(cd "$T" && exec "$NODE" $prof --interpreted-frames-native-stack \
		--no-turbo-inlining "$T/hot.js" 20) >"$T/node.out" 2>&1 &
	wl_pid=$!
	wait_ready "$T/node.out" "node" 100
	sleep 1		# hot, mid and outer compiled
	run_profiler "$T/f" "$mode" "$wl_pid" 4
	if [ "$run" != dwarf ]; then
		"$KPTOP" --batch -d 1 -p "$wl_pid" --format text -o "$T/t" 2>"$T/t.err" ||
			fail "text report: $(cat "$T/t.err")"
		grep -Eq ' hot +\[jit:node\]' "$T/t" ||
			fail "hot is not shown as [jit:node]: $(grep -i 'hot\|jit' "$T/t" | head -5)"
		grep -q '^jit maps: read [1-9][0-9]*, refused 0, bad-lines 0$' "$T/t" ||
			fail "$run: node's map or dump not read cleanly: $(grep '^jit maps' "$T/t")"
	fi
	kill $wl_pid 2>/dev/null
	wait $wl_pid 2>/dev/null
	rm -f "/tmp/perf-$wl_pid.map" "$T"/jit-*.dump
	set -- $(chain_counts "$T/f" hot_ mid_ outer_)
	echo "$run: hot samples $1, outer;mid;hot whole in $2"
	[ "$1" -ge 300 ] || { head -5 "$T/f"; fail "$run: hot not named in enough samples ($1)"; }
	[ $(($2 * 100)) -ge $(($1 * 95)) ] ||
		{ grep 'hot_' "$T/f" | head -8; fail "$run: whole chains in $2 of $1 samples (< 95%)"; }
done
exit 0
