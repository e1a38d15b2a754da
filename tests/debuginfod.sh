#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# debuginfod.sh — debug files fetched by build-id from debuginfod servers.
# A stripped workload (tests/workload/dbgspin: its static functions only
# in .symtab and DWARF) whose debug file is only on Debian's debuginfod,
# started on 127.0.0.1 over a directory of it:
#  - with DEBUGINFOD_URLS at that server, the batch report names
#    kp_dbgd_hot and kp_dbgd_outer and says "debuginfod: done 1"; the
#    cache kptop made is mode 0700; a second run, the server stopped,
#    names them from the cache, source lines too (pprof);
#  - with a server that is down (a closed port) or that never answers, a
#    batch run takes about as long as one without DEBUGINFOD_URLS, names
#    the workload's code module+offset only, and counts the fetch failed
#    or pending;
#  - with a server that answers late, the addresses named module+offset
#    before the file came are named again in a later report;
#  - a DEBUGINFOD_CACHE_PATH open to other users, or holding other files,
#    is refused before sampling (exit 2).
. "$top_srcdir/tests/lib.sh"
require_bpf
command -v debuginfod >/dev/null 2>&1 ||
	skip "debuginfod (Debian package debuginfod) is not installed: no server to fetch from"
for t in objcopy strip readelf; do
	command -v $t >/dev/null 2>&1 || skip "$t (Debian package binutils) is not installed"
done
SPIN="$top_builddir/tests/workload/dbgspin"
SOCK="$top_builddir/tests/dbgd-sock"
[ -x "$SPIN" ] && [ -x "$SOCK" ] || fail "not built: $SPIN $SOCK (make check builds them)"
T=$(mktemp -d) || fail "mktemp"
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait
	rm -rf "$T"
}
trap cleanup EXIT
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE

# The stripped binary here, its debug file on the server side only.
mkdir "$T/bin" "$T/srv" || fail "mkdir"
objcopy --only-keep-debug "$SPIN" "$T/srv/kp-dbgspin.debug" || fail "objcopy"
strip --strip-all -o "$T/bin/kp-dbgspin" "$SPIN" || fail "strip"
ID=$(readelf -n "$T/bin/kp-dbgspin" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$ID" ] || fail "the stripped workload has no build ID"
readelf -S "$T/bin/kp-dbgspin" | grep -q -E '\.symtab|\.debug_info' &&
	fail "the workload is not stripped"

# The server, on a free port; ready once it serves the file.
PORT=$("$SOCK" port) || fail "no free port"
debuginfod -p "$PORT" -d "$T/db.sqlite" -F "$T/srv" >"$T/server.log" 2>&1 &
DPID=$!
PIDS="$PIDS $DPID"
n=300
until [ "$("$SOCK" get "$PORT" "/buildid/$ID/debuginfo")" = 200 ]; do
	n=$((n - 1))
	[ "$n" -gt 0 ] || fail "debuginfod does not serve $ID: $(tail -5 "$T/server.log")"
	kill -0 "$DPID" 2>/dev/null || fail "debuginfod ended: $(tail -5 "$T/server.log")"
	sleep 0.1
done

"$T/bin/kp-dbgspin" 120 &
WPID=$!
PIDS="$PIDS $WPID"

# run NAME URLS CACHE [FORMAT]: a 2 s batch report of the workload into
# $T/NAME; its wall time in ms into $T/NAME.ms.
run() {
	t0=$(date +%s%N)
	env ${2:+DEBUGINFOD_URLS=$2} ${3:+DEBUGINFOD_CACHE_PATH=$3} \
		"$KPTOP" --batch -d 2 -p "$WPID" --format "${4:-text}" -o "$T/$1" \
		2>"$T/$1.err" || fail "$1: exit $?: $(cat "$T/$1.err")"
	echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$T/$1.ms"
}
# named NAME FN: the text report names FN in the workload.
named() {
	awk -v fn="$2" '$4 == fn && $5 == "kp-dbgspin" { ok = 1 } END { exit !ok }' "$T/$1"
}
note() {
	grep -q "^debuginfod: $2\$" "$T/$1" ||
		fail "$1: no 'debuginfod: $2': $(grep -i debuginfod "$T/$1")"
}

# Fetched from the server into a cache kptop makes, mode 0700.
run served "http://127.0.0.1:$PORT" "$T/cache"
named served kp_dbgd_hot && named served kp_dbgd_outer ||
	fail "served: the static functions are not named: $(sed -n '/Self%/,$p' "$T/served" | head -15)"
note served 'done 1, failed 0, pending 0'
[ "$(stat -c %a "$T/cache")" = 700 ] || fail "the cache is mode $(stat -c %a "$T/cache")"

# Servers that are down or silent cost nothing but the names.
run none "" ""
DOWN=$("$SOCK" port)
"$SOCK" silent >"$T/silent.port" &
PIDS="$PIDS $!"
sleep 0.2
SILENT=$(cat "$T/silent.port")
[ -n "$SILENT" ] || fail "the silent server did not start"
run down "http://127.0.0.1:$DOWN" "$T/cache-down"
run silent "http://127.0.0.1:$SILENT" "$T/cache-silent"
note down 'done 0, failed 1, pending 0'
note silent 'done 0, failed 0, pending 1'
for c in none down silent; do
	named $c kp_dbgd_hot && fail "$c: kp_dbgd_hot named without its debug file"
	# module+offset, or the function's start from .eh_frame (stripped)
	grep -Eq ' kp-dbgspin(\+| @)0x[0-9a-f]* *kp-dbgspin$' "$T/$c" ||
		fail "$c: the workload's code is not in the report: $(head -20 "$T/$c")"
	echo "$c: $(cat "$T/$c.ms") ms"
done
for c in down silent; do
	[ "$(cat "$T/$c.ms")" -le $(( $(cat "$T/none.ms") + 1000 )) ] ||
		fail "$c: $(cat "$T/$c.ms") ms, without a server $(cat "$T/none.ms") ms"
done

# A server that answers 2 s late: the first of three 1.5 s reports names
# the workload module+offset ("pending 1"); the last names the same hot
# addresses, interned back then, kp_dbgd_hot: named again once the file
# came, not only the addresses first seen after it.
"$SOCK" late 2 "$T/srv/kp-dbgspin.debug" >"$T/late.port" &
PIDS="$PIDS $!"
sleep 0.2
LATE=$(cat "$T/late.port")
[ -n "$LATE" ] || fail "the late server did not start"
DEBUGINFOD_URLS="http://127.0.0.1:$LATE" DEBUGINFOD_CACHE_PATH="$T/cache-late" \
	"$KPTOP" --batch -d 1.5 -n 3 -p "$WPID" -o "$T/late-%n" 2>"$T/late.err" ||
	fail "late: exit $?: $(cat "$T/late.err")"
note late-1 'done 0, failed 0, pending 1'
named late-1 kp_dbgd_hot && fail "late-1: named before the file came"
note late-3 'done 1, failed 0, pending 0'
named late-3 kp_dbgd_hot || fail "late-3: kp_dbgd_hot not named: $(sed -n '/Self%/,$p' "$T/late-3" | head)"
awk '($4 ~ /^kp-dbgspin\+0x/ || ($4 == "kp-dbgspin" && $5 ~ /^@0x/)) && $3 > 5 {
	print; bad = 1 } END { exit bad }' "$T/late-3" ||
	fail "late-3: addresses seen before the file came are still unnamed"

