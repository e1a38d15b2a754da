#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# symbols-fde.sh — code no symbol names, through the batch reports.
# tests/fixtures/fx-fde-stripped (three static functions, stripped whole,
# 60/30/10 of its time in fde_big/fde_mid/fde_small) is sampled with
# kptop --batch -p: in the text report each of the three is one row,
# "fx-fde-stripped @0xOFF" where OFF is the file offset at which nm of
# the unstripped build (fx-fde) puts it, with its share; no row of the
# module is an address (module+0xoffset). The pprof report made from the
# saved stream has the same functions (go tool pprof -top), each one
# Function that several addresses (Locations) point at (-raw). The run is
# of a copy of the binary, deleted before the saved stream is replayed:
# the replay's text report has the same rows with samples of their own,
# named from the stream's SYMTAB records alone (functions without a name,
# kptop-stream(5)). Only those: the callers differ, as the unwinder cannot
# find a frameless leaf's caller without the binary's unwind tables.
. "$top_srcdir/tests/lib.sh"
require_bpf
BIN="$top_builddir/tests/fixtures/fx-fde-stripped"
UNSTRIPPED="$top_builddir/tests/fixtures/fx-fde"
[ -x "$BIN" ] && [ -x "$UNSTRIPPED" ] || fail "fixture not built: $BIN (make check builds it)"
T=$(mktemp -d) || fail "mktemp"
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# "FUNCTION ROW" for each function: its address (nm) as a file offset,
# through the PT_LOAD whose file bytes hold it.
readelf -lW "$UNSTRIPPED" | awk '$1 == "LOAD" { print $2, $3, $5 }' >"$T/loads"
nm "$UNSTRIPPED" | awk '$3 ~ /^fde_(big|mid|small)$/ { print $3, $1 }' >"$T/nm"
[ "$(wc -l <"$T/nm")" = 3 ] || fail "nm: not the three functions in $UNSTRIPPED: $(cat "$T/nm")"
while read -r fn a; do
	while read -r off va size; do
		[ $((0x$a)) -ge $((va)) ] && [ $((0x$a)) -lt $((va + size)) ] &&
			printf '%s fx-fde-stripped @0x%x\n' "$fn" $((0x$a - va + off))
	done <"$T/loads"
done <"$T/nm" >"$T/want"
[ "$(wc -l <"$T/want")" = 3 ] || fail "no file offsets for: $(cat "$T/nm")"

cp "$BIN" "$T/fx-fde-stripped" || fail "cannot copy $BIN"
"$T/fx-fde-stripped" 40 &
PID=$!
sleep 0.3
kill -0 "$PID" 2>/dev/null || fail "fx-fde-stripped did not start"
"$KPTOP" --batch -F 4999 -d 2 -p "$PID" -w "$T/run.kps" >"$T/text" 2>"$T/err" ||
	fail "batch: exit $?: $(cat "$T/err")"

# The rows of the module: "NAME SELF" (the name has a space in it).
sed -n '/^ *Self% *Total%/,$p' "$T/text" |
	awk '$NF == "fx-fde-stripped" && $1 ~ /^[0-9.]+$/ {
		n = $4; for (i = 5; i < NF; i++) n = n " " $i; print n "|" $1 }' >"$T/rows"
[ -s "$T/rows" ] || fail "text: no row of fx-fde-stripped: $(head -20 "$T/text")"
grep '+0x' "$T/rows" && fail "text: addresses of fx-fde-stripped, not its functions: $(head -5 "$T/rows")"
sort "$T/rows" | cut -d'|' -f1 | uniq -d | grep . && fail "text: a function on several rows"
while read -r fn row; do
	grep -q "^$row|" "$T/rows" || fail "text: no row $row for $fn: $(cat "$T/rows")"
done <"$T/want"
# Shares of the three (60/30/10 within 7 points), and most of the module.
cut -d' ' -f2- "$T/want" >"$T/want.rows"
awk -F'|' 'NR == FNR { w[$0] = 1; next } { all += $2 } ($1 in w) { v[$1] = $2; t += $2 }
	END { if (t < 0.9 * all) { printf "the three have %.1f%% of %.1f%%\n", t, all; exit 1 }
		for (r in v) printf "%s|%.1f\n", r, 100 * v[r] / t }' \
	"$T/want.rows" "$T/rows" >"$T/shares" || fail "text: $(cat "$T/shares")"
while read -r fn row; do
	want=$(case $fn in fde_big) echo 60 ;; fde_mid) echo 30 ;; *) echo 10 ;; esac)
	got=$(grep "^$row|" "$T/shares" | cut -d'|' -f2)
	echo "$fn ($row): $got% (want $want%)"
	awk -v g="$got" -v w="$want" 'BEGIN { exit !(g >= w - 7 && g <= w + 7) }' ||
		fail "text: $fn has $got% of the three, not $want%"
done <"$T/want"

# The replay, the binary gone: the same rows, the same samples (Self).
kill "$PID"
wait "$PID" 2>/dev/null
PID=
rm -f "$T/fx-fde-stripped"
"$KPTOP" --batch -i "$T/run.kps" -o "$T/replay" 2>"$T/err" ||
	fail "replay: exit $?: $(cat "$T/err")"
for f in text replay; do
	sed -n '/^ *Self% *Total%/,$p' "$T/$f" |
		awk '$NF == "fx-fde-stripped" && $1 != "0.00" { print $1, $4, $5 }' >"$T/$f.mod"
done
[ "$(wc -l <"$T/text.mod")" -ge 3 ] || fail "live: rows of fx-fde-stripped: $(cat "$T/text.mod")"
cmp -s "$T/text.mod" "$T/replay.mod" ||
	fail "the replay without the binary differs: $(diff "$T/text.mod" "$T/replay.mod" | head -8)"

# pprof, from the saved stream.
go=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null) || { echo "no go: pprof not checked"; exit 0; }
export HOME="$T/home" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=
mkdir -p "$HOME"
"$go" version >/dev/null 2>&1 || { echo "go cannot run: pprof not checked"; exit 0; }
"$KPTOP" -i "$T/run.kps" --batch --format pprof -o "$T/cpu.pb.gz" 2>"$T/err" ||
	fail "pprof: exit $?: $(cat "$T/err")"
"$go" tool pprof -top -nodecount=100000 -nodefraction=0 "$T/cpu.pb.gz" >"$T/top" 2>"$T/top.err" ||
	fail "go tool pprof -top: $(cat "$T/top.err")"
"$go" tool pprof -raw "$T/cpu.pb.gz" >"$T/raw" 2>"$T/raw.err" ||
	fail "go tool pprof -raw: $(cat "$T/raw.err")"
grep -q 'fx-fde-stripped+0x' "$T/top" && fail "pprof: addresses of fx-fde-stripped: $(grep -m3 'fx-fde-stripped+0x' "$T/top")"
while read -r fn row; do
	n=$(grep -c " $row\$" "$T/top")
	[ "$n" = 1 ] || fail "pprof -top: $n rows $row ($fn): $(head -20 "$T/top")"
done <"$T/want"
# -raw: "ID: 0xADDRESS M=N NAME ..." per location; fde_big's is sampled
# at several addresses, all of them one function.
big=$(sed -n 's/^fde_big //p' "$T/want")
locs=$(sed -n '/^Locations/,/^Mappings/p' "$T/raw" | grep -c " $big ")
[ "$locs" -ge 2 ] || fail "pprof -raw: $locs locations of $big: $(sed -n '/^Locations/,/^Mappings/p' "$T/raw" | head -10)"
echo "ok: $(tr '\n' ' ' <"$T/shares"); $big at $locs addresses"
