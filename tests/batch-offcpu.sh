#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-offcpu.sh — --off-cpu in batch (root + BPF), on the off-CPU
# workload (tests/workload/offcpu.c: a spinning thread, one blocked on a
# pipe fed every 10 ms, one in nanosleep, one on a contended mutex):
#  - --weight off: each waiting thread's blocking chain is there, from its
#    thread function through the syscall to where the kernel blocked it,
#    counted in microseconds, then the state it blocked in and the thread
#    that woke it (the pipe reader: sleeping, woken by the feeder; the
#    mutex waiter: woken by the holder; the sleeper: by the timer's
#    interrupt; the spinner: preempted);
#  - --weight wall: per thread, CPU + off-CPU is within 3% of the window;
#  - the pipe reader's share of the window off its CPU is within 3 points
#    of what /proc/TID/schedstat says over the same run;
#  - the saved stream reads back (-i) with the same off-CPU stacks;
#  - -n 3: each report has its threads' own wall time (within 5%).
. "$top_srcdir/tests/lib.sh"
command -v node >/dev/null || skip "needs node (to read the speedscope file)"
. "$top_srcdir/tests/offcpu-lib.sh"
start_offcpu 20
PIPER=$(sed -n 's/.* piper=\([0-9]*\).*/\1/p' "$T/tids")
[ -n "$PIPER" ] || fail "workload did not start: $(cat "$T/tids")"

# --weight off, folded: the blocking chains
"$KPTOP" --batch --off-cpu --off-cpu-min 0 -p "$WPID" -d 2 --weight off \
	--format folded -w "$T/off.kps" >"$T/off" 2>"$T/err" || fail "--weight off: exit $?: $(cat "$T/err")"
head -1 "$T/off" | grep -q '^# kptop: weight off; counts are microseconds$' ||
	fail "folded: no weight line first: $(head -1 "$T/off")"
# (the kernel stack of a blocked thread ends where it called the
# scheduler: the kernel's walk of a task not running skips its functions)
for chain in ';piper;.*read.*pipe_read_\[k\];' ';sleeper;.*nanosleep.*hrtimer_nanosleep_\[k\];' \
	     ';locker;.*pthread_mutex_lock.*futex_wait_\[k\]'; do
	grep -q "$chain" "$T/off" || fail "--weight off: no stack like '$chain': $(sort -t' ' -k2 -nr "$T/off" | head -5)"
done
# the state and waker frames after the kernel's (src/model/offcpu.c)
for chain in ";piper;.*pipe_read_\\[k\\];\\[S sleeping\\];\\[woken by feeder $WPID\\] " \
	     ";locker;.*futex_wait_\\[k\\];.*\\[S sleeping\\];\\[woken by holder $WPID\\] " \
	     ';sleeper;.*hrtimer_nanosleep_\[k\];\[S sleeping\];\[woken by interrupt\] ' ';spinner;.*;\[R preempted\] '; do
	grep -q "$chain" "$T/off" || fail "--weight off: no stack like '$chain': $(grep -e piper -e locker -e spinner "$T/off" | sort -t" " -k2 -nr | head -5)"
done
awk '/^#/ { next } { t += $NF } END { printf "off-CPU total %.2f s in 2 s\n", t / 1e6; exit !(t > 4e6) }' "$T/off" ||
	fail "--weight off: too little off-CPU time: $(tail -3 "$T/off")"
"$KPTOP" -i "$T/off.kps" --batch --weight off --format folded >"$T/replay" 2>"$T/err" ||
	fail "-i --weight off: exit $?: $(cat "$T/err")"
cmp -s "$T/off" "$T/replay" || { diff "$T/off" "$T/replay" | head -5 >&2; fail "the replay of the saved stream differs"; }

# --weight wall: each thread's profile (speedscope, ns) adds up to the window
"$KPTOP" --batch --off-cpu --off-cpu-min 0 -p "$WPID" -d 3 --weight wall \
	--format speedscope -o "$T/wall.json" 2>"$T/err" || fail "--weight wall: exit $?: $(cat "$T/err")"
