#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay the stream decoder's seed corpus (fuzz/corpus/stream) through
# fuzz/fuzz-stream.c linked with fuzz/replay.c.
. "$top_srcdir/tests/lib.sh"
exec sh "$top_srcdir/tests/fuzz-replay.sh" "$top_builddir/fuzz/fuzz-stream-replay" \
	"$top_srcdir/fuzz/corpus/stream"
