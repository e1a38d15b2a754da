#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# python-versions.sh — the 50/30/20 split of tests/python-split.sh under
# the other CPython versions kptop reads (3.8, 3.9, 3.10, 3.12, 3.13),
# where they are on the machine (pyenv's builds under /root/.pyenv or
# $PYENV_ROOT, by their own path: never a pyenv shim); and a version it
# cannot read (3.7):
# counted, named once on standard error, its native stacks kept. A version
# not found is said on stderr, and the test skips when none is.
. "$top_srcdir/tests/lib.sh"
require_bpf
CHECK="/usr/bin/python3 $top_srcdir/tests/python-check.py"
WL="$top_srcdir/tests/workload/py-split.py"
T=$(mktemp -d) || fail mktemp
P=
trap 'kill $P 2>/dev/null; rm -rf "$T"' EXIT
n=0
for v in 3.8 3.9 3.10 3.12 3.13; do
	py=$(ls "${PYENV_ROOT:-/root/.pyenv}"/versions/$v.*/bin/python$v 2>/dev/null | head -1)
	if [ -z "$py" ] || [ ! -x "$py" ]; then
		echo "python-versions: no python$v here (pyenv): not tested" >&2
		continue
	fi
	# the split the workload measures of itself is what the profile must show
	SPLIT_TRUTH="$T/$v.truth" "$py" "$WL" 9 2 & P=$!
	sleep 1
	"$KPTOP" --batch --format speedscope -o "$T/$v.json" -F 999 -d 6 -p "$P" \
		2>"$T/err" || fail "kptop ($py): $(tail -3 "$T/err")"
	SPLIT_TRUTH="$T/$v.truth" $CHECK "$v" "$T/$v.json" "$P" || fail "python$v ($py)"
	wait "$P"
	P=
	n=$((n + 1))
done
py=$(ls "${PYENV_ROOT:-/root/.pyenv}"/versions/3.7.*/bin/python3.7 2>/dev/null | head -1)
if [ -n "$py" ] && [ -x "$py" ]; then
	"$py" "$WL" 5 2 & P=$!
	sleep 1
	"$KPTOP" --batch --format text -o "$T/3.7.txt" -F 999 -d 2 -p "$P" 2>"$T/err" ||
		fail "kptop ($py): $(tail -3 "$T/err")"
	# (other Python processes on the machine may be counted too)
	grep -q '^python: processes [0-9]*, samples merged 0, .*unknown-version [1-9][0-9]* (3.7 or older)$' \
		"$T/3.7.txt" || fail "3.7: $(grep '^python:' "$T/3.7.txt")"
	grep -q '^kptop: [0-9]* Python process.* of a version kptop cannot read (3.7 or older)' \
		"$T/err" || fail "3.7: not said on stderr: $(cat "$T/err")"
	grep -q '_PyEval_EvalFrameDefault' "$T/3.7.txt" || fail "3.7: its native stacks are not shown"
	echo "python-versions: 3.7 counted as unknown, its native stacks shown" >&2
	wait "$P"
	P=
	n=$((n + 1))
else
	echo "python-versions: no python3.7 here (pyenv): an unknown version not tested" >&2
fi
[ "$n" -gt 0 ] || skip_absent "no python3.7 to 3.13 but 3.11 (pyenv) on this machine"
exit 0
