#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# python-native.sh — --native-python (issue 24): Debian's python3.11
# running tests/workload/py-split.py, sampled with --native-python and
# saved. Live: the interpreter's native stacks (_PyEval_EvalFrameDefault
# in nearly every sample), no Python function. The saved stream read
# back without the flag: the Python functions merged in (hot_a's half of
# the time) as if it had been recorded without it; read back with it:
# the live report, byte for byte.
. "$top_srcdir/tests/lib.sh"
require_bpf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "$PY (Debian package python3.11) is not installed"
WL="$top_srcdir/tests/workload/py-split.py"
T=$(mktemp -d) || fail mktemp
P=
trap 'kill $P 2>/dev/null; rm -rf "$T"' EXIT

"$PY" "$WL" 8 2 & P=$!
sleep 1
"$KPTOP" --batch --native-python --format folded -o "$T/live" -F 999 -d 4 \
	-p "$P" -w "$T/s.kps" 2>"$T/err" || fail "kptop --native-python: $(tail -3 "$T/err")"
wait $P
P=
"$KPTOP" -i "$T/s.kps" --batch --format folded -o "$T/merged" 2>"$T/err" ||
	fail "kptop -i: $(tail -3 "$T/err")"
"$KPTOP" -i "$T/s.kps" --batch --native-python --format folded -o "$T/native" \
	2>"$T/err" || fail "kptop -i --native-python: $(tail -3 "$T/err")"

# share FILE PATTERN: percent of the samples whose stack matches PATTERN
share() {
	awk -v re="$2" '{ n = $NF; t += n; if ($0 ~ re) m += n }
		END { printf "%d\n", t ? 100 * m / t : 0 }' "$1"
}
total=$(awk '{ t += $NF } END { print t + 0 }' "$T/live")
echo "live: $total samples, _PyEval_EvalFrameDefault in $(share "$T/live" _PyEval_EvalFrameDefault)%," \
	"hot_a in $(share "$T/live" 'hot_a|hot_b|hot_c')%"
echo "replay: hot_a in $(share "$T/merged" hot_a)%, _PyEval_EvalFrameDefault in" \
	"$(share "$T/merged" _PyEval_EvalFrameDefault)%"
[ "$total" -ge 1000 ] || fail "only $total samples of pid $P"
[ "$(share "$T/live" _PyEval_EvalFrameDefault)" -ge 90 ] ||
	fail "--native-python: _PyEval_EvalFrameDefault not in 90% of the stacks: $(head -3 "$T/live")"
[ "$(share "$T/live" 'hot_a|hot_b|hot_c')" = 0 ] ||
	fail "--native-python: Python functions shown: $(grep -m2 hot_ "$T/live")"
# hot_a takes half of the time: 50% +- 8 over some 1,300 samples
a=$(share "$T/merged" hot_a)
[ "$a" -ge 42 ] && [ "$a" -le 58 ] ||
	fail "replay without --native-python: hot_a at $a%, not 50 +- 8"
[ "$(share "$T/merged" _PyEval_EvalFrameDefault)" -le 10 ] ||
	fail "replay without --native-python: native frames left in: $(grep -m2 _PyEval "$T/merged")"
cmp -s "$T/live" "$T/native" ||
	fail "replay with --native-python differs from the live report: $(diff "$T/live" "$T/native" | head -5)"
exit 0
