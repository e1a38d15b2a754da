/* SPDX-License-Identifier: GPL-2.0-only */
/* buildid.h — the GNU build ID of a binary on disk or of the running
 * kernel, for reports whose mappings came without one (a process that
 * started before kptop is known from /proc/PID/maps, which has none).
 *
 * Who calls it: src/main/kptop.c, for the pprof report's mappings (and
 * their link-time addresses, for go tool pprof -disasm).
 * Pure lookups: kp_buildid__notes parses a buffer; the others open one
 * file read-only (never following a link in the last component, never
 * blocking on a FIFO, regular files only), read its notes and close it.
 * They never print, cache or keep anything.
 *
 * Errors: 0, or a negative errno; -KP_ENOSYM when the file has no
 * GNU build-ID note; -KP_EFORMAT for a malformed note.
 */
#ifndef KP_SYMBOLS_BUILDID_H
#define KP_SYMBOLS_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define KP_BUILDID_MAX 20	/* bytes: SHA-1, the longest in use */

/* The NT_GNU_BUILD_ID note in buf[0..n), a sequence of ELF notes (as
 * /sys/kernel/notes holds: 4-byte aligned, host byte order). */
int kp_buildid__notes(const uint8_t *buf, size_t n, uint8_t *out, uint8_t *len);

/* The build ID of the ELF file at path (its note sections or segments). */
int kp_buildid__file(const char *path, uint8_t *out, uint8_t *len);

/* pprof's link-time addresses: the bias (link-time address minus file
 * offset) of the PT_LOAD segment of the ELF file at path whose pages
 * hold file offset off (a mapping's offset). -KP_ENOSYM when none. */
int kp_buildid__file_bias(const char *path, uint64_t off, uint64_t *bias);

/* The running kernel's, from /sys/kernel/notes. */
int kp_buildid__kernel(uint8_t *out, uint8_t *len);

#endif /* KP_SYMBOLS_BUILDID_H */
