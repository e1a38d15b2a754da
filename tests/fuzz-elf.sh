#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Replay the ELF reader's seed corpus (fuzz/corpus/elf) through
# fuzz/fuzz-elf.c linked with fuzz/replay.c.
. "$top_srcdir/tests/lib.sh"
exec sh "$top_srcdir/tests/fuzz-replay.sh" "$top_builddir/fuzz/fuzz-elf-replay" \
	"$top_srcdir/fuzz/corpus/elf"
