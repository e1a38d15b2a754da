#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cli-reports.sh — the text and tree reports of a synthetic stream
# (tests/mkstream, no root needed) as scripts read them: the header's time
# is local with its UTC offset, and date -d reads it back to the stream's
# start; with --field-separator awk reads every row as its fields, a C++
# name with spaces and a comma whole; --folded-pid starts each folded
# stack with comm-PID, as stackcollapse-perf --pid.
. "$top_srcdir/tests/lib.sh"
[ -x "$KPTOP" ] || fail "kptop binary not built: $KPTOP"
mk="$top_builddir/tests/mkstream"
[ -x "$mk" ] || fail "tests/mkstream not built"
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$mk" "$T/s.kps" cxx || fail "mkstream failed"
START=1700000000	# the stream's start (META start_real_ns), in seconds

# check_when FILE LINE-PATTERN ZONE OFFSET: the time in the line of FILE
# that matches the pattern is local to ZONE, ends in OFFSET, and is START.
check_when() {
	when=$(sed -n "s/$2.* at \\([0-9-]* [0-9:]* [+-][0-9]*\\), source: .*/\\1/p" "$1")
	[ -n "$when" ] || fail "$1 ($3): no 'at YYYY-MM-DD HH:MM:SS +ZZZZ' in: $(head -3 "$1")"
	case $when in *" $4") ;; *) fail "$1 ($3): '$when' does not end in $4" ;; esac
	secs=$(date -d "$when" +%s) || fail "$1 ($3): date -d cannot read '$when'"
	[ "$secs" = "$START" ] || fail "$1 ($3): '$when' is $secs, want $START"
}
for zone in UTC0:+0000 XST-5:30:+0530 YST8:-0800; do
	tz=${zone%:*}
	off=${zone##*:}
	for fmt in text tree; do
		TZ=$tz "$KPTOP" --batch -i "$T/s.kps" --format $fmt >"$T/$fmt" 2>"$T/err" ||
			fail "$fmt: exit $?: $(cat "$T/err")"
	done
	check_when "$T/text" '^kptop .* report' "$tz" "$off"
	check_when "$T/tree" '^# report' "$tz" "$off"
done

# --field-separator: the header's lines are comments, then every row has
# exactly the table's fields. CXX: the stream's C++ function (25 of 125
# samples, under main).
CXX='std::vector<int, std::allocator<int> >::push_back(int const&)'
for fmt in text tree; do
	"$KPTOP" --batch -i "$T/s.kps" --format $fmt --field-separator '\t' \
		>"$T/$fmt.tsv" 2>"$T/err" || fail "$fmt tsv: exit $?: $(cat "$T/err")"
done
# text: Self% Total% Samples Function Module
awk -F '\t' -v cxx="$CXX" '
	/^#/ { next }
	NF != 5 { printf "line %d: %d fields: %s\n", NR, NF, $0; bad = 1 }
	!head++ { if ($0 != "Self%\tTotal%\tSamples\tFunction\tModule") {
		print "header: " $0; bad = 1 } next }
	$4 == cxx { found = ($1 == "20.00" && $2 == "20.00" && $3 == 25 &&
			     $5 == "kptop-synth-app") }
	$4 == "main" { main = ($2 == "100.00" && $3 == 125) }
	END { if (!found || !main) { print "no exact C++ or main row"; bad = 1 }
		exit bad }' "$T/text.tsv" || fail "text tsv: $(cat "$T/text.tsv")"
# tree: Total% Self% Samples Depth Function Module Inlined
awk -F '\t' -v cxx="$CXX" '
	/^#/ { next }
	NF != 7 { printf "line %d: %d fields: %s\n", NR, NF, $0; bad = 1 }
	!head++ { next }
	$5 == cxx { found = ($1 == "20.00" && $3 == 25 && $4 == 2 &&
			     $6 == "kptop-synth-app" && $7 == 0) }
	$5 == "synth" { root = ($4 == 0 && $6 == "") }
	END { if (!found || !root) { print "no exact C++ or process row"; bad = 1 }
		exit bad }' "$T/tree.tsv" || fail "tree tsv: $(cat "$T/tree.tsv")"
# Without it, the columns are aligned with blanks: awk splits the name.
awk -v cxx="$CXX" '$4 == cxx { exit 1 }' "$T/text" ||
	fail "the aligned text report is read as fields too: no test of the separator"
# A separator found in a name becomes a blank there: still 5 fields.
"$KPTOP" --batch -i "$T/s.kps" --field-separator , >"$T/csv" 2>"$T/err" ||
	fail "csv: exit $?: $(cat "$T/err")"
awk -F , '!/^#/ && NF != 5 { exit 1 }' "$T/csv" || fail "csv: a row without 5 fields: $(cat "$T/csv")"
grep -q '^20\.00,20\.00,25,std::vector<int  std::allocator<int> >::push_back(int const&),kptop-synth-app$' \
	"$T/csv" || fail "csv: the C++ row: $(cat "$T/csv")"

# --folded-pid: "comm-PID;frames COUNT", read as stackcollapse-perf --pid
# output is: the process is the first frame, the count the last field.
for pid in "" --folded-pid; do
	"$KPTOP" --batch -i "$T/s.kps" --format folded $pid >"$T/folded$pid" 2>"$T/err" ||
		fail "folded $pid: exit $?: $(cat "$T/err")"
done
awk -v cxx="$CXX" '
	{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); split(line, f, ";")
	  if (f[1] != "synth-4242") { print "process: " f[1]; bad = 1 }
	  if (f[2] != "main") { print "root: " f[2]; bad = 1 }
	  c[f[3]] = n; sum += n }
	END { if (c["hot_a"] != 50 || c["hot_b"] != 30 || c["hot_c"] != 20 ||
		  c[cxx] != 25 || sum != 125 || NR != 4) { print "counts"; bad = 1 }
	      exit bad }' "$T/folded--folded-pid" ||
	fail "folded --folded-pid: $(cat "$T/folded--folded-pid")"
grep -q '^synth;main;hot_a 50$' "$T/folded" || fail "folded without --folded-pid: $(cat "$T/folded")"
echo ok
