#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cli-baseline.sh — --baseline FILE, without root or BPF (synthetic
# streams from tests/mkstream): a differential SVG of a 20/30/50 stream
# against a 50/30/20 baseline says the change of each hot function's
# share and colours hot_a blue (shrunk), hot_c red (grown), hot_b as
# unchanged; --baseline with another batch format, an empty name or a
# file that is not there are refused with one line; and the live view
# opens with the baseline set (the change column, sorted by change), its
# flame graph coloured by change (marked - and + under NO_COLOR).
. "$top_srcdir/tests/lib.sh"
[ -x "$KPTOP" ] || fail "kptop binary not built: $KPTOP"
mk="$top_builddir/tests/mkstream"
[ -x "$mk" ] || fail "tests/mkstream not built"
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$mk" "$T/base.kps" 50 30 20 && "$mk" "$T/now.kps" 20 30 50 || fail "mkstream failed"

"$KPTOP" --batch -i "$T/now.kps" --baseline "$T/base.kps" --format svg -o "$T/diff.svg" \
	2>"$T/err" || fail "exit $?: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "stderr: $(cat "$T/err")"
grep -q '>kptop differential flame graph<' "$T/diff.svg" || fail "not a differential graph"
grep -q 'against a baseline of 100 samples' "$T/diff.svg" || fail "no baseline in the title"
# box NAME: its tooltip's numbers and its fill, on one line
box() { tr -d '\n' <"$T/diff.svg" | sed 's/<g class="f">/\n&/g' |
	sed -n "s/.*<title>$1module [^,]*, \\([^<]*\\)<\\/title><rect[^>]* fill=\"\\([^\"]*\\)\".*/\\1 \\2/p"; }
box hot_a | grep -q '^20 samples, 20.00% (baseline 50.00%, change -30.00) rgb(60,60,250)$' ||
	fail "hot_a: $(box hot_a)"
box hot_c | grep -q '^50 samples, 50.00% (baseline 20.00%, change +30.00) rgb(250,60,60)$' ||
	fail "hot_c: $(box hot_c)"
box hot_b | grep -q 'change +0.00) rgb(240,240,240)$' || fail "hot_b: $(box hot_b)"
# The report's counts are the input's alone.
grep -q ', 100 samples in the graph' "$T/diff.svg" || fail "samples: $(grep -o '[0-9]* samples in the graph' "$T/diff.svg")"

# Refused: one line, exit 2 (or 4 for a file that cannot be read).
expect() {
	want=$1 word=$2; shift 2
	"$KPTOP" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = "$want" ] || fail "kptop $*: exit $rc, want $want: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "kptop $*: not one line: $(cat "$T/err")"
	grep -q -- "$word" "$T/err" || fail "kptop $*: does not say $word: $(cat "$T/err")"
}
expect 2 --baseline --batch -i "$T/now.kps" --baseline "$T/base.kps"
expect 2 --baseline --batch -i "$T/now.kps" --baseline "" --format svg
expect 4 "$T/none.kps" --batch -i "$T/now.kps" --baseline "$T/none.kps" --format svg

# The live view (reading the file) opens with the baseline set.
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (Debian package tmux)"
. "$top_srcdir/tests/tui-lib.sh"
tui_start 120 30
keys "$KPTOP -i $T/now.kps --baseline $T/base.kps --no-mouse" Enter
tui_wait 'Baseline set' 10
screen | grep -q 'Sort change' || { screen >&2; fail "not sorted by change"; }
screen | grep -Eq -- '-30\.0 +-30 +hot_a ' || { screen >&2; fail "hot_a's change not shown"; }
screen | grep -Eq -- '\+30\.0 +\+30 +hot_c ' || { screen >&2; fail "hot_c's change not shown"; }
# The flame graph is coloured by change: hot_a shrank (blue), hot_c grew
# (red), hot_b did not (grey); without colours, - and + before the names.
keys 8
tui_wait 'hot_c' 5
tmx capture-pane -e -p -t t | grep -a 'hot_a' >"$T/row"
grep -q '48;5;26mhot_a' "$T/row" && grep -q '48;5;253mhot_b' "$T/row" &&
	grep -q '48;5;160mhot_c' "$T/row" || { cat -v "$T/row" >&2; fail "flame: not coloured by change"; }
type_text 'q'
tui_gone 'Baseline set' 5
keys "NO_COLOR=1 $KPTOP -i $T/now.kps --baseline $T/base.kps --no-mouse" Enter
tui_wait 'Baseline set' 10
keys 8
tui_wait 'hot_c' 5
screen | grep -q -- '-hot_a .*hot_b .*+hot_c' || { screen >&2; fail "flame, NO_COLOR: no - and + marks"; }
type_text 'q'
tui_gone 'Baseline set' 5
echo ok
