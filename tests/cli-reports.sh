#!/bin/sh
# cli-reports.sh — the text and tree reports of a synthetic stream
# (tests/mkstream, no root needed) as scripts read them: the header's time
# is local with its UTC offset, and date -d reads it back to the stream's
# start.
. "$top_srcdir/tests/lib.sh"
[ -x "$KPTOP" ] || fail "kptop binary not built: $KPTOP"
mk="$top_builddir/tests/mkstream"
[ -x "$mk" ] || fail "tests/mkstream not built"
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$mk" "$T/s.kps" || fail "mkstream failed"
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
echo ok
