#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# collect-idle.sh — a sample of the idle task halted in the idle loop
# keeps only the halting address as its kernel stack (the loop's stack
# never changes; walking it was most of such a sample's cost): with
# --idle, the idle task's samples show that one frame, named. Needs root
# and BPF.
. "$top_srcdir/tests/lib.sh"
require_bpf
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$KPTOP" --batch --idle -F 4999 -d 3 --format folded -o "$T/folded" 2>"$T/err" ||
	fail "kptop failed: $(cat "$T/err")"
idle=$(grep -c '^swapper' "$T/folded")
[ "$idle" -gt 0 ] || fail "no idle samples in 3 s at 4999 Hz: $(head -3 "$T/folded")"
one=$(grep -E '^swapper[^;]*;[^;]+_\[k\] [0-9]+$' "$T/folded" | sort -t' ' -k2 -nr | head -1)
[ -n "$one" ] || fail "no idle sample with the halting address alone: $(grep '^swapper' "$T/folded" | sort -t' ' -k2 -nr | head -2)"
echo "idle: $one"
echo ok
