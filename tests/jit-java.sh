#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# jit-java.sh — a real JVM (issue 23): a hot Java method reached through
# two Java callers (outer -> mid -> hot, HotSpot's inlining off, so that
# each keeps its frame), its perf map written by `jcmd PID
# Compiler.perfmap` as a user would. The JVM's names ("int
# Hot.hot(int)") are shown as the function Hot.hot(int) in the module
# [jit:java], and with -XX:+PreserveFramePointer (as perf asks of a JVM
# too) the chain outer;mid;hot is whole in at least 95% of hot's samples
# in fp and auto mode. Skipped (absent here) without a JDK: the setup
# script does not install one (Debian openjdk-17-jdk-headless).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/unwind-lib.sh"
require_bpf
for t in java javac jcmd; do
	command -v $t >/dev/null ||
		skip_absent "$t not installed (Debian openjdk-17-jdk-headless)"
done
T=$(mktemp -d) || fail mktemp
wl_pid=
trap 'kill $wl_pid 2>/dev/null; wait $wl_pid 2>/dev/null; rm -rf "$T"; rm -f /tmp/perf-$wl_pid.map' EXIT

cat >"$T/Hot.java" <<'EOF2'
public class Hot {
	static int hot(int n) { int x = 0; for (int i = 0; i < n; i++) x = x * 31 + i; return x; }
	static int mid(int n) { return hot(n) + 1; }
	static int outer(int n) { return mid(n) + 1; }
	public static void main(String[] a) {
		long end = System.currentTimeMillis() + 1000L * Integer.parseInt(a[0]);
		long s = 0;
		System.out.println("ready " + ProcessHandle.current().pid());
		while (System.currentTimeMillis() < end)
			s += outer(200000);
		System.out.println("done " + s);
	}
}
EOF2
javac -d "$T" "$T/Hot.java" 2>"$T/javac.err" || fail "javac: $(cat "$T/javac.err")"
java -XX:+PreserveFramePointer -XX:-Inline -cp "$T" Hot 20 >"$T/java.out" 2>&1 &
wl_pid=$!
wait_ready "$T/java.out" "java" 100
sleep 2		# hot, mid and outer compiled
jcmd "$wl_pid" Compiler.perfmap >"$T/jcmd.out" 2>&1 ||
	fail "jcmd Compiler.perfmap: $(cat "$T/jcmd.out")"
grep -q ' int Hot\.hot(int)$' "/tmp/perf-$wl_pid.map" ||
	fail "the JVM's map does not name Hot.hot: $(head -3 "/tmp/perf-$wl_pid.map")"

"$KPTOP" --batch -d 1 -p "$wl_pid" --format text -o "$T/t" 2>"$T/t.err" ||
	fail "text report: $(cat "$T/t.err")"
grep -Eq ' Hot\.hot\(int\) +\[jit:java\]' "$T/t" ||
	fail "Hot.hot is not shown as [jit:java]: $(grep -i 'hot\|jit' "$T/t" | head -5)"
for mode in fp auto; do
	run_profiler "$T/f.$mode" "$mode" "$wl_pid" 3
	set -- $(chain_counts "$T/f.$mode" Hot.hot Hot.mid Hot.outer)
	echo "$mode: Hot.hot samples $1, outer;mid;hot whole in $2"
	[ "$1" -ge 1000 ] || fail "$mode: Hot.hot named in too few samples ($1)"
	[ $(($2 * 100)) -ge $(($1 * 95)) ] ||
		{ grep 'Hot.hot' "$T/f.$mode" | head -5; fail "$mode: whole chains in $2 of $1 samples (< 95%)"; }
done
exit 0
