# SPDX-License-Identifier: GPL-2.0-only
# collect-lib.sh — helpers of the collector's shell tests (sourced after
# tests/lib.sh). The tests drive the collector through tests/collect-probe.
PROBE="$top_builddir/tests/collect-probe"
SPLIT="$top_builddir/tests/workload/split-fp"

# require_collect: root, BTF and the probe; no kptop binary needed.
require_collect() {
	[ "$(id -u)" = 0 ] || skip "needs root (BPF programs and system-wide perf events)"
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"
	[ -x "$PROBE" ] || fail "collect-probe not built: $PROBE"
	T=$(mktemp -d "${TMPDIR:-/tmp}/kptop-collect.XXXXXX") || fail "mktemp"
	trap 'rm -rf "$T"' EXIT
}

# field NAME LINE...: the value of NAME=VALUE in the lines on stdin.
field() { sed -n "s/.*[ ^]$1=\([^ ]*\).*/\1/p"; }

# check_invariant FILE [TAG]: the probe's INVARIANT line says ok.
check_invariant() {
	grep -q "^INVARIANT${2:-} ok" "$1" || {
		grep -E "^(STATS|INVARIANT)" "$1" >&2
		fail "taken != delivered + drops + queued ($1)"
	}
}

# An awk function for hex numbers (mawk has no strtonum): prepend to a
# program as awk "$AWK_HEX"'...'.
AWK_HEX='function hex(s,   i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0;
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1;
	return v }
'
