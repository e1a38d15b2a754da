/* SPDX-License-Identifier: GPL-2.0-only */
/* debuginfo.h — finding and checking separate debug information for a
 * binary: the build-id path, .gnu_debuglink (CRC checked) and
 * MiniDebugInfo (.gnu_debugdata, xz).
 *
 * Search order: DIR/.build-id/xx/rest.debug for each debug dir (host);
 * then the debuglink name next to the binary, in its .debug/ (both inside
 * the process's root), and DIR/<binary's dir>/name (host). The debuglink
 * name must be a plain file name (no '/', not "." or ".."). A candidate is
 * used only if it is a regular file under the size cap, an ELF file, and
 * its build-id equals the binary's (when the binary has one; a mismatch is
 * rejected and counted); debuglink candidates must also match the CRC.
 *
 * Returns a file descriptor the caller closes, or -errno / -KP_EBUILDID.
 * Stateless; thread-safe.
 */
#ifndef KP_SYMBOLS_DEBUGINFO_H
#define KP_SYMBOLS_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/elfread.h"

struct kp_debug_query {
	const char *const *debug_dirs;	/* NULL-terminated */
	const char *proc_root;
	uint32_t pid;			/* 0: the binary is on the host */
	const char *bin_path;		/* as the process sees it */
	const struct kp_elf_info *bin;	/* build-id and debuglink */
	uint64_t max_size;		/* bytes; larger files are refused */
	int build_id_only;		/* 1: the build-id path alone (cheap) */
};

struct kp_debug_result {
	int fd;				/* >= 0 when found */
	int via;			/* KP_DEBUG_VIA_* */
	unsigned rejected;		/* candidates refused (mismatch, CRC) */
};
#define KP_DEBUG_VIA_BUILD_ID 1
#define KP_DEBUG_VIA_DEBUGLINK 2

/* 0 with r->fd >= 0, or -ENOENT when nothing usable was found. */
int kp_debug__find(const struct kp_debug_query *q, struct kp_debug_result *r);

/* Is fd a debug file we may use for binary bin (a file found elsewhere,
 * such as fetched from a debuginfod server): a regular file of at most
 * max_size bytes, an ELF file, with bin's build-id. 0, -EINVAL,
 * -KP_EFORMAT or -KP_EBUILDID. */
int kp_debug__check(int fd, const struct kp_elf_info *bin, uint64_t max_size);

/* The CRC-32 of .gnu_debuglink over fd's first max bytes (the whole file
 * must fit): 0 or -EFBIG / -errno. */
int kp_debug__crc32(int fd, uint64_t max, uint32_t *crc);

/* Decompress MiniDebugInfo (an xz stream) into a malloc'd buffer of at
 * most cap bytes: 0, -E2BIG past the cap, -KP_EFORMAT if not xz. */
int kp_debug__unxz(const void *in, size_t len, size_t cap, void **out,
		   size_t *out_len);

#endif /* KP_SYMBOLS_DEBUGINFO_H */
