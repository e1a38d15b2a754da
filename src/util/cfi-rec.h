/* SPDX-License-Identifier: GPL-2.0-only */
/* cfi-rec.h — the records of a call frame information section (.eh_frame
 * or .debug_frame) and of an .eh_frame_hdr, read within their bytes:
 * lengths, CIE pointers, CIE headers and augmentations, the FDE's
 * initial location and range, DW_EH_PE_* pointers. What each record's
 * instructions say is not read here.
 *
 * Formats: DWARF 5 section 6.4, the LSB's .eh_frame (CIE id 0, relative
 * CIE pointers, 'z' augmentations, pointer encodings) and .eh_frame_hdr;
 * where they allow something libdw (0.188) reads differently, libdw's
 * reading is followed (the unwinder hands the bytes to libdw after its
 * checks). Little-endian only.
 *
 * Owns nothing; never allocates; reads only inside the bytes it is
 * given. Called by unwind/cfi-scan.c (which checks the instructions
 * libdw will play) and symbols/fdetab.c (which keeps each FDE's range:
 * where the functions of a stripped file start). Returns 0, 1 where
 * said, or KP_EFORMAT (malformed, or a form libdw reads otherwise).
 */
#ifndef KP_UTIL_CFI_REC_H
#define KP_UTIL_CFI_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DW_EH_PE_* pointer encodings (LSB; the values of dwarf.h, which only
 * symbols and unwind may include). */
enum {
	KP_EH_PE_absptr = 0x00, KP_EH_PE_uleb128 = 0x01, KP_EH_PE_udata2 = 0x02,
	KP_EH_PE_udata4 = 0x03, KP_EH_PE_udata8 = 0x04, KP_EH_PE_signed = 0x08,
	KP_EH_PE_sleb128 = 0x09, KP_EH_PE_sdata2 = 0x0a, KP_EH_PE_sdata4 = 0x0b,
	KP_EH_PE_sdata8 = 0x0c,
	KP_EH_PE_pcrel = 0x10, KP_EH_PE_textrel = 0x20, KP_EH_PE_datarel = 0x30,
	KP_EH_PE_funcrel = 0x40, KP_EH_PE_aligned = 0x50,
	KP_EH_PE_indirect = 0x80, KP_EH_PE_omit = 0xff,
};

/* JIT code's call frame information (a jitdump's .eh_frame records) kept
 * for one function, at most: by the JIT tables (symbols), the unwinder,
 * and a CODE record of the stream. */
#define KP_JIT_EH_MAX 65536

/* Bytes [p, end) still to read. */
struct kp_cfi_rd {
	const uint8_t *p, *end;
};

int kp_cfi__fixed(struct kp_cfi_rd *r, unsigned n, uint64_t *v);
int kp_cfi__skip(struct kp_cfi_rd *r, uint64_t n);
/* A LEB128 of at most 10 bytes, signed (sign-extended) or not. */
int kp_cfi__leb(struct kp_cfi_rd *r, bool sign, uint64_t *v);
/* A DW_EH_PE_* pointer of encoding enc: its value as libdw applies it
 * (pcrel: from pc_base plus its offset from start; datarel: from
 * data_base; textrel and funcrel add 0). Aligned and indirect pointers
 * are refused. */
int kp_cfi__encoded(struct kp_cfi_rd *r, const uint8_t *start, uint8_t enc,
		    uint8_t addr_size, uint64_t pc_base, uint64_t data_base,
		    uint64_t *v);

/* One section as libdw reads it. */
struct kp_cfi_sec {
	const uint8_t *data;
	size_t size;
	bool eh;		/* .eh_frame (CIE id 0, relative CIE pointers),
				 * else .debug_frame */
	uint8_t addr_size;	/* 8 (ELFCLASS64) or 4 */
};

/* One record: its body (after the id) and what the id says. */
struct kp_cfi_rec {
	struct kp_cfi_rd body;
	bool cie;
	uint64_t cie_off;	/* an FDE's CIE, as an offset in the section */
	uint64_t next;		/* the offset of the next record */
};

/* The record at off: 0; 1 at the end (a zero length, or fewer than 5
 * bytes left: where libdw stops); KP_EFORMAT. */
int kp_cfi__record(const struct kp_cfi_sec *s, uint64_t off, struct kp_cfi_rec *out);

/* A CIE's header. */
struct kp_cfi_cie {
	uint64_t off;		/* for the callers' caches of the last CIE */
	bool valid;
	bool z;			/* 'z': its FDEs carry augmentation data */
	uint8_t fde_enc;	/* 'R': how its FDEs' addresses are encoded */
	uint64_t ra;		/* the return address register */
	struct kp_cfi_rd insns;	/* its initial instructions */
};

/* The CIE at off (c->off and c->valid are left to the caller). */
int kp_cfi__cie_at(const struct kp_cfi_sec *s, uint64_t off, struct kp_cfi_cie *c);

/* The header of FDE body *r of CIE c: its initial location *start (pcrel
 * from vaddr, the address the section is loaded at) and *range; r is
 * left at its instructions. */
int kp_cfi__fde(const struct kp_cfi_sec *s, const struct kp_cfi_cie *c,
		struct kp_cfi_rd *r, uint64_t vaddr, uint64_t *start, uint64_t *range);

/* What libdw reads of an .eh_frame_hdr: the address .eh_frame is at and
 * the search table (count entries of 2 pointers of vsize bytes, encoding
 * enc; count 0: no table, libdw walks .eh_frame instead). */
struct kp_cfi_hdr {
	uint64_t eh_frame_ptr;
	const uint8_t *table;
	size_t count;
	uint8_t enc, vsize;
};

/* Parse hdr[0..size) at hdr_vaddr. KP_EFORMAT where libdw rejects it or
 * reads it otherwise than here. */
int kp_cfi__parse_hdr(const uint8_t *hdr, size_t size, uint64_t hdr_vaddr,
		      uint8_t addr_size, struct kp_cfi_hdr *h);

#endif /* KP_UTIL_CFI_REC_H */
