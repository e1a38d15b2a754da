#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay the push spool parser's seed corpus (fuzz/corpus/spool) through
# fuzz/fuzz-spool.c linked with fuzz/replay.c.
. "$top_srcdir/tests/lib.sh"
exec sh "$top_srcdir/tests/fuzz-replay.sh" "$top_builddir/fuzz/fuzz-spool-replay" \
	"$top_srcdir/fuzz/corpus/spool"
