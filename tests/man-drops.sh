#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# man-drops.sh — the man page's DROP COUNTERS name exactly the drop
# counters kptop prints (the text report of a synthetic stream: one name
# per lost stage, from src/stream/lost.c), and the sum it gives uses only
# those names.
. "$top_srcdir/tests/lib.sh"
[ -x "$KPTOP" ] || fail "kptop binary not built: $KPTOP"
mk="$top_builddir/tests/mkstream"
[ -x "$mk" ] || fail "tests/mkstream not built"
man="$top_srcdir/man/kptop.1.in"
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

"$mk" "$T/s.kps" || fail "mkstream failed"
"$KPTOP" --batch -i "$T/s.kps" --format text >"$T/r" 2>"$T/e" ||
	fail "kptop --batch -i: $(cat "$T/e")"
sed -n 's/^drops: //p' "$T/r" | tr ',' '\n' |
	sed 's/^ *//; s/ [0-9]*$//' | sort >"$T/names"
[ "$(wc -l <"$T/names")" -ge 5 ] || fail "no drop counters in the text report: $(grep drops "$T/r")"
# .B entries of the section; the .I/.IR words of its sum
sed 's/\\-/-/g' "$man" | awk '/^\.SH DROP COUNTERS/ { s = 1; next } /^\.SH/ { s = 0 } s' >"$T/sec"
grep '^\.B ' "$T/sec" | sed 's/^\.B //; s/ .*//' | sort >"$T/man"
if ! cmp -s "$T/names" "$T/man"; then
	echo "report (<) vs man page DROP COUNTERS (>):" >&2
	diff "$T/names" "$T/man" >&2
	fail "the man page's drop counters are not the ones kptop prints"
fi
for w in $(grep -E '^\.IR? ' "$T/sec" | awk '{ print $2 }'); do
	case $w in taken|delivered) continue ;; esac
	grep -qx -- "$w" "$T/names" || fail "the man page's sum names \"$w\", which is no drop counter"
done
echo "ok: $(wc -l <"$T/names") drop counters, the same in the report and the man page"
