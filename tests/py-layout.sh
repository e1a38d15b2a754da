#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# py-layout.sh — kptop's layout of CPython 3.11 (src/symbols/pylayout.c)
# against the offsets of 3.11's own headers (Debian package
# python3.11-dev): tests/py-layout.c built with both must print "ok".
# The same for 3.8, 3.9, 3.10, 3.12 and 3.13 where their headers are
# found (pyenv's versions under /root/.pyenv or $PYENV_ROOT; said on
# stderr when not); for 3.13 also that its _Py_DebugOffsets read as the
# same layout.
. "$top_srcdir/tests/lib.sh"
H=/usr/include/python3.11
[ -r "$H/internal/pycore_frame.h" ] ||
	skip "$H/internal/pycore_frame.h (Debian package python3.11-dev) is not installed"
T=$(mktemp -d) || fail mktemp
trap 'rm -rf "$T"' EXIT
${CC:-cc} -I"$top_srcdir/src" -I"$H" -o "$T/py-layout" "$top_srcdir/tests/py-layout.c" \
	"$top_srcdir/src/symbols/pylayout.c" "$top_srcdir/src/symbols/pydebug.c" 2>"$T/err" ||
	fail "building py-layout against $H: $(head -5 "$T/err")"
"$T/py-layout" >"$T/out"
[ "$(cat "$T/out")" = ok ] || fail "3.11 layout differs from the headers: $(cat "$T/out")"
for v in 3.8 3.9 3.10 3.12 3.13; do
	h=$(ls -d "${PYENV_ROOT:-/root/.pyenv}"/versions/$v.*/include/python$v 2>/dev/null | head -1)
	if [ -z "$h" ] || [ ! -r "$h/internal/pycore_pystate.h" ]; then
		echo "py-layout: no $v headers (pyenv): $v not checked" >&2
		continue
	fi
	${CC:-cc} -I"$top_srcdir/src" -I"$h" -o "$T/py-layout-$v" "$top_srcdir/tests/py-layout.c" \
		"$top_srcdir/src/symbols/pylayout.c" "$top_srcdir/src/symbols/pydebug.c" 2>"$T/err" ||
		fail "building py-layout against $h: $(head -5 "$T/err")"
	"$T/py-layout-$v" >"$T/out"
	[ "$(cat "$T/out")" = ok ] || fail "$v layout differs from its headers: $(cat "$T/out")"
	echo "py-layout: $v checked against $h" >&2
done
exit 0
