#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-wall-pprof.sh — one pprof profile holds wall time and both of its
# parts (root + BPF, go tool pprof): --weight wall writes the sample
# types wall_us, wall, cpu and off_cpu, wall the default, so that
# `go tool pprof -sample_index=cpu|off_cpu` splits it. On the off-CPU
# workload (tests/workload/offcpu): every sample's wall is its cpu or its
# off_cpu, never both; the spinner's wall is mostly cpu (preempted on a
# loaded machine: more than half), the pipe reader's nearly all
# off_cpu; each thread's cpu + off_cpu is within 3% of the 3 s window.
. "$top_srcdir/tests/lib.sh"
go=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null) || skip "go (golang-go) is not installed: cannot run go tool pprof"
. "$top_srcdir/tests/offcpu-lib.sh"
export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=
"$go" version >/dev/null 2>&1 || skip "go cannot be run here"
start_offcpu 20
"$KPTOP" --batch --off-cpu --off-cpu-min 0 -p "$WPID" -d 3 --weight wall \
	--format pprof -o "$T/wall.pb.gz" 2>"$T/err" || fail "--weight wall pprof: exit $?: $(cat "$T/err")"
"$go" tool pprof -top "$T/wall.pb.gz" >"$T/top" 2>&1 || fail "go tool pprof -top: $(cat "$T/top")"
grep -q '^Type: wall$' "$T/top" || fail "the default sample type is not wall: $(grep Type "$T/top")"
"$go" tool pprof -raw "$T/wall.pb.gz" >"$T/raw" 2>&1 || fail "go tool pprof -raw: $(cat "$T/raw")"
grep -q '^wall_us/microseconds wall/nanoseconds\[dflt\] cpu/nanoseconds off_cpu/nanoseconds$' "$T/raw" ||
	fail "sample types: $(sed -n '/^Samples/{n;p;}' "$T/raw")"
# per thread: wall, cpu and off_cpu seconds; a sample with both parts, or
# neither adding up to its wall, is an error
awk '/^Samples/ { s = 1; next } /^Locations/ { s = 0 }
	s && $4 ~ /:$/ { w = $2; c = $3; o = $4 + 0
		if (c + o != w || (c && o)) { print "bad sample: " $0; bad = 1 } next }
	s && match($0, /thread:\[[^]]*\]/) { t = substr($0, RSTART + 8, RLENGTH - 9)
		W[t] += w / 1e9; C[t] += c / 1e9; O[t] += o / 1e9 }
	END { for (t in W) printf "%s %.3f %.3f %.3f\n", t, W[t], C[t], O[t]; exit bad }' \
	"$T/raw" >"$T/threads" || fail "$(grep bad "$T/threads")"
d=$(sed -n 's/^Duration: \([0-9.]*\)s.*/\1/p' "$T/top")
cat "$T/threads"
awk -v d="${d:-3}" '
	$1 == "spinner" { sp = 1; if ($3 < 0.5 * $2) { print "spinner: cpu " $3 " of wall " $2; bad = 1 } }
	$1 == "piper" { pi = 1; if ($4 < 0.95 * $2) { print "piper: off_cpu " $4 " of wall " $2; bad = 1 } }
	$1 ~ /^(spinner|piper|sleeper|locker)$/ { n++; x = ($3 + $4 - d) / d; if (x < 0) x = -x
		if (x > 0.03) { print $1 ": cpu + off_cpu " $3 + $4 " s in " d " s"; bad = 1 } }
	END { exit bad || !sp || !pi || n < 4 }' "$T/threads" >"$T/out" ||
	fail "the split of wall: $(cat "$T/out") [$(tr '\n' ';' <"$T/threads")]"
