#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-offcpu-dwarf.sh — off-CPU user stacks unwound by DWARF (root +
# BPF), on the off-CPU workload built without frame pointers
# (tests/workload/offcpu-nofp): a frame-pointer walk loses the callers of
# libc's read and pthread_mutex_lock there; the whole user stack, copied
# when the thread returns to user space after the interval
# (src/collect/offcpu.bpf.c), gives them back:
#  - --unwind dwarf: the pipe reader's and the mutex waiter's chains run
#    from start_thread through their thread functions to libc, in at
#    least 90% of their off-CPU time; the text report says how many
#    records had their whole stack (at least 90%);
#  - the saved stream replays (-i) to the same stacks (DWARF again);
#  - --unwind auto: once the process is marked, the same chains;
#  - --unwind fp: none of them (the workload really has no frame pointers).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/offcpu-lib.sh"
W="$top_builddir/tests/workload/offcpu-nofp"
[ -x "$W" ] || fail "workload not built: $W"
start_offcpu 20
grep -q piper= "$T/tids" || fail "workload did not start: $(cat "$T/tids")"

PIPE=';start_thread;piper;wait_pipe;read;'
LOCK=';start_thread;locker;take_lock;pthread_mutex_lock;'
# share FILE THREAD LEAF CHAIN: of the thread's off-CPU time in LEAF (its
# libc function), the part under the whole CHAIN, in %
share() {
	awk -v t=";$2;" -v l=";$3;" -v c="$4" '/^#/ { next }
		index($0, t) && index($0, l) { all += $NF; if (index($0, c)) in_c += $NF }
		END { printf "%.1f\n", all ? 100 * in_c / all : 0 }' "$1"
}

"$KPTOP" --batch --off-cpu --unwind dwarf -p "$WPID" -d 2 --weight off \
	--format folded -w "$T/dw.kps" >"$T/dw" 2>"$T/err" || fail "--unwind dwarf: exit $?: $(cat "$T/err")"
for t in "piper read $PIPE" "locker pthread_mutex_lock $LOCK"; do
	set -- $t
	s=$(share "$T/dw" "$1" "$2" "$3")
	echo "--unwind dwarf: $1 in $2 under $3: $s%"
	awk -v s="$s" 'BEGIN { exit !(s >= 90) }' ||
		fail "--unwind dwarf: $1's chain in $s% of its time in $2: $(grep ";$2;" "$T/dw" | sort -t' ' -k2 -nr | head -3)"
done
"$KPTOP" -i "$T/dw.kps" --batch --weight off --format folded >"$T/replay" 2>"$T/err" ||
	fail "-i: exit $?: $(cat "$T/err")"
cmp -s "$T/dw" "$T/replay" || { diff "$T/dw" "$T/replay" | head -5 >&2; fail "the replay of the saved stream differs"; }

"$KPTOP" --batch --off-cpu --unwind dwarf -p "$WPID" -d 1 >"$T/text" 2>"$T/err" ||
	fail "text: exit $?: $(cat "$T/err")"
line=$(grep 'off-cpu: switches' "$T/text") || fail "text: no off-cpu line: $(head -20 "$T/text")"
echo "$line"
echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($i == "stacks") { got = $(i + 1); of = $(i + 3) } }
	END { exit !(of > 0 && got >= 0.9 * of) }' ||
	fail "text: too few whole user stacks: $line"

"$KPTOP" --batch --off-cpu --unwind auto -p "$WPID" -d 2 --weight off \
	--format folded >"$T/auto" 2>"$T/err" || fail "--unwind auto: exit $?: $(cat "$T/err")"
for c in "$PIPE" "$LOCK"; do
	grep -q "$c" "$T/auto" || fail "--unwind auto: no '$c': $(sort -t' ' -k2 -nr "$T/auto" | head -5)"
done
"$KPTOP" --batch --off-cpu --unwind fp -p "$WPID" -d 1 --weight off \
	--format folded >"$T/fp" 2>"$T/err" || fail "--unwind fp: exit $?: $(cat "$T/err")"
grep -q -e "$PIPE" -e "$LOCK" "$T/fp" && fail "--unwind fp: the workload has frame pointers after all: $(grep -e "$PIPE" "$T/fp" | head -2)"
exit 0
