// SPDX-License-Identifier: GPL-2.0-only
/* cfi-scan.c — the call frame instructions of one CFI section's records
 * (read by util/cfi-rec.h), and the FDEs the .eh_frame_hdr search table
 * points to (contract: cfi-scan.h). Format: DWARF 5 section 6.4
 * (DW_CFA_*); where it allows something libdw reads differently, libdw
 * 0.188's reading is followed. */
#include "unwind/cfi-scan.h"

#include <dwarf.h>

#include "util/kp_err.h"

#define BAD KP_EFORMAT

static int rd_reg(struct kp_cfi_rd *r)
{
	uint64_t reg;

	return kp_cfi__leb(r, false, &reg) || reg > UW_CFI_MAX_REG ? BAD : 0;
}

/* What the instructions do to the CFA (for struct uw_cfi_fp). */
#define CFA_MOVED 1	/* a frame is set up: the CFA changes */
#define CFA_ON_FP 2	/* ... and it is computed from rbp */

/* A register that the CFA is then computed from. */
static int rd_cfa_reg(struct kp_cfi_rd *r, unsigned *cfa)
{
	uint64_t reg;

	if (kp_cfi__leb(r, false, &reg) || reg > UW_CFI_MAX_REG)
		return BAD;
	*cfa |= CFA_MOVED | (reg == 6 ? CFA_ON_FP : 0);
	return 0;
}

/* Skip a pointer of encoding enc (only its size matters). */
static int skip_encoded(struct kp_cfi_rd *r, uint8_t enc, uint8_t addr_size)
{
	uint64_t v;

	return kp_cfi__encoded(r, r->p, enc & 0x7f, addr_size, 0, 0, &v);
}

/* *cfa: CFA_MOVED when the instructions change the CFA (the function
 * sets up a frame), CFA_ON_FP when they make rbp its register (a frame
 * pointer). */
static int scan_insns(struct kp_cfi_rd *r, uint8_t fde_enc, uint8_t addr_size,
		      unsigned *cfa)
{
	unsigned depth = 0;
	uint64_t v;
	int e = 0;

	while (!e && r->p < r->end) {
		uint8_t op = *r->p++;

		switch (op >> 6) {
		case 1: case 3:		/* advance_loc, restore: operand in op */
			continue;
		case 2:			/* offset: register in op, ULEB */
			e = kp_cfi__leb(r, false, &v);
			continue;
		}
		switch (op) {
		case DW_CFA_nop: case DW_CFA_GNU_window_save:
			break;
		case DW_CFA_remember_state:
			e = ++depth > UW_CFI_MAX_DEPTH ? BAD : 0;
			break;
		case DW_CFA_restore_state:
			depth -= depth > 0;
			break;
		case DW_CFA_set_loc: e = skip_encoded(r, fde_enc, addr_size); break;
		case DW_CFA_advance_loc1: e = kp_cfi__skip(r, 1); break;
		case DW_CFA_advance_loc2: e = kp_cfi__skip(r, 2); break;
		case DW_CFA_advance_loc4: e = kp_cfi__skip(r, 4); break;
		case DW_CFA_MIPS_advance_loc8: e = kp_cfi__skip(r, 8); break;
		case DW_CFA_def_cfa_offset: case DW_CFA_def_cfa_offset_sf:
			*cfa |= CFA_MOVED;
			e = kp_cfi__leb(r, false, &v);
			break;
		case DW_CFA_GNU_args_size:
			e = kp_cfi__leb(r, false, &v);
			break;
		case DW_CFA_def_cfa_expression:
			*cfa |= CFA_MOVED;
			e = kp_cfi__leb(r, false, &v) || kp_cfi__skip(r, v);
			break;
		case DW_CFA_restore_extended: case DW_CFA_undefined:
		case DW_CFA_same_value:
			e = rd_reg(r);
			break;
		case DW_CFA_def_cfa_register:
			e = rd_cfa_reg(r, cfa);
			break;
		case DW_CFA_def_cfa: case DW_CFA_def_cfa_sf:
			e = rd_cfa_reg(r, cfa) || kp_cfi__leb(r, false, &v);
			break;
		case DW_CFA_register:
			e = rd_reg(r) || rd_reg(r);
			break;
		case DW_CFA_offset_extended: case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset: case DW_CFA_val_offset_sf:
		case DW_CFA_GNU_negative_offset_extended:
			e = rd_reg(r) || kp_cfi__leb(r, false, &v);
			break;
		case DW_CFA_expression: case DW_CFA_val_expression:
			e = rd_reg(r) || kp_cfi__leb(r, false, &v) || kp_cfi__skip(r, v);
			break;
		default:
			return BAD;
		}
	}
	return e ? BAD : 0;
}

