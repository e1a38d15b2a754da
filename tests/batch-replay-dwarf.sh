#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-replay-dwarf.sh — a run saved with -w in --unwind dwarf and in
# --unwind auto replays (-i) to the report the live run wrote, in every
# format, byte for byte but for what describes the run rather than the
# profile: the source and the time of the report, its duration (the wall
# time of the sampling live, the span of the samples in a replay) and the
# collector's counters (not in the stream). The workload, in a cgroup of
# its own (--cgroup), is the known split built without frame pointers run
# as processes that exit, exec and dlopen during the run: every one of
# them is gone when the file is replayed, and their stacks must still
# unwind as they did live. A clock loop puts samples in the [vdso] too,
# in code without a symbol, named by its start: the replay has neither
# the process nor its vdso and must name that code as the live run did.
. "$top_srcdir/tests/lib.sh"
require_bpf
NOFP="$top_builddir/tests/workload/split-nofp"
DLHOST="$top_builddir/tests/workload/dlopen-host"
DLLIB="$top_builddir/tests/workload/.libs/libkpspin.so"
[ -f "$DLLIB" ] || DLLIB="$top_builddir/tests/workload/libkpspin.so"
STRIP="$top_builddir/tests/pprof-strip"
CLOCK="$top_builddir/tests/workload/clockspin"
for f in "$NOFP" "$DLHOST" "$DLLIB" "$STRIP" "$CLOCK"; do
	[ -e "$f" ] || fail "not built: $f (make check builds it)"
done
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$cg" ] || skip "no cgroup2 mount: the workload cannot be told apart"
dir="$cg/kptop-replay-$$"
mkdir "$dir" || skip "cannot make a cgroup under $cg"
T=$(mktemp -d) || fail mktemp
CHURN=
cleanup() {
	[ -n "$CHURN" ] && kill "$CHURN" 2>/dev/null
	touch "$T/stop"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -s "$dir/cgroup.procs" ] || break
		sleep 0.2
	done
	rmdir "$dir" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# The churn: short processes (0.1 s), execs, a dlopen, one of 0.6 s (long
# enough for auto mode to mark it), over and over until $T/stop exists.
cat >"$T/churn.sh" <<EOF
echo \$\$ >"$dir/cgroup.procs" || exit 1
while [ ! -e "$T/stop" ]; do
	"$NOFP" 0.6 --quiet &
	for i in 1 2 3; do
		"$NOFP" 0.1 --quiet
		sh -c 'exec "$NOFP" 0.1 --quiet'
	done
	"$DLHOST" "$DLLIB" 0 0.1 >/dev/null
	"$CLOCK" 0.1
	wait
done
EOF
sh "$T/churn.sh" >"$T/churn.out" 2>&1 &
CHURN=$!
sleep 0.5
kill -0 "$CHURN" 2>/dev/null || fail "the workload did not start: $(cat "$T/churn.out")"

FORMATS="text tree folded pprof json"
# Every live run first, the replays once every process of them is gone.
for mode in dwarf auto; do
	for fmt in $FORMATS; do
		"$KPTOP" --batch -d 1.5 --cgroup "$dir" --unwind $mode --format $fmt \
			-o "$T/$mode.$fmt.live" -w "$T/$mode.$fmt.kps" 2>"$T/err" ||
			fail "$mode $fmt live run: exit $?: $(cat "$T/err")"
	done
done
touch "$T/stop"
wait "$CHURN"
CHURN=

# What describes the run, not the profile, left out of the comparison.
norm() {	# FORMAT FILE
	case $1 in
	text) sed -e '1s/ report at .*//' -e '2s/^duration [0-9.]* s,/duration,/' \
		-e '/^collector: /d' "$2" ;;
	tree) sed -e '1s/ samples, [0-9.]* s,/ samples,/' -e '/^# report /d' \
		-e '/^# collector: /d' "$2" ;;
	json) sed -e '/^  "source": /d' -e '/^  "time_real_ns": /d' -e '/^  "time_real_s": /d' \
		-e '/^  "duration_s": /d' -e '/^  "collector": /d' \
		-e '/^  "since_start": /d' "$2" ;;
	pprof) "$STRIP" "$2" ;;
	*) cat "$2" ;;
	esac
}

bad=0
for mode in dwarf auto; do
	for fmt in $FORMATS; do
		"$KPTOP" --batch -i "$T/$mode.$fmt.kps" --format $fmt \
			-o "$T/$mode.$fmt.replay" 2>"$T/err" ||
			fail "$mode $fmt replay: exit $?: $(cat "$T/err")"
		[ -s "$T/err" ] && fail "$mode $fmt replay warned: $(cat "$T/err")"
		norm $fmt "$T/$mode.$fmt.live" >"$T/a" || fail "$mode $fmt: cannot read the live report"
		norm $fmt "$T/$mode.$fmt.replay" >"$T/b" || fail "$mode $fmt: cannot read the replay"
		[ "$(wc -c <"$T/a")" -gt 200 ] || fail "$mode $fmt: live report too short: $(head -c 600 "$T/a")"
		if cmp -s "$T/a" "$T/b"; then
			echo "$mode $fmt: the replay is the live report"
			continue
		fi
		bad=1
		echo "$mode $fmt: the replay differs from the live report:"
		if [ $fmt = pprof ]; then
			cmp "$T/a" "$T/b"
		else
			diff "$T/a" "$T/b" | head -12 | cut -c1-300
		fi
	done
done
# The clock loop's unnamed vdso code was sampled, and named by its start:
# the code that reads a paravirtual clock (kvm-clock and the like) has no
# symbol of its own; the TSC's reader is inside __vdso_clock_gettime, so
# on a machine whose clocksource is tsc there is no such code to sample
# and the replay comparison above is what is checked of the vdso.
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
if [ "$cs" = tsc ]; then
	grep -q '\[vdso\]' "$T/dwarf.text.live" ||
		fail "no sample in the vdso: $(head -20 "$T/dwarf.text.live")"
	echo "clocksource tsc: the vdso has no unnamed code that runs; not checked"
else
	grep -q '\[vdso\] @0x' "$T/dwarf.text.live" ||
		fail "no sample in the vdso's code without a name (clocksource $cs): $(grep vdso "$T/dwarf.text.live")"
fi
# The unwinder did its work: the whole chain of the split, live.
grep -q 'main;run_rounds;do_round;level1;level2;level3;hot_a' "$T/dwarf.folded.live" ||
	fail "dwarf mode did not unwind the split: $(head -5 "$T/dwarf.folded.live")"
[ $bad = 0 ] || fail "a replay is not the live report"
echo ok
