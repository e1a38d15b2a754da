#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Test wrapper (automake LOG_COMPILER): runs one test. A test that cannot
# run here (no root, no BPF, a missing tool) exits 77 with the reason on
# stderr; under KPTOP_REQUIRE_BPF=1 (as .ci/run sets) that skip is a failure.
"$@"
rc=$?
if [ "$rc" -eq 77 ] && [ "${KPTOP_REQUIRE_BPF:-0}" = 1 ]; then
	echo "FAIL: $* skipped (exit 77) but KPTOP_REQUIRE_BPF=1 requires it to run" >&2
	exit 1
fi
exit "$rc"
