# SPDX-License-Identifier: GPL-2.0-only
# offcpu-lib.sh — the off-CPU workload for the batch off-CPU tests
# (sourced after lib.sh, once their own tools are checked): root + BPF,
# tests/workload/offcpu, a temp dir $T removed at exit with the
# workload. start_offcpu SECS starts it (its pid in $WPID; its threads'
# tids in $T/tids, "TIDS spinner=N piper=N ...").
require_bpf
W="$top_builddir/tests/workload/offcpu"
[ -x "$W" ] || fail "workload not built: $W"
T=$(mktemp -d) || fail "mktemp"
WPID=
cleanup() {
	[ -n "$WPID" ] && kill "$WPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

start_offcpu() {
	"$W" "$1" >"$T/tids" 2>&1 &
	WPID=$!
	sleep 0.3
}
