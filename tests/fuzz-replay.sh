#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fuzz-replay.sh BINARY CORPUSDIR... — replay a fuzz target's seed corpus.
# BINARY is a fuzz target linked with fuzz/replay.c (fuzz/NAME-replay);
# every file of each CORPUSDIR goes through it once. Fails when the binary
# is missing, a corpus directory is missing or empty, or an input crashes
# the target, or when the replay takes more than 60 s (a hang fails
# rather than wedges make check). Used by make check through a two-line
# tests/fuzz-NAME.sh.
[ $# -ge 2 ] || { echo "usage: $0 BINARY CORPUSDIR..." >&2; exit 2; }
bin=$1
shift
[ -x "$bin" ] || { echo "FAIL: fuzz replay binary not built: $bin" >&2; exit 1; }
for dir in "$@"; do
	[ -d "$dir" ] || { echo "FAIL: no corpus directory $dir" >&2; exit 1; }
	[ -n "$(ls -A "$dir")" ] || { echo "FAIL: corpus $dir is empty" >&2; exit 1; }
done
timeout 60 "$bin" "$@"
rc=$?
[ $rc -ne 124 ] || echo "FAIL: $bin did not finish its corpus in 60 s" >&2
exit $rc
