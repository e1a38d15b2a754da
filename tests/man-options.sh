#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# man-options.sh — every option `kptop --help` prints is documented in the
# man page (man/kptop.1.in, as an .B/.BR/.TP entry with \- escapes).
. "$top_srcdir/tests/lib.sh"
[ -x "$KPTOP" ] || fail "kptop binary not built: $KPTOP"
man="$top_srcdir/man/kptop.1.in"
[ -r "$man" ] || fail "man page missing: $man"

opts=$("$KPTOP" --help | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' |
	sed 's/^[ ,]*//' | sort -u)
[ -n "$opts" ] || fail "kptop --help printed no options"
n=0
# The man page writes '-' as '\-'; unescape it once and search for the
# option as a whole word.
plain=$(sed 's/\\-/-/g' "$man")
for o in $opts; do
	n=$((n + 1))
	printf '%s\n' "$plain" | grep -qE -- "(^|[^A-Za-z-])$o([^A-Za-z-]|$)" ||
		fail "option $o (from --help) is not in the man page"
done
[ "$n" -ge 20 ] || fail "only $n options found in --help"
echo "ok: $n options documented"
