#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-pprof.sh — `kptop --batch --format pprof` read back by
# `go tool pprof -top`: it parses, says cpu nanoseconds, and the flat
# shares of hot_a/hot_b/hot_c match the text report of the same run
# (made from the stream saved alongside with -w).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/batch-lib.sh"

go=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null) || skip "go (golang-go) is not installed: cannot run go tool pprof"
# CI has no home directory configuration: keep go's caches in the temp dir.
export HOME="$T/home" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=
mkdir -p "$HOME"
"$go" version >/dev/null 2>&1 || skip "go cannot be run here"

start_split 30	# killed at the end
"$KPTOP" --batch -F 4999 -d 2 -p "$SPID" --format pprof -o "$T/cpu.pb.gz" \
	-w "$T/run.kps" 2>"$T/err" || fail "pprof run: exit $?: $(cat "$T/err")"
[ "$(stat -c %a "$T/cpu.pb.gz")" = 600 ] || fail "pprof file mode $(stat -c %a "$T/cpu.pb.gz")"
"$go" tool pprof -top -nodecount=100000 -nodefraction=0 "$T/cpu.pb.gz" \
	>"$T/top" 2>"$T/top.err" || fail "go tool pprof failed: $(cat "$T/top.err")"
grep -q '^Type: cpu' "$T/top" || fail "pprof: no cpu sample type: $(head -8 "$T/top")"
grep -q 'Duration: ' "$T/top" || fail "pprof: no duration: $(head -8 "$T/top")"
"$KPTOP" -i "$T/run.kps" --batch >"$T/text" 2>"$T/err" || fail "replay: exit $?"

# go: "flat flat% sum% cum cum% name"; text: "Self% Total% Samples name".
awk '$6 ~ /^hot_[abc]$/ { sub(/%/, "", $2); print $6, $2 }' "$T/top" | sort >"$T/go"
awk '$4 ~ /^hot_[abc]$/ && $1 ~ /^[0-9.]+$/ { print $4, $1 }' "$T/text" | sort >"$T/kp"
[ "$(wc -l <"$T/go")" = 3 ] || fail "go tool pprof -top lacks the hot functions: $(head -20 "$T/top")"
join "$T/go" "$T/kp" | awk '{ d = $2 - $3; if (d < 0) d = -d;
	printf "%s: pprof %.2f%% text %.2f%%\n", $1, $2, $3; if (d > 0.1) bad = 1 }
	END { exit bad }' || fail "pprof and text reports disagree"
check_shares pprof "$T/go"

# -raw: the comments say the event and the drops; the workload (started
# before kptop, so its mappings came from /proc without build IDs) is
# mapping 1 with the build ID of its ELF note; the kernel's mapping has
# the build ID of /sys/kernel/notes; samples carry pid, tid, thread,
# comm and cgroup labels.
"$go" tool pprof -raw "$T/cpu.pb.gz" >"$T/raw" 2>"$T/raw.err" ||
	fail "go tool pprof -raw: $(cat "$T/raw.err")"
grep -q '^Comment: event: cpu-clock' "$T/raw" || fail "pprof: no event comment: $(grep Comment "$T/raw")"
grep -q '^Comment: drops: .*queue-full 0' "$T/raw" || fail "pprof: no drops comment"
grep -q "^Comment: kptop .* Hz per CPU" "$T/raw" || fail "pprof: no version comment"
sed -n '/^Mappings/,$p' "$T/raw" >"$T/maps"
sed -n 2p "$T/maps" | grep -Eq "^1: .*/split-fp [0-9a-f]{40} " ||
	fail "pprof: the workload is not the first mapping with a build ID: $(head -4 "$T/maps")"
