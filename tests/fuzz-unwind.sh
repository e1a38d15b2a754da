#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay the unwinder's seed corpus (fuzz/corpus/unwind: the first sample
# of each tests/unwind-data snapshot with its binary's CFI, made by
# fuzz/unwind-seeds.py) through fuzz/fuzz-unwind.c linked with
# fuzz/replay.c.
. "$top_srcdir/tests/lib.sh"
exec sh "$top_srcdir/tests/fuzz-replay.sh" "$top_builddir/fuzz/fuzz-unwind-replay" \
	"$top_srcdir/fuzz/corpus/unwind"
