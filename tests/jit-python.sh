#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# jit-python.sh — CPython 3.12 or newer with -X perf (its trampolines in a
# perf map, "py::name:file"): py_hot_leaf reached through py_mid and
# py_outer, named (the function, module [jit:python]) with its callers
# whole in at least 95% of its samples in auto mode. Skipped where no
# Python 3.12 or newer is installed (Debian 12 ships 3.11); never a
# pyenv shim.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/unwind-lib.sh"
require_bpf
PY=
for v in 3.14 3.13 3.12; do
	for d in /usr/bin /usr/local/bin; do
		[ -z "$PY" ] && [ -x "$d/python$v" ] && PY=$d/python$v
	done
done
[ -n "$PY" ] || skip_absent "no Python 3.12 or newer in /usr/bin or /usr/local/bin (Debian 12 ships 3.11)"
T=$(mktemp -d) || fail mktemp
wl_pid=
trap 'kill $wl_pid 2>/dev/null; wait $wl_pid 2>/dev/null; rm -rf "$T"; rm -f /tmp/perf-$wl_pid.map' EXIT
cat >"$T/hot.py" <<'EOF2'
import os, sys, time
def py_hot_leaf(n):
    x = 0
    for i in range(n):
        x = (x * 31 + i) & 0xffffffff
    return x
def py_mid(n):
    return py_hot_leaf(n) + 1
def py_outer(n):
    return py_mid(n) + 1
print("ready", os.getpid(), flush=True)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    py_outer(20000)
EOF2
"$PY" -X perf "$T/hot.py" 20 >"$T/py.out" 2>&1 &
wl_pid=$!
n=100
until grep -q '^ready' "$T/py.out"; do
	n=$((n - 1))
	[ "$n" -gt 0 ] || fail "python did not start: $(cat "$T/py.out")"
	sleep 0.1
done
run_profiler "$T/f" auto "$wl_pid" 4
set -- $(frames_of "$T/f" | awk '
	{
		at = 0;
		for (i = 2; i <= NF; i++) if ($i == "py_hot_leaf_") at = i;
		if (!at) next;
		h += $1;
		for (i = at - 1; i > 1 && $i != "py_mid_"; i--) ;
		for (j = i - 1; j > 1 && $j != "py_outer_"; j--) ;
		if (i > 1 && j > 1) w += $1;
	}
	END { printf "%d %d\n", h, w }')
echo "python -X perf: py_hot_leaf samples $1, with py_mid and py_outer above $2"
[ "$1" -ge 200 ] || { head -5 "$T/f"; fail "py_hot_leaf not named in enough samples ($1)"; }
[ $(($2 * 100)) -ge $(($1 * 95)) ] || { grep py_hot "$T/f" | head -5; fail "whole chains in $2 of $1 samples"; }
exit 0