want=$(readelf -n "$SPLIT" 2>/dev/null | sed -n 's/.*Build ID: //p')
[ -z "$want" ] || grep -q "/split-fp $want " "$T/maps" || fail "pprof: split-fp build ID is not $want"
# The kernel's: where /sys/kernel/notes starts with the GNU build-ID note
# (namesz 4, descsz 20, type 3, "GNU"), its 20 bytes follow.
hdr=$(od -An -tx1 -N16 /sys/kernel/notes 2>/dev/null | tr -d ' \n')
if [ "$hdr" = 040000001400000003000000474e5500 ]; then
	kid=$(od -An -tx1 -j16 -N20 /sys/kernel/notes | tr -d ' \n')
	grep -q "\[kernel.kallsyms\] $kid " "$T/maps" ||
		fail "pprof: the kernel mapping lacks build ID $kid: $(grep kallsyms "$T/maps")"
fi
awk '/^Mappings/ { m = 1; next } m && NF && $3 !~ /^\[|memfd|\(deleted\)/ && !($4 ~ /^[0-9a-f]+$/ && length($4) == 40) { print; bad = 1 }
	END { exit bad }' "$T/raw" >"$T/nobid" || fail "pprof: mappings without a build ID: $(head -3 "$T/nobid")"
"$go" tool pprof -tags "$T/cpu.pb.gz" >"$T/tags" 2>&1 || fail "go tool pprof -tags: $(cat "$T/tags")"
for l in pid tid thread comm cgroup cpu; do
	grep -q "^ *$l: Total" "$T/tags" || fail "pprof: no $l label: $(grep Total "$T/tags")"
done
grep -q "pid:\[$SPID\]" "$T/raw" && grep -q 'thread:\[split-fp\]' "$T/raw" ||
	fail "pprof: the workload's pid or thread label missing"
# cpu: the CPU of each sample, CPU 0 too (pprof drops a bare 0: it has a
# unit): a workload bound to CPU 0 is all on CPU 0.
taskset -c 0 "$SPLIT" 4 >"$T/pin.out" 2>&1 &
pin=$!
sleep 0.3
"$KPTOP" --batch -F 999 -d 1 -p "$pin" --format pprof -o "$T/pin.pb.gz" 2>"$T/err" ||
	fail "pprof run on CPU 0: exit $?: $(cat "$T/err")"
kill "$pin" 2>/dev/null
"$go" tool pprof -tags "$T/pin.pb.gz" >"$T/pintags" 2>&1 || fail "go tool pprof -tags: $(cat "$T/pintags")"
awk '/^ *cpu: Total/ { on = 1; next } on && !NF { exit } on' "$T/pintags" >"$T/cpus"
[ "$(wc -l <"$T/cpus")" = 1 ] && grep -q '100%): 0$' "$T/cpus" ||
	fail "pprof: a workload on CPU 0 is not all cpu 0: $(cat "$T/pintags")"

# -n 3: without a pattern in -o it is refused, naming what to write; with
# one, three files go tool pprof reads, each through the safe writer.
"$KPTOP" --batch -d 0.5 -n 3 -p "$SPID" --format pprof -o "$T/all.pb.gz" 2>"$T/err" &&
	fail "-n 3 pprof -o FILE: accepted"
grep -q 'pattern with %n' "$T/err" || fail "-n 3 pprof -o FILE: unclear error: $(cat "$T/err")"
"$KPTOP" --batch -d 0.5 -n 3 -p "$SPID" --format pprof -o "$T/cpu-%n-%H%M%S.pb.gz" \
	2>"$T/err" || fail "-n 3 pprof: exit $?: $(cat "$T/err")"
set -- "$T"/cpu-*.pb.gz
[ $# = 3 ] || fail "-n 3 pprof: $# files: $*"
for n in 1 2 3; do
	f=$(ls "$T"/cpu-$n-[0-9]*.pb.gz) || fail "-n 3 pprof: no file of report $n"
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f: mode $(stat -c %a "$f")"
	"$go" tool pprof -top "$f" >"$T/top$n" 2>"$T/top.err" ||
		fail "go tool pprof $f: $(cat "$T/top.err")"
	grep -q 'hot_a' "$T/top$n" || fail "$f: no hot_a: $(head -12 "$T/top$n")"
done
ls "$T" | grep -q 'tmp' && fail "-n 3 pprof: a temporary file left: $(ls "$T")"
echo ok
