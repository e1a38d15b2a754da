/* SPDX-License-Identifier: GPL-2.0-only */
/* dwarfidx.h — per compilation unit, an index of the scopes that name
 * frames (subprograms and inlined subroutines) by address.
 *
 * dwarf_getscopes() walks a CU's DIE tree from the top for every address
 * it is asked about, and dwarf_getscopes_die() again for an inlined
 * instance: for a big CU (libdw's own, libstdc++'s) that is a millisecond
 * per distinct pc, paid for every new pc a profile meets. The index walks
 * each CU once, on its first lookup, and then answers by binary search.
 *
 * Owns: the indices of the CUs asked about (freed with it). Who calls it:
 * dwarfsrc.c, one index per open Dwarf (module.c keeps it with the
 * module). Never does I/O beyond libdw's reads of that Dwarf. Errors:
 * -ENOMEM (the caller falls back to dwarf_getscopes). Not thread-safe.
 */
#ifndef KP_SYMBOLS_DWARFIDX_H
#define KP_SYMBOLS_DWARFIDX_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

struct kp_dw_index;

struct kp_dw_index *kp_dw_index__new(void);
void kp_dw_index__free(struct kp_dw_index *x);
size_t kp_dw_index__bytes(const struct kp_dw_index *x);

/* 1 if cudie's CU is indexed already (x may be NULL: 0). */
int kp_dw_index__has(const struct kp_dw_index *x, Dwarf_Die *cudie);

/* The DIE offsets of the function-like scopes of cudie's CU that contain
 * the link-time address vaddr, innermost first, ending with the
 * subprogram (at most max). Returns how many (0: none), or -ENOMEM. */
int kp_dw_index__scopes(struct kp_dw_index *x, Dwarf_Die *cudie, uint64_t vaddr,
			Dwarf_Off *out, int max);

/* Where CU offset off is, or would be inserted, in cus[0..nr): structs
 * of size bytes sorted by a Dwarf_Off that is their first member (the
 * index's CUs here, the line copies' in dwlines.c). */
size_t kp_dw_cu_slot(const void *cus, size_t nr, size_t size, Dwarf_Off off);

#endif /* KP_SYMBOLS_DWARFIDX_H */
