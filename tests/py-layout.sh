#!/bin/sh
# py-layout.sh — kptop's layout of CPython 3.11 (src/symbols/pylayout.c)
# against the offsets of 3.11's own headers (Debian package
# python3.11-dev): tests/py-layout.c built with both must print "ok".
. "$top_srcdir/tests/lib.sh"
H=/usr/include/python3.11
[ -r "$H/internal/pycore_frame.h" ] ||
	skip "$H/internal/pycore_frame.h (Debian package python3.11-dev) is not installed"
T=$(mktemp -d) || fail mktemp
trap 'rm -rf "$T"' EXIT
${CC:-cc} -I"$top_srcdir/src" -I"$H" -o "$T/py-layout" "$top_srcdir/tests/py-layout.c" \
	"$top_srcdir/src/symbols/pylayout.c" 2>"$T/err" ||
	fail "building py-layout against $H: $(head -5 "$T/err")"
"$T/py-layout" >"$T/out"
[ "$(cat "$T/out")" = ok ] || fail "3.11 layout differs from the headers: $(cat "$T/out")"
exit 0
