#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Without the rights (an unprivileged user, no capabilities) the collector
# refuses with one line naming what is missing; a frequency over
# kernel.perf_event_max_sample_rate is refused with a clear message.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collect-lib.sh"
require_collect
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"

rc=0
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$PROBE" -d 0.1 >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 3 ] || { cat "$T/err" >&2; fail "unprivileged run: exit $rc, want 3 (KP_ENOBPF/KP_ENOPERF)"; }
[ "$(wc -l <"$T/err")" = 1 ] || fail "want one line of error, got: $(cat "$T/err")"
grep -q "CAP_BPF" "$T/err" && grep -q "root" "$T/err" || fail "message does not name root / CAP_BPF: $(cat "$T/err")"

max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
rc=0
"$PROBE" -F $((max + 1)) -d 0.1 >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" != 0 ] || fail "-F $((max + 1)) accepted over perf_event_max_sample_rate=$max"
grep -q "perf_event_max_sample_rate" "$T/err" || fail "no clear message for -F over the limit: $(cat "$T/err")"
