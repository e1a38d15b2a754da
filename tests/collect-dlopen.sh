#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A library dlopen'ed after collection started: its mapping arrives as an
# MMAP record and the samples taken in it fall inside that mapping, at
# offsets inside its kp_spin symbol.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collect-lib.sh"
require_collect

lib=$(realpath "$top_builddir/tests/workload/libkpspin.so")
"$PROBE" -F 999 -d 0 -- "$top_builddir/tests/workload/dlopen-host" "$lib" 0.3 1.0 \
	>"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "probe failed"; }
check_invariant "$T/out"
grep -q "^M .* path=$lib\$" "$T/out" || fail "no MMAP record for $lib"
nm -S --defined-only "$lib" | awk '$4 == "kp_spin"' >"$T/nm"
[ -s "$T/nm" ] || fail "kp_spin not in nm of $lib"
awk -v lib="$lib" "$AWK_HEX"'
FNR == NR { lo = hex($1); hi = lo + hex($2); next }
/^S / && / comm=dlopen-host / {
	n++;
	u = $NF; sub(/^u=/, "", u); split(u, fr, ";");
	p = index(fr[1], "+0x");
	if (substr(fr[1], 1, p - 1) == lib) {
		off = hex(substr(fr[1], p + 1));
		if (off >= lo && off < hi) in_spin++;
	}
}
END {
	printf "%d samples of dlopen-host, %d in kp_spin of the dlopened library\n", n, in_spin;
	exit !(in_spin >= 100 && in_spin >= 0.8 * n);
}' "$T/nm" "$T/out" || fail "samples not resolved to the dlopened library"