# Cache directories that are not safe are refused before sampling.
mkdir -m 755 "$T/open" && mkdir -m 700 "$T/full" && : >"$T/full/passwd" || fail "mkdir"
for c in open full; do
	DEBUGINFOD_URLS="http://127.0.0.1:$DOWN" DEBUGINFOD_CACHE_PATH="$T/$c" \
		"$KPTOP" --batch -d 1 -p "$WPID" >/dev/null 2>"$T/$c.err"
	rc=$?
	[ $rc = 2 ] || fail "cache $c: exit $rc, not 2: $(cat "$T/$c.err")"
	grep -q "^kptop: $T/$c: .*refusing to use it as the debuginfod cache" "$T/$c.err" ||
		fail "cache $c: unclear error: $(cat "$T/$c.err")"
done
[ -z "$(ls "$T/full" | grep -v passwd)" ] || fail "the refused cache was written into"
# The live view's header counts the fetch (from the cache now).
if command -v tmux >/dev/null 2>&1; then
	. "$top_srcdir/tests/tui-lib.sh"
	trap 'tui_cleanup; cleanup' EXIT	# tui-lib.sh set its own: keep ours too
	tui_start 200 50
	keys "DEBUGINFOD_URLS=http://127.0.0.1:$PORT DEBUGINFOD_CACHE_PATH=$T/cache $KPTOP -d 0.5 -p $WPID; echo kptop-rc=\$?" Enter
	tui_wait 'Debuginfod done 1 failed 0 pending 0' 15
	tui_wait 'kp_dbgd_hot' 5
	type_text 'q'
	tui_wait 'kptop-rc=0' 5
else
	echo "tmux missing: the live view's header not checked"
fi

# The server stopped: the cache names them, source lines too.
kill "$DPID"
wait "$DPID" 2>/dev/null
go=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null) ||
	skip "go (golang-go) is not installed: source lines not checked (go tool pprof)"
run cached "http://127.0.0.1:$PORT" "$T/cache" pprof
"$go" tool pprof -raw "$T/cached" >"$T/cached.raw" 2>"$T/raw.err" ||
	fail "go tool pprof -raw: $(cat "$T/raw.err")"
LINE=$(grep -n KP_DBGD_HOT_LINE "$top_srcdir/tests/workload/dbgspin.c" | cut -d: -f1)
grep -q "kp_dbgd_hot .*dbgspin\.c:$LINE" "$T/cached.raw" ||
	fail "cached: no kp_dbgd_hot at dbgspin.c:$LINE: $(grep -m5 kp_dbgd "$T/cached.raw")"
grep -q "debuginfod: done 1, failed 0, pending 0" "$T/cached.raw" ||
	fail "cached: the pprof comment does not count the fetch"

echo ok
