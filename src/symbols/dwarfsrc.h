/* SPDX-License-Identifier: GPL-2.0-only */
/* dwarfsrc.h — source lines and inlined frames from DWARF (libdw).
 *
 * kp_dwarf__frames() names the code at a link-time address: the inlined
 * subroutines that contain it, innermost first, then the subprogram. The
 * first frame's file:line comes from the line table; each outer frame's
 * from the call site (DW_AT_call_file/line) of the frame inside it.
 * Names point into the Dwarf (valid while it is open), file names into
 * the line copies when given (valid while they are). The scopes come
 * from a dwarfidx.h index of the CU when one is given (a CU is walked
 * once), else from libdw's walks (each lookup bounded by the size of one
 * compilation unit); libdw checks the DWARF it reads.
 * Not thread-safe per Dwarf handle.
 */
#ifndef KP_SYMBOLS_DWARFSRC_H
#define KP_SYMBOLS_DWARFSRC_H

#include <stdint.h>

#include <elfutils/libdw.h>

struct kp_dw_frame {
	const char *name;	/* DW_AT_name (through origins), or NULL */
	const char *linkage;	/* DW_AT_linkage_name, or NULL */
	const char *file;	/* or NULL */
	uint32_t line;		/* 0 if unknown */
	uint32_t decl_line;	/* the function's first line, 0 if unknown */
	int inlined;
};

struct kp_dw_index;
struct kp_dw_lines;

/* Number of frames filled (0: no DWARF for vaddr). x: the Dwarf's index,
 * or NULL; ln: the copies of its line tables (dwlines.h), or NULL: then
 * libdw's tables, and file names that live as long as the Dwarf. */
int kp_dwarf__frames(Dwarf *dbg, struct kp_dw_index *x, struct kp_dw_lines *ln,
		     uint64_t vaddr, struct kp_dw_frame *out, int max);

/* 1 if kp_dwarf__frames(dbg, x, vaddr) would read a compilation unit
 * that x has not indexed yet (or x is NULL): the lookups that make libdw
 * allocate (the CU's abbreviations, line table and DIEs, read once per
 * CU), so that a caller measures the heap around those only. 0 when no
 * CU holds vaddr. */
int kp_dwarf__new_cu(Dwarf *dbg, const struct kp_dw_index *x, uint64_t vaddr);

#endif /* KP_SYMBOLS_DWARFSRC_H */
