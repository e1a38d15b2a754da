#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay the jitdump reader's seed corpus (fuzz/corpus/jitdump, made by
# fuzz/jitdump-seeds.py) through fuzz/fuzz-jitdump.c linked with
# fuzz/replay.c.
. "$top_srcdir/tests/lib.sh"
exec sh "$top_srcdir/tests/fuzz-replay.sh" "$top_builddir/fuzz/fuzz-jitdump-replay" \
	"$top_srcdir/fuzz/corpus/jitdump"
