#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# jit-python.sh — CPython 3.12 or newer with -X perf (issue 23): its
# trampolines, frameless generated code named by a perf map
# ("py::name:file"), stepped by their instructions. py_hot_leaf reached
# through py_mid and py_outer:
# - the native stacks (--native-python), auto and dwarf modes: the
#   trampolines py_hot_leaf, py_mid and py_outer ([jit:python]) in that
#   order above each other in at least 95% of py_hot_leaf's samples;
# - the default view: "py_outer;py_mid;py_hot_leaf" with no trampoline
#   left between them, in at least 95% of py_hot_leaf's samples;
# - each saved with -w and read back with -i once the process is gone:
#   the live report byte for byte (the trampolines' code rides in the
#   file's CODE records).
# The newest Python 3.12+ in /usr/bin, /usr/local/bin or pyenv's
# versions (its own path, never a shim); skipped where there is none
# (Debian 12 ships 3.11).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/unwind-lib.sh"
require_bpf
PY=
for v in 3.14 3.13 3.12; do
	for p in /usr/bin/python$v /usr/local/bin/python$v \
		"${PYENV_ROOT:-/root/.pyenv}"/versions/$v*/bin/python$v; do
		[ -z "$PY" ] && [ -x "$p" ] && PY=$p
	done
done
[ -n "$PY" ] || skip_absent "no Python 3.12 or newer in /usr/bin, /usr/local/bin or pyenv (Debian 12 ships 3.11)"
echo "jit-python: $PY"
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
"$PY" -X perf "$T/hot.py" 16 >"$T/py.out" 2>&1 &
wl_pid=$!
wait_ready "$T/py.out" "python" 100

# whole LEAF MID OUTER FILE: LEAF's samples, and those with MID and OUTER
# above it (trampolines may lie between).
whole() { chain_counts "$4" "$1" "$2" "$3" gaps; }
check() {	# WHAT SAMPLES WHOLE FILE
	echo "$1: py_hot_leaf samples $2, whole $3"
	[ "$2" -ge 200 ] || { head -5 "$4"; fail "$1: py_hot_leaf in only $2 samples"; }
	[ $(($3 * 100)) -ge $(($2 * 95)) ] ||
		{ grep py_hot "$4" | head -3 | cut -c1-500; fail "$1: whole chains in $3 of $2 samples"; }
}

# run NAME [KPTOP OPTIONS]: 3 s of pid wl_pid, folded, saved
run() {
	name=$1
	shift
	"$KPTOP" --batch --format folded -o "$T/$name" -F 999 -d 3 -p "$wl_pid" \
		-w "$T/$name.kps" "$@" 2>"$T/$name.err" ||
		fail "kptop $*: exit $?: $(tail -3 "$T/$name.err")"
}
run native-auto --unwind auto --native-python
run native-dwarf --unwind dwarf --native-python
run merged --unwind auto
for m in auto dwarf; do
	check "native ($m)" $(whole py_hot_leaf_ py_mid_ py_outer_ "$T/native-$m") "$T/native-$m"
done
# merged: the Python functions next to each other
set -- $(frames_of "$T/merged" | awk '
	{
		at = 0;
		for (i = 2; i <= NF; i++) if ($i == "py_hot_leaf") at = i;
		if (!at) next;
		h += $1;
		if (at > 3 && $(at - 1) == "py_mid" && $(at - 2) == "py_outer") w += $1;
	}
	END { printf "%d %d\n", h, w }')
check "merged" "$1" "$2" "$T/merged"

# Read back once the process is gone.
kill "$wl_pid"
wait "$wl_pid" 2>/dev/null
for name in native-auto native-dwarf merged; do
	opt=
	case $name in native-*) opt=--native-python ;; esac
	"$KPTOP" -i "$T/$name.kps" --batch --format folded -o "$T/$name.replay" $opt \
		2>"$T/err" || fail "kptop -i ($name): $(tail -3 "$T/err")"
	cmp -s "$T/$name" "$T/$name.replay" ||
		fail "$name: the replay is not the live report: $(diff "$T/$name" "$T/$name.replay" | head -4 | cut -c1-300)"
	echo "$name: the replay is the live report"
done
exit 0
