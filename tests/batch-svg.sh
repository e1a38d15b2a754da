#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-svg.sh — --format svg against the known-split workload: the file
# parses as XML (xmllint), the rect widths of hot_a/hot_b/hot_c give the
# 50/30/20 split within 2 points and agree with their tooltips' samples,
# and headless Chromium renders it: a screenshot that is not blank (its
# pixels: colours, the warm boxes, text) and whose pixel at the centre of
# hot_a's box is that box's fill.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/batch-lib.sh"
command -v xmllint >/dev/null 2>&1 || skip "xmllint is not installed (Debian package libxml2-utils)"
PNGSTAT="$top_builddir/tests/png-stat"
[ -x "$PNGSTAT" ] || fail "not built: $PNGSTAT"

start_split 40	# killed at the end
"$KPTOP" --batch -F 4999 -d 2 -p "$SPID" --format svg -o "$T/out.svg" 2>"$T/err" ||
	fail "--format svg: exit $?: $(cat "$T/err")"
xmllint --noout "$T/out.svg" 2>"$T/xml.err" || fail "not XML: $(head -3 "$T/xml.err")"

# xp EXPR: an XPath string over the SVG (its elements are in the SVG
# namespace: matched by local-name()).
xp() { xmllint --xpath "$1" "$T/out.svg" 2>/dev/null; }
G="//*[local-name()='g'][@class='f']"
nbox=$(xp "count($G)")
[ "${nbox:-0}" -ge 10 ] || fail "only ${nbox:-0} boxes"
[ "$(xp "count($G/*[local-name()='title'])")" = "$nbox" ] || fail "a box without a tooltip"
xp "string(//*[@id='title'])" | grep -q 'flame graph' || fail "no title"
xp "string(//*[local-name()='text'][@class='sub'][1])" |
	grep -Eq 'host .*UTC, cpu-clock.*[0-9.]+ s, [0-9]+ samples' || fail "subtitle: $(xp "string(//*[local-name()='text'][@class='sub'][1])")"
xp "string(//*[local-name()='text'][@class='sub'][2])" | grep -q 'drops: bpf-full [0-9]' ||
	fail "no drop counts in the title"

# The boxes of each hot function: their widths (all of them, summed) and
# their samples, from the tooltips' second lines.
for h in hot_a hot_b hot_c; do
	sel="$G[substring-before(*[local-name()='title'], '
')='$h']"
	w=$(xp "sum($sel/*[local-name()='rect']/@width)")
	n=$(xp "count($sel)")
	[ "${n:-0}" -ge 1 ] || fail "no box for $h"
	echo "$h $w" >>"$T/widths"
	xp "$sel/*[local-name()='title']/text()" | sed -n 's/.*, \([0-9]*\) samples, .*/\1/p' |
		awk -v h="$h" '{ s += $1 } END { print h, s }' >>"$T/samples"
done
check_shares "svg widths" "$T/widths" 2
check_shares "svg samples" "$T/samples" 2
# The widths are the samples: the same split to a tenth of a point.
paste "$T/widths" "$T/samples" | awk '
	{ w[NR] = $2; s[NR] = $4; tw += $2; ts += $4 }
	END { for (i = 1; i <= NR; i++) if (100 * w[i] / tw - 100 * s[i] / ts > 0.1 ||
					   100 * s[i] / ts - 100 * w[i] / tw > 0.1) exit 1 }' ||
	fail "widths do not follow the samples: $(paste "$T/widths" "$T/samples")"

# It renders: a screenshot by headless Chromium, checked by its pixels.
command -v chromium >/dev/null 2>&1 || skip "chromium is not installed (Debian package chromium)"
height=$(xp "string(/*[local-name()='svg']/@height)")
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$T/chrome" --force-device-scale-factor=1 \
	--force-color-profile=srgb --hide-scrollbars --window-size="1200,$height" \
	--screenshot="$T/shot.png" "file://$T/out.svg" >"$T/chrome.log" 2>&1
[ -s "$T/shot.png" ] || fail "chromium wrote no screenshot: $(tail -3 "$T/chrome.log")"
sel="$G[substring-before(*[local-name()='title'], '
')='hot_a'][1]/*[local-name()='rect']"
x=$(xp "string($sel/@x + $sel/@width div 2)" | cut -d. -f1)
y=$(xp "string($sel/@y + 7)" | cut -d. -f1)
fill=$(xp "string($sel/@fill)")
"$PNGSTAT" "$T/shot.png" "$x" "$y" >"$T/stat" || fail "png-stat: cannot read the screenshot"
awk -v fill="$fill" '
	$1 == "size" { if ($2 != 1200) { print "width " $2; bad = 1 } }
	$1 == "colours" && $2 < 20 { print "only " $2 " colours"; bad = 1 }
	$1 == "warm" && $2 < 30000 { print "only " $2 " warm pixels"; bad = 1 }
	$1 == "dark" && $2 < 500 { print "only " $2 " text pixels"; bad = 1 }
	NF == 5 { gsub(/[^0-9,]/, "", fill); split(fill, c, ",");
		for (i = 1; i <= 3; i++) if ($(i + 2) - c[i] > 6 || c[i] - $(i + 2) > 6) {
			print "pixel " $3 "," $4 "," $5 " at hot_a is not its fill " fill; bad = 1; break } }
	END { exit bad }' "$T/stat" || fail "the screenshot: $(cat "$T/stat")"
echo "ok: $nbox boxes; $(tr '\n' ' ' <"$T/stat")"
