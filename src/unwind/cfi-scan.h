/* SPDX-License-Identifier: GPL-2.0-only */
/* cfi-scan.h — a bounded check of a file's call frame information before
 * libdw is given it. libdw (0.188) makes every frame state as large as
 * the highest register number the CFI it plays names (16 bytes each, up
 * to 2 GiB), clears it at each lookup, and copies it at each
 * DW_CFA_remember_state, whether the lookup then succeeds or fails: one
 * hostile record costs seconds and gigabytes per sample. So the records
 * libdw can reach are walked once, when a module is loaded, and the CFI is
 * refused (the module has no CFI: frame pointers only) when any of them:
 *   - names a register above UW_CFI_MAX_REG (an instruction operand or
 *     the CIE's return address register; x86-64's reach 125, aarch64's
 *     127),
 *   - nests DW_CFA_remember_state deeper than UW_CFI_MAX_DEPTH,
 *   - has an opcode, a CIE version, an augmentation or a pointer encoding
 *     that is not known here, or a field or operand that reads past its
 *     record (or a record past its section),
 *   - is an FDE whose CIE pointer does not lead to such a CIE,
 *   - or, for .eh_frame, sits at an offset the .eh_frame_hdr search table
 *     points to (the table is followed the way libdw follows it).
 *
 * The records, CIE headers and pointers are read by util/cfi-rec.h
 * (shared with the symbols layer); the instructions here.
 * Owns nothing; never allocates; reads only inside the bytes it is given
 * (and, for the ELF entry points, the Elf handle's raw image).
 * Called by unwind-cfi.c (module load, first .debug_frame need); the
 * byte-level entry points by tests and the fuzz target. Little-endian
 * ELF only (the unwinder is x86-64's): a big-endian file is refused.
 * Returns 0 (use it) or KP_EFORMAT (refuse it).
 */
#ifndef KP_UNWIND_CFI_SCAN_H
#define KP_UNWIND_CFI_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

#include "util/cfi-rec.h"

#define UW_CFI_MAX_REG 255	/* a frame state of at most 4 KiB */
#define UW_CFI_MAX_DEPTH 64	/* DW_CFA_remember_state nesting */

/* What the scan saw of frame pointers: the FDEs whose instructions set up
 * a frame (change the CFA: not a frameless leaf's, not an empty one), and
 * those among them that make rbp the CFA's register (a function that
 * keeps a frame pointer). The _fp variants add to *cnt (NULL: not
 * counted). */
struct uw_cfi_fp {
	unsigned fdes, fp;
};

/* Every record from offset 0 to the zero terminator or the section's end
 * (as libdw's walk without a search table), each FDE with its CIE. */
int uw_cfi_scan_all(const struct kp_cfi_sec *s);
int uw_cfi_scan_all_fp(const struct kp_cfi_sec *s, struct uw_cfi_fp *cnt);

/* The FDE at offset off (reached through a search table) and its CIE. */
int uw_cfi_scan_fde(const struct kp_cfi_sec *s, uint64_t off);

/* Every FDE the table of h (parsed at hdr_vaddr) points to in eh, the
 * .eh_frame at eh_vaddr. */
int uw_cfi_scan_table(const struct kp_cfi_sec *eh, uint64_t eh_vaddr,
		      const struct kp_cfi_hdr *h, uint64_t hdr_vaddr);
int uw_cfi_scan_table_fp(const struct kp_cfi_sec *eh, uint64_t eh_vaddr,
			 const struct kp_cfi_hdr *h, uint64_t hdr_vaddr,
			 struct uw_cfi_fp *cnt);

/* The .eh_frame (and search table) that dwarf_getcfi_elf(elf) reads:
 * sections .eh_frame/.eh_frame_hdr, else the PT_GNU_EH_FRAME segment.
 * 0 also when there is none. */
int uw_cfi_scan_elf_eh(Elf *elf);
int uw_cfi_scan_elf_eh_fp(Elf *elf, struct uw_cfi_fp *cnt);

/* The .debug_frame that dwarf_getcfi reads from a Dwarf begun on elf
 * (call it after dwarf_begin_elf: compressed sections are inflated by
 * then). 0 also when there is none. */
int uw_cfi_scan_elf_debug(Elf *elf);

#endif /* KP_UNWIND_CFI_SCAN_H */