node -e '
const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const d = parseFloat(/, ([0-9.]+) s,/.exec(p.name)[1]);
let bad = 0, seen = 0;
for (const pr of p.profiles) {
	const m = / thread [0-9]+ (spinner|piper|sleeper|locker)$/.exec(pr.name);
	if (!m) continue;
	seen++;
	const s = pr.endValue / 1e9, off = Math.abs(s - d) / d;
	console.log(`${m[1]}: ${s.toFixed(3)} s of ${d.toFixed(3)} s (${(100 * off).toFixed(1)}% off)`);
	if (off > 0.03) bad++;
}
process.exit(bad || seen < 4 ? 1 : 0);' "$T/wall.json" >"$T/wall.out" 2>&1 ||
	fail "--weight wall: a thread is not its window: $(cat "$T/wall.out")"
cat "$T/wall.out"

# --weight off: the pipe reader's share of the window off its CPU against
# schedstat's (its time on the CPU, field 1) over the same kptop run
# (start-up included: shares, not times, are compared)
set -- $(cat "/proc/$WPID/task/$PIPER/schedstat")
on0=$1
t0=$(date +%s%N)
"$KPTOP" --batch --off-cpu --off-cpu-min 0 -p "$WPID" -d 3 --weight off \
	--format speedscope -o "$T/off.json" 2>"$T/err" || fail "--weight off speedscope: exit $?: $(cat "$T/err")"
t1=$(date +%s%N)
set -- $(cat "/proc/$WPID/task/$PIPER/schedstat")
on1=$1
node -e '
const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const d = parseFloat(/, ([0-9.]+) s,/.exec(p.name)[1]);
const pr = p.profiles.find(x => / piper$/.test(x.name));
const kshare = pr.endValue / 1e9 / d;
const wall = (Number(process.argv[3]) - Number(process.argv[2])) / 1e9;
const sshare = 1 - (Number(process.argv[5]) - Number(process.argv[4])) / 1e9 / wall;
console.log(`piper off the CPU: kptop ${(100 * kshare).toFixed(2)}% of ${d} s, schedstat ${(100 * sshare).toFixed(2)}% of ${wall.toFixed(2)} s`);
process.exit(Math.abs(kshare - sshare) > 0.03 ? 1 : 0);' "$T/off.json" "$t0" "$t1" "$on0" "$on1" >"$T/pipe.out" 2>&1 ||
	fail "pipe reader: $(cat "$T/pipe.out")"
cat "$T/pipe.out"

# -n 3: every report has its own off-CPU time. An interval counts in the
# report during which it ended (it is recorded when its thread runs
# again), so a block across an edge goes wholly to the next report: with
# this workload's blocks of at most 31 ms, each thread's wall in reports
# 2 and 3 is within 5% of the 1 s. In report 1 a block already under way
# when recording started is not counted (its start was not seen): 10%.
"$KPTOP" --batch --off-cpu --off-cpu-min 0 -p "$WPID" -d 1 -n 3 --weight wall \
	--format speedscope -o "$T/int-%n.json" 2>"$T/err" || fail "-n 3 --weight wall: exit $?: $(cat "$T/err")"
for n in 1 2 3; do
	node -e '
const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const d = parseFloat(/, ([0-9.]+) s,/.exec(p.name)[1]);
const tol = process.argv[2] === "1" ? 0.10 : 0.05;
let bad = 0, seen = 0, out = [];
for (const pr of p.profiles) {
	const m = / thread [0-9]+ (spinner|piper|sleeper|locker|feeder|holder)$/.exec(pr.name);
	if (!m) continue;
	seen++;
	const s = pr.endValue / 1e9;
	out.push(`${m[1]} ${s.toFixed(3)}`);
	if (Math.abs(s - d) / d > tol) bad++;
}
console.log(`report ${process.argv[2]} (${d} s): ${out.join(", ")}`);
process.exit(bad || seen < 6 ? 1 : 0);' "$T/int-$n.json" "$n" >"$T/int.out" 2>&1 ||
		fail "-n 3: a thread's wall is not its report's window: $(cat "$T/int.out")"
	cat "$T/int.out"
done
