#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The known-split workload sampled for 2000 rounds (~2 s of CPU; fixed
# work, so a loaded machine only makes it slower): hot_a/hot_b/hot_c within 5
# points of 50/30/20 (attributed by the user leaf IP against nm ranges),
# and the full chain main -> run_rounds -> do_round -> level1 -> level2 ->
# level3 -> hot_X seen in (nearly) every sample of the hot functions.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collect-lib.sh"
require_collect

# 4999 Hz: a round lasts about 1 ms, and at 999 Hz the sampling timer can
# phase-lock with it on a virtual machine (perf record gave 54/24/22 too)
cp "$SPLIT" "$T/kp-split"	# a comm and path of its own on a shared machine
bin=$T/kp-split
"$PROBE" -F 4999 -d 0 -- "$bin" --rounds 2000 >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "probe failed"; }
check_invariant "$T/out"
nm -S --defined-only "$bin" | awk '$3 ~ /^[Tt]$/' >"$T/nm"

awk -v bin="$bin" "$AWK_HEX"'
function sym(off,   i) {
	for (i = 0; i < n; i++)
		if (off >= lo[i] && off < hi[i])
			return name[i];
	return "?";
}
FNR == NR { lo[n] = hex($1); hi[n] = lo[n] + hex($2); name[n++] = $4; next }
/^S / && / comm=kp-split / {
	u = $NF; sub(/^u=/, "", u);
	nf = split(u, fr, ";");
	chain = "";
	for (i = 1; i <= nf; i++) {
		p = index(fr[i], "+0x");
		if (substr(fr[i], 1, p - 1) != bin) { chain = chain " ?"; continue; }
		off = hex(substr(fr[i], p + 1));
		chain = chain " " sym(i == 1 ? off : off - 1);
	}
	sub(/^ finish /, " ", chain);	# a tick inside finish(): its caller counts
	split(chain, s, " ");
	if (s[1] !~ /^hot_[abc]$/)
		next;
	hot[s[1]]++; total++;
	if (s[2] == "level3" && s[3] == "level2" && s[4] == "level1" && s[5] == "do_round" &&
	    s[6] == "run_rounds" && s[7] == "main")
		full[s[1]]++;
}
END {
	if (total < 1000) { printf "only %d hot samples\n", total; exit 1 }
	bad = 0;
	split("hot_a 50 hot_b 30 hot_c 20", e, " ");
	for (i = 1; i <= 6; i += 2) {
		pct = 100 * hot[e[i]] / total;
		printf "%s %.1f%% (want %d%%), full chain in %d of %d\n", e[i], pct, e[i + 1], full[e[i]], hot[e[i]];
		if (pct < e[i + 1] - 5 || pct > e[i + 1] + 5) bad = 1;
		if (full[e[i]] < 0.9 * hot[e[i]]) bad = 1;
	}
	exit bad;
}' "$T/nm" "$T/out" || fail "split or call chains wrong"
