#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay the Python code object reader's seed corpus (fuzz/corpus/pycode)
# through fuzz/fuzz-pycode.c linked with fuzz/replay.c.
. "$top_srcdir/tests/lib.sh"
exec sh "$top_srcdir/tests/fuzz-replay.sh" "$top_builddir/fuzz/fuzz-pycode-replay" \
	"$top_srcdir/fuzz/corpus/pycode"
