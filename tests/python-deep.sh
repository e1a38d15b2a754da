#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# python-deep.sh — a Python chain past the BPF walk's bound (127 frames):
# Debian's python3.11 runs leaf() under 200 frames of down()
# (tests/workload/py-deep.py). The samples are counted as cut in the
# report's python line, and still merged: leaf is a Python row with most
# of the Self, under down() in the folded stacks, in the live run and in
# its replay from the saved file.
. "$top_srcdir/tests/lib.sh"
require_bpf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "$PY (Debian package python3.11) is not installed"
T=$(mktemp -d) || fail mktemp
P=
trap 'kill $P 2>/dev/null; rm -rf "$T"' EXIT
"$PY" "$top_srcdir/tests/workload/py-deep.py" 6 & P=$!
sleep 1
"$KPTOP" --batch --format text -o "$T/live.txt" -w "$T/deep.kps" -F 999 -d 3 -p "$P" \
	2>"$T/err" || fail "kptop: $(tail -3 "$T/err")"
wait "$P"
P=
"$KPTOP" -i "$T/deep.kps" --batch --format folded -o "$T/deep.folded" 2>"$T/err" ||
	fail "kptop -i: $(tail -3 "$T/err")"
line=$(grep '^python:' "$T/live.txt") || fail "no python line in the report"
merged=$(echo "$line" | sed -n 's/.*samples merged \([0-9]*\),.*/\1/p')
cut=$(echo "$line" | sed -n 's/.* cut \([0-9]*\),.*/\1/p')
[ -n "$merged" ] && [ -n "$cut" ] || fail "cannot read: $line"
[ "$merged" -ge 500 ] || fail "too few samples merged: $line"
# every sample of the workload is 200 frames deep: nearly all are cut
[ $((cut * 100)) -ge $((merged * 90)) ] || fail "cut in fewer than 90% of the merged: $line"
# leaf's own loop allocates ints: its Total (with PyObject_Free and
# the like under it) is nearly the whole run
tot=$(awk '$4 == "leaf" && $5 == "[python3.11]" { print int($2) }' "$T/live.txt")
[ -n "$tot" ] || fail "leaf is no Python row: $(sed -n 1,20p "$T/live.txt")"
[ "$tot" -ge 80 ] || fail "leaf's Total is $tot%, not nearly all"
total=$(awk '{ n += $NF } END { print n }' "$T/deep.folded")
deep=$(awk '/down;down;down;leaf(;| [0-9]+$)/ { n += $NF } END { print n + 0 }' "$T/deep.folded")
[ $((deep * 100)) -ge $((total * 80)) ] ||
	fail "leaf under down() in $deep of $total folded samples"
echo "python-deep: merged $merged, cut $cut; leaf Total $tot%; leaf under down() in $deep of $total replayed samples" >&2
