# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the shell tests (sourced). Each test sources this file.
# skip REASON: exit 77 with the reason (run-sh.sh turns it into a failure
# under KPTOP_REQUIRE_BPF=1).
skip() { echo "SKIP: $*" >&2; exit 77; }
# skip_absent REASON: the test needs what a machine may well lack and the
# setup script does not install (a Python 3.12, say): exit 78, which
# run-sh.sh reports as a skip (77) even under KPTOP_REQUIRE_BPF=1.
skip_absent() { echo "SKIP (absent here): $*" >&2; exit 78; }
# No test reaches out to a debuginfod server but one it starts itself.
unset DEBUGINFOD_URLS
fail() { echo "FAIL: $*" >&2; exit 1; }
# wait_ready FILE WHAT [TENTHS]: wait, up to TENTHS tenths of a second
# (default 50), for the line "ready ..." a workload prints to FILE; fail
# naming WHAT, with what FILE says, when none comes.
wait_ready() {
	_wr_n=${3:-50}
	until grep -q '^ready' "$1"; do
		_wr_n=$((_wr_n - 1))
		[ "$_wr_n" -gt 0 ] || fail "$2 did not start: $(cat "$1")"
		sleep 0.1
	done
}

# require_bpf: skip unless we are root on a machine where BPF and perf
# events can be used.
require_bpf() {
	[ "$(id -u)" = 0 ] || skip "needs root (BPF programs and system-wide perf events)"
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"
	[ -x "${KPTOP:-}" ] || fail "kptop binary not built: ${KPTOP:-unset}"
}
