#!/bin/sh
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
