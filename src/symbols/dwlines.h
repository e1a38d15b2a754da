/* SPDX-License-Identifier: GPL-2.0-only */
/* dwlines.h — per compilation unit, a compact copy of the line table
 * and of the file names it refers to.
 *
 * libdw keeps a CU's line table, once read, until dwarf_end: some 50
 * bytes a row, 30 MB for a libpython built with -g (620,000 rows). The
 * copy holds 12 bytes a row and the CU's file names, read through a
 * Dwarf of its own that is ended once the copy is made, so libdw keeps
 * no line table, and a CU is read once, however often the module's
 * DWARF is begun again. Lookups answer as dwarf_getsrc_die and
 * dwarf_linesrc / dwarf_lineno would (tests/test-dwlines checks every
 * row of real binaries against them).
 *
 * Owns: the copies of the CUs asked about (freed with it). Who calls it:
 * dwarfsrc.c, one per module (module.c keeps it, across ends of libdw's
 * state). Never does I/O beyond libdw's reads of the Dwarf it is given.
 * Errors: -ENOMEM (dwarfsrc.c then gives no line: libdw's names would
 * not outlive its state); a CU whose table cannot be copied (it has
 * none, or spans 4 GiB) has no lines here, as it would have none in
 * libdw. Not thread-safe.
 */
#ifndef KP_SYMBOLS_DWLINES_H
#define KP_SYMBOLS_DWLINES_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

struct kp_dw_lines;

struct kp_dw_lines *kp_dw_lines__new(void);
void kp_dw_lines__free(struct kp_dw_lines *x);
size_t kp_dw_lines__bytes(const struct kp_dw_lines *x);

/* 1 if cudie's CU is copied already (x may be NULL: 0). */
int kp_dw_lines__has(const struct kp_dw_lines *x, Dwarf_Die *cudie);

/* The row of cudie's CU that covers the link-time address vaddr (the
 * last at or before it, not an end of sequence), copying the CU's table
 * on its first use: *file (NULL if unnamed) and *line (0 if unknown).
 * 0, -ENOENT when no row covers it, or -ENOMEM. *file stays valid
 * until x is freed. */
int kp_dw_lines__at(struct kp_dw_lines *x, Dwarf_Die *cudie, uint64_t vaddr,
		    const char **file, uint32_t *line);

/* Name idx of cudie's CU's file table (a DW_AT_call_file), copying the
 * CU on first use; NULL when it has none or on error. */
const char *kp_dw_lines__file(struct kp_dw_lines *x, Dwarf_Die *cudie, uint64_t idx);

#endif /* KP_SYMBOLS_DWLINES_H */
