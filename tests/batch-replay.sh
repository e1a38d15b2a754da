#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-replay.sh — `kptop --batch -w FILE` then `kptop -i FILE --batch`:
# the report from the saved stream equals the live report of the same run
# (the same function table, row for row), and the stream file is complete
# (renamed into place, mode 0600, no temporary left behind).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/batch-lib.sh"

start_split 30	# killed at the end
"$KPTOP" --batch -F 4999 -d 2 -p "$SPID" -w "$T/run.kps" >"$T/live" 2>"$T/err" ||
	fail "live run: exit $?: $(cat "$T/err")"
[ -s "$T/run.kps" ] || fail "no stream file written"
[ "$(stat -c %a "$T/run.kps")" = 600 ] || fail "stream mode $(stat -c %a "$T/run.kps"), want 600"
ls "$T" | grep -q 'run.kps.tmp' && fail "a temporary file was left: $(ls "$T")"
"$KPTOP" -i "$T/run.kps" --batch >"$T/replay" 2>"$T/err" ||
	fail "replay: exit $?: $(cat "$T/err")"
[ -s "$T/err" ] && fail "replay warned: $(cat "$T/err")"

text_table "$T/live" >"$T/live.table"
text_table "$T/replay" >"$T/replay.table"
[ "$(wc -l <"$T/live.table")" -gt 5 ] || fail "live table too short: $(cat "$T/live")"
diff "$T/live.table" "$T/replay.table" >"$T/diff" ||
	fail "replayed report differs from the live one: $(head -20 "$T/diff")"
# The sample count in both headers is the same too.
live_n=$(sed -n 's/^samples \([0-9]*\):.*/\1/p' "$T/live")
replay_n=$(sed -n 's/^samples \([0-9]*\):.*/\1/p' "$T/replay")
[ -n "$live_n" ] && [ "$live_n" = "$replay_n" ] || fail "samples: live $live_n, replay $replay_n"
shares_text "$T/replay" >"$T/s"
check_shares replay "$T/s"
echo ok
