#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Test wrapper (automake LOG_COMPILER): runs one test. A test that cannot
# run here (no root, no BPF, a missing tool) exits 77 with the reason on
# stderr; under KPTOP_REQUIRE_BPF=1 (as .ci/run sets) that skip is a failure.
"$@"
rc=$?
# 78 (tests/lib.sh skip_absent): what a machine may lack and the setup
# script does not install; a skip everywhere.
[ "$rc" -eq 78 ] && exit 77
if [ "$rc" -eq 77 ] && [ "${KPTOP_REQUIRE_BPF:-0}" = 1 ]; then
	echo "FAIL: $* skipped (exit 77) but KPTOP_REQUIRE_BPF=1 requires it to run" >&2
	exit 1
fi
exit "$rc"