/* The CIE at off, header and instructions, unless it is the one last
 * checked. */
static int cie_at(const struct kp_cfi_sec *s, uint64_t off, struct kp_cfi_cie *c)
{
	unsigned cfa = 0;

	if (c->valid && c->off == off)
		return 0;
	c->valid = false;
	if (kp_cfi__cie_at(s, off, c) || c->ra > UW_CFI_MAX_REG ||
	    scan_insns(&c->insns, c->fde_enc, s->addr_size, &cfa))
		return BAD;
	c->off = off;
	c->valid = true;
	return 0;
}

static int scan_fde(const struct kp_cfi_sec *s, struct kp_cfi_rec *rec, struct kp_cfi_cie *c,
		    struct uw_cfi_fp *cnt)
{
	uint64_t start, range;
	unsigned cfa = 0;

	if (cie_at(s, rec->cie_off, c) ||
	    kp_cfi__fde(s, c, &rec->body, 0, &start, &range) ||
	    scan_insns(&rec->body, c->fde_enc, s->addr_size, &cfa))
		return BAD;
	if (cnt && (cfa & CFA_MOVED)) {
		cnt->fdes++;
		cnt->fp += (cfa & CFA_ON_FP) != 0;
	}
	return 0;
}

int uw_cfi_scan_all(const struct kp_cfi_sec *s)
{
	return uw_cfi_scan_all_fp(s, NULL);
}

int uw_cfi_scan_all_fp(const struct kp_cfi_sec *s, struct uw_cfi_fp *cnt)
{
	struct kp_cfi_cie c = { 0 };
	struct kp_cfi_rec rec;
	uint64_t off = 0;
	int r;

	while ((r = kp_cfi__record(s, off, &rec)) == 0) {
		if (rec.cie ? cie_at(s, off, &(struct kp_cfi_cie){ 0 }) : scan_fde(s, &rec, &c, cnt))
			return BAD;
		off = rec.next;
	}
	return r < 0 ? BAD : 0;
}

static int fde_at(const struct kp_cfi_sec *s, uint64_t off, struct kp_cfi_cie *c,
		  struct uw_cfi_fp *cnt)
{
	struct kp_cfi_rec rec;

	if (kp_cfi__record(s, off, &rec) != 0 || rec.cie)
		return BAD;
	return scan_fde(s, &rec, c, cnt);
}

int uw_cfi_scan_fde(const struct kp_cfi_sec *s, uint64_t off)
{
	return fde_at(s, off, &(struct kp_cfi_cie){ 0 }, NULL);
}

int uw_cfi_scan_table(const struct kp_cfi_sec *eh, uint64_t eh_vaddr,
		      const struct kp_cfi_hdr *h, uint64_t hdr_vaddr)
{
	return uw_cfi_scan_table_fp(eh, eh_vaddr, h, hdr_vaddr, NULL);
}

int uw_cfi_scan_table_fp(const struct kp_cfi_sec *eh, uint64_t eh_vaddr,
			 const struct kp_cfi_hdr *h, uint64_t hdr_vaddr,
			 struct uw_cfi_fp *cnt)
{
	struct kp_cfi_cie c = { 0 };
	struct kp_cfi_rd r = { h->table, h->table + h->count * 2 * h->vsize };
	uint64_t fde;

	for (size_t i = 0; i < h->count; i++) {
		r.p += h->vsize;	/* the initial location */
		if (kp_cfi__encoded(&r, h->table, h->enc, eh->addr_size, hdr_vaddr, hdr_vaddr, &fde) ||
		    fde_at(eh, fde - eh_vaddr, &c, cnt))
			return BAD;
	}
	return 0;
}
