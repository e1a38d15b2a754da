#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# python-split.sh — Python functions in the profile (issue 24), end to end
# with Debian's python3.11 running tests/workload/py-split.py (50/30/20
# over hot_a/hot_b/hot_c through distinct chains, two threads): a process
# started before kptop, one started after it, and the first one's saved
# stream read back with -i once the process is gone (the same names).
# tests/python-check.py checks the shares (3 points of the split each
# workload measured of its own CPU time, SPLIT_TRUTH), the whole chains and
# the hot loop's line. Then one in a pid and mount namespace of its own
# (unshare: its threads' ids there are not the global ones).
. "$top_srcdir/tests/lib.sh"
require_bpf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "$PY (Debian package python3.11) is not installed"
CHECK="/usr/bin/python3 $top_srcdir/tests/python-check.py"
WL="$top_srcdir/tests/workload/py-split.py"
T=$(mktemp -d) || fail mktemp
P1= P2= U=
trap 'kill $P1 $P2 $U 2>/dev/null; rm -rf "$T"' EXIT

# Started before kptop; saved.
SPLIT_TRUTH="$T/before.truth" "$PY" "$WL" 9 2 & P1=$!
sleep 1
"$KPTOP" --batch --format speedscope -o "$T/before.json" -F 999 -d 6 -p "$P1" \
	-w "$T/before.kps" 2>"$T/err" || fail "kptop (before): $(tail -3 "$T/err")"
SPLIT_TRUTH="$T/before.truth" $CHECK before "$T/before.json" "$P1" "$T/before.names" ||
	fail "started before kptop"

# Started after kptop (every process sampled).
"$KPTOP" --batch --format speedscope -o "$T/after.json" -F 999 -d 6 2>"$T/err2" &
K=$!
sleep 1
SPLIT_TRUTH="$T/after.truth" "$PY" "$WL" 4 2 & P2=$!
wait $K || fail "kptop (after): $(tail -3 "$T/err2")"
SPLIT_TRUTH="$T/after.truth" $CHECK after "$T/after.json" "$P2" || fail "started after kptop"

# The saved stream, once the process is gone: the same names.
pid1=$P1
wait $P1
P1=
kill -0 "$pid1" 2>/dev/null && fail "pid $pid1 still runs"
"$KPTOP" -i "$T/before.kps" --batch --format speedscope -o "$T/replay.json" \
	2>"$T/err3" || fail "kptop -i: $(tail -3 "$T/err3")"
[ -s "$T/err3" ] && fail "kptop -i warned: $(cat "$T/err3")"
SPLIT_TRUTH="$T/before.truth" $CHECK replay "$T/replay.json" "$pid1" "$T/replay.names" ||
	fail "replay"
diff "$T/before.names" "$T/replay.names" >"$T/diff" ||
	fail "replayed Python frames differ from the live ones: $(head "$T/diff")"

# The counters: the JSON report's python object, the text report's line.
"$KPTOP" -i "$T/before.kps" --batch --format json -o "$T/replay.js" 2>"$T/err5" ||
	fail "kptop -i --format json: $(tail -3 "$T/err5")"
/usr/bin/python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["python"]
sys.exit(not (p and p["merged"] > 0 and p["code_unreadable"] == 0))' "$T/replay.js" ||
	fail "JSON python counters: $(grep '"python"' "$T/replay.js")"
"$KPTOP" -i "$T/before.kps" --batch --format text 2>/dev/null |
	grep -q '^python: processes [0-9]*, samples merged [1-9]' ||
	fail "no python: line in the text report"

# In a pid and mount namespace of its own.
command -v unshare >/dev/null 2>&1 || skip "unshare (Debian package util-linux) is not installed"
SPLIT_TRUTH="$T/ns.truth" unshare -pmf --mount-proc "$PY" "$WL" 9 2 & U=$!
sleep 1
P3=$(pgrep -P "$U" -x python3.11 | head -1)
[ -n "$P3" ] && grep -q '^NSpid:.*	1$' "/proc/$P3/status" ||
	fail "no python3.11 in a pid namespace of its own under unshare $U"
"$KPTOP" --batch --format speedscope -o "$T/ns.json" -F 999 -d 6 -p "$P3" \
	2>"$T/err4" || fail "kptop (namespace): $(tail -3 "$T/err4")"
SPLIT_TRUTH="$T/ns.truth" $CHECK namespace "$T/ns.json" "$P3" || fail "in a pid and mount namespace"
exit 0
