#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# symbols-deleted.sh — a binary deleted (and replaced by another one at the
# same path) while its process runs is still named from the mapped file,
# read through /proc/PID/map_files, never from the new file. Needs root.
. "$top_srcdir/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (reads /proc/PID/map_files of another process)"
fx="$top_builddir/tests/fixtures"
probe="$top_builddir/tests/symbols-probe"
d=$(mktemp -d /tmp/kp-deleted.XXXXXX) || fail "mktemp"
cp "$fx/fx-prog-pie" "$d/victim" && cp "$fx/fx-prog-pie" "$d/ref" || fail "cp"
"$d/victim" wait-deleted &
pid=$!
trap 'kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$d"' EXIT
i=0
until grep -q "$d/victim" "/proc/$pid/maps" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "victim did not start"; sleep 0.05
done
rm "$d/victim"
# another binary (different layout) at the old path
cp "$fx/fx-prog-nopie" "$d/victim" || fail "cp"
grep -q "victim (deleted)" "/proc/$pid/maps" || fail "mapping not marked deleted"
vaddr=$(nm "$d/ref" | awk '$3 == "kp_leaf" { print $1 }')
[ -n "$vaddr" ] || fail "nm found no kp_leaf"
out=$("$probe" "$pid" victim "$d/ref" "$vaddr" kp_leaf) || fail "not named kp_leaf: $out"
echo "$out"
echo "$out" | grep -q "map_files" || fail "safe path is not the map_files link: $out"
exit 0
