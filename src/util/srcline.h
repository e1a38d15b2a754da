/* SPDX-License-Identifier: GPL-2.0-only */
/* srcline.h — the text of source lines, for annotate (the batch text and
 * the live screen), read only from files any user could read.
 *
 * Owns: a small cache of source files (their lines), up to
 * KP_SRCLINE_FILES files of at most KP_SRCLINE_MAX_BYTES each, the least
 * recently used dropped first.
 *
 * Safety: kptop runs as root and the file names come from the DWARF of
 * binaries other users may have built: a file is read only when it is a
 * regular file that every user may read (mode o+r) behind directories
 * every user may search (o+x), its last component no symbolic link. So
 * annotate never shows a line its owner could not have. The checks and
 * the read race with a user changing the directories meanwhile; what it
 * shows then was world-readable a moment before.
 *
 * Who calls it: src/report/annotate.c, src/tui/annotate.c. Errors: a line
 * that cannot be had is NULL. Not thread-safe.
 */
#ifndef KP_UTIL_SRCLINE_H
#define KP_UTIL_SRCLINE_H

#include <stdint.h>

#define KP_SRCLINE_FILES 16
#define KP_SRCLINE_MAX_BYTES (8u << 20)

struct kp_srclines;

struct kp_srclines *kp_srclines__new(void);	/* NULL with errno */
void kp_srclines__free(struct kp_srclines *s);

/* Line `line` (1-based) of file path, without its newline, tabs as they
 * are; NULL when the file cannot be read (or must not be) or is shorter.
 * Valid until the next call. */
const char *kp_srclines__get(struct kp_srclines *s, const char *path, uint32_t line);

#endif /* KP_UTIL_SRCLINE_H */
