/* SPDX-License-Identifier: GPL-2.0-only */
/* dwcache.h — a persistent cache of inflated DWARF, keyed by build ID:
 * what kptop pays at every start for a module whose debug sections are
 * compressed (libc6-dbg's libc: some 70 ms of zlib as its DWARF begins)
 * it pays once. The first time, the module's debug sections, inflated
 * as libdw begins them, are written to DIR/HEXID.debug (an ELF file of
 * those sections and the build-ID note); later, that file is mapped and
 * libdw begins on it with nothing to inflate.
 *
 * Owns: the cache directory (its descriptor, opened once after the
 * checks of util/safedir.h: kptop's own, mode 0700, every directory on
 * the way root's or kptop's; marked with a CACHEDIR.TAG), the files in
 * it, and their bound: past max_bytes the least recently used files go
 * (a file's mtime is its last use, set as it is opened). Two kptops may
 * share it: a file is written to a temporary name and renamed into
 * place whole, and a file one of them removes stays readable by the
 * other that has it open.
 *
 * Who calls it: symbols.c (construction), module.c (open and store);
 * tests. Never follows a link inside the directory, never uses a file
 * that is not a regular file of kptop's user with the build ID asked
 * for, never prints. Errors: 0 or -errno; the constructor NULL with
 * errno and a message. Not thread-safe (one kp_symbols' thread).
 */
#ifndef KP_SYMBOLS_DWCACHE_H
#define KP_SYMBOLS_DWCACHE_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "util/kp_err.h"

#define KP_DWCACHE_DEFAULT_MAX (256ull << 20)

struct kp_dwcache_stats {
	uint64_t hits;		/* cached DWARF used */
	uint64_t stored;	/* files written */
	uint64_t evicted;	/* files removed for the bound */
	uint64_t failed;	/* a file refused, or a write that failed */
	uint64_t bytes;		/* the files' size after the last scan */
};

struct kp_dwcache;

/* The cache in directory dir (made if missing, checked: util/safedir.h),
 * holding at most max_bytes (0: KP_DWCACHE_DEFAULT_MAX); files bigger
 * than max_file are neither written nor read. */
struct kp_dwcache *kp_dwcache__new(const char *dir, uint64_t max_bytes,
				   uint64_t max_file, struct kp_err *err);
void kp_dwcache__free(struct kp_dwcache *c);

/* kptop's directory: /var/cache/kptop/dwarf for root, else
 * $XDG_CACHE_HOME/kptop/dwarf or ~/.cache/kptop/dwarf. 0 or -errno. */
int kp_dwcache__default_dir(char *buf, size_t len);

/* 1 when elf has compressed debug sections (SHF_COMPRESSED or .zdebug):
 * worth a cached copy. */
int kp_dwcache__worth(Elf *elf);

/* The cached DWARF of build ID id[0..len), checked (a regular file of
 * ours, not a link, within max_file, an ELF file with that build ID),
 * marked used: an Elf (ELF_C_READ_MMAP) with its fd in *fd, both the
 * caller's (elf_end, close). NULL when there is none or it is refused
 * (counted in failed). */
Elf *kp_dwcache__open(struct kp_dwcache *c, const uint8_t *id, size_t len,
		      int *fd);

/* Write the debug sections of elf (inflated now if libdw did not yet)
 * and its build-ID note as the cached DWARF of id, then keep the
 * directory within its bound. 0 or -errno (counted in failed). */
int kp_dwcache__store(struct kp_dwcache *c, Elf *elf, const uint8_t *id,
		      size_t len);

void kp_dwcache__stats(const struct kp_dwcache *c, struct kp_dwcache_stats *out);

#endif /* KP_SYMBOLS_DWCACHE_H */
