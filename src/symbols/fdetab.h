/* SPDX-License-Identifier: GPL-2.0-only */
/* fdetab.h — where the functions of an ELF file start and end, as its
 * .eh_frame says: compilers emit one FDE per function (per part of one:
 * a .cold part has its own), and `strip` keeps them, since unwinding
 * needs them. The last resort for code no symbol and no DWARF names:
 * its addresses are grouped by the function that holds them.
 *
 * Owns: a sorted array of [start, end) link-time address ranges, 16
 * bytes each, made once by kp_fdetab__new; nothing of the Elf is kept.
 *
 * Reads: the .eh_frame section (by name), else the one the
 * PT_GNU_EH_FRAME segment's .eh_frame_hdr points to (to the end of the
 * PT_LOAD holding it); records through util/cfi-rec.h, every length,
 * pointer and CIE checked. A table is refused whole (left empty) when a
 * record is malformed, the file is not little-endian, or it has more
 * than KP_FDETAB_MAX FDEs. An FDE is left out when its range is empty
 * or wraps, its address encoding is not absolute or pc-relative (the
 * others are relative to bases not known here), or it does not start in
 * an executable PT_LOAD; a range is cut at that segment's end and at the
 * next FDE's start (overlaps: never two functions for one address).
 *
 * Who calls it: module.c, on the first address no name covers; tests;
 * the fuzz target through the module. Never: DWARF, files, unwind.
 * Errors: constructor NULL with errno (ENOMEM only: a file without a
 * usable .eh_frame gives an empty table). Not thread-safe.
 */
#ifndef KP_SYMBOLS_FDETAB_H
#define KP_SYMBOLS_FDETAB_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "symbols/elfread.h"

#define KP_FDETAB_MAX (1u << 20)	/* FDEs: a table of at most 16 MiB */

struct kp_fdetab;

/* The table of elf, whose headers info holds (kp_elf__info). */
struct kp_fdetab *kp_fdetab__new(Elf *elf, const struct kp_elf_info *info);
void kp_fdetab__free(struct kp_fdetab *t);

/* 1 with *start the link-time address where the FDE holding vaddr
 * starts, 0 when none does. */
int kp_fdetab__lookup(const struct kp_fdetab *t, uint64_t vaddr, uint64_t *start);

size_t kp_fdetab__count(const struct kp_fdetab *t);
/* Bytes held (the array and the table itself). */
size_t kp_fdetab__bytes(const struct kp_fdetab *t);

#endif /* KP_SYMBOLS_FDETAB_H */
