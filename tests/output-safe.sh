#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# output-safe.sh — -o and -w never write through a link, into a FIFO or a
# device, or over another user's file, with the fs.protected_* sysctls at
# 0 (each refused with exit 1 and one line naming the reason); a normal
# path, a root-owned link on the way, and -o - still work. The -o cases
# read a synthetic stream; the -w cases sample (root and BPF).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/safewrite-lib.sh"
mk="$top_builddir/tests/mkstream"
[ -x "$mk" ] || fail "tests/mkstream not built"
"$mk" "$SAFE_T/good.kps" || fail "mkstream failed"
good="$SAFE_T/good.kps"

# -o: every hostile case refused before anything is written.
plant o
refuse_all o -i "$good" --batch --format json -o

# -o to a new file and over its own file in the shared directory.
for i in 1 2; do
	"$KPTOP" -i "$good" --batch --format json -o "$S/mine.json" 2>"$SAFE_T/err" ||
		fail "-o $S/mine.json (run $i): exit $?: $(cat "$SAFE_T/err")"
	grep -q '"samples"' "$S/mine.json" || fail "-o: no report in $S/mine.json"
	[ "$(stat -c '%u %a' "$S/mine.json")" = "0 600" ] ||
		fail "-o: $S/mine.json is $(stat -c '%u %a' "$S/mine.json"), want root's, 0600"
done
# Through root's own link on the way (as /var/run is), and relative.
ln -s "$R" "$S/rootlink"
"$KPTOP" -i "$good" --batch -o "$S/rootlink/via.txt" 2>"$SAFE_T/err" ||
	fail "-o through root's directory link: exit $?: $(cat "$SAFE_T/err")"
[ -s "$R/via.txt" ] || fail "-o through root's directory link: no $R/via.txt"
(cd "$R" && "$KPTOP" -i "$good" --batch -o rel.txt) 2>"$SAFE_T/err" ||
	fail "-o rel.txt: exit $?: $(cat "$SAFE_T/err")"
[ -s "$R/rel.txt" ] || fail "-o rel.txt: no $R/rel.txt"
# -o - is standard output, and creates no file named -.
(cd "$R" && "$KPTOP" -i "$good" --batch --format json -o - >"$SAFE_T/stdout") 2>"$SAFE_T/err" ||
	fail "-o -: exit $?: $(cat "$SAFE_T/err")"
grep -q '"samples"' "$SAFE_T/stdout" || fail "-o -: no report on standard output"
[ ! -e "$R/-" ] || fail "-o -: created a file named -"
# A missing directory is still "cannot create".
refused "-o missing directory" "cannot create" -i "$good" --batch -o "$S/no/such/out"

# -w: the same cases, refused before sampling; then a normal save.
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	[ "${KPTOP_REQUIRE_BPF:-0}" = 1 ] && fail "-w cases need BPF (no /sys/kernel/btf/vmlinux)"
	echo "-o cases ok; -w cases skipped: no BPF"
	exit 0
fi
plant w
refuse_all w --batch -d 1 -F 99 --format json -o "$SAFE_T/w.json" -w
"$KPTOP" --batch -d 1 -F 99 -o "$SAFE_T/w.txt" -w "$S/run.kps" 2>"$SAFE_T/err" ||
	fail "-w $S/run.kps: exit $?: $(cat "$SAFE_T/err")"
[ "$(stat -c '%u %a' "$S/run.kps")" = "0 600" ] ||
	fail "-w: $S/run.kps is $(stat -c '%u %a' "$S/run.kps"), want root's, 0600"
"$KPTOP" -i "$S/run.kps" --batch >/dev/null 2>"$SAFE_T/err" ||
	fail "-w: the saved stream does not read back: $(cat "$SAFE_T/err")"
echo ok
