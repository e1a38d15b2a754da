/* cfi-scan.c — the records and call frame instructions of one CFI
 * section, and the .eh_frame_hdr search table (contract: cfi-scan.h).
 * Formats: DWARF 5 section 6.4 (CIE, FDE, DW_CFA_*), the LSB's .eh_frame
 * (CIE id 0, relative CIE pointers, 'z' augmentations, DW_EH_PE_*
 * pointer encodings) and .eh_frame_hdr; where they allow something
 * libdw reads differently, libdw 0.188's reading is followed. */
#include "unwind/cfi-scan.h"

#include <string.h>
#include <dwarf.h>

#include "util/kp_err.h"

#define BAD KP_EFORMAT

struct rd {
	const uint8_t *p, *end;
};

static int rd_fixed(struct rd *r, unsigned n, uint64_t *v)
{
	uint64_t x = 0;

	if ((size_t)(r->end - r->p) < n)
		return BAD;
	for (unsigned i = 0; i < n; i++)
		x |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	*v = x;
	return 0;
}

static int rd_skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n)
		return BAD;
	r->p += n;
	return 0;
}

/* A LEB128 of at most 10 bytes, signed (sign-extended) or not. */
static int rd_leb_s(struct rd *r, bool sign, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < 10 && r->p < r->end; i++) {
		uint8_t b = *r->p++;

		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (sign && i < 9 && (b & 0x40))
				x |= ~0ull << (7 * (i + 1));
			*v = x;
			return 0;
		}
	}
	return BAD;
}

/* An unsigned LEB128 (or a signed one whose value is not needed). */
static int rd_leb(struct rd *r, uint64_t *v)
{
	return rd_leb_s(r, false, v);
}

static int rd_reg(struct rd *r)
{
	uint64_t reg;

	return rd_leb(r, &reg) || reg > UW_CFI_MAX_REG ? BAD : 0;
}

/* A DW_EH_PE_* pointer: its value (applied as libdw applies it: pcrel
 * from pc_base + its offset in r, datarel from data_base; textrel and
 * funcrel add 0). Aligned and indirect pointers are refused. */
static int rd_encoded(struct rd *r, const uint8_t *start, uint8_t enc, uint8_t addr_size,
		      uint64_t pc_base, uint64_t data_base, uint64_t *v)
{
	uint64_t base = 0, x = 0;
	int64_t s;
	int ret;

	switch (enc & 0x70) {
	case DW_EH_PE_absptr: case DW_EH_PE_textrel: case DW_EH_PE_funcrel:
		break;
	case DW_EH_PE_pcrel:
		base = pc_base + (uint64_t)(r->p - start);
		break;
	case DW_EH_PE_datarel:
		base = data_base;
		break;
	default:
		return BAD;
	}
	if (enc & DW_EH_PE_indirect)
		return BAD;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: ret = rd_fixed(r, addr_size, &x); break;
	case DW_EH_PE_udata2: ret = rd_fixed(r, 2, &x); break;
	case DW_EH_PE_sdata2: ret = rd_fixed(r, 2, &x), s = (int16_t)x, x = (uint64_t)s; break;
	case DW_EH_PE_udata4: ret = rd_fixed(r, 4, &x); break;
	case DW_EH_PE_sdata4: ret = rd_fixed(r, 4, &x), s = (int32_t)x, x = (uint64_t)s; break;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: ret = rd_fixed(r, 8, &x); break;
	case DW_EH_PE_uleb128: ret = rd_leb(r, &x); break;
	case DW_EH_PE_sleb128: ret = rd_leb_s(r, true, &x); break;
	default: return BAD;
	}
	*v = base + x;
	return ret;
}

/* Skip a pointer of encoding enc (only its size matters; indirect is
 * fine here: libdw never follows these). */
static int skip_encoded(struct rd *r, uint8_t enc, uint8_t addr_size)
{
	uint64_t v;

	return rd_encoded(r, r->p, enc & 0x7f, addr_size, 0, 0, &v);
}

static int scan_insns(struct rd *r, uint8_t fde_enc, uint8_t addr_size)
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
			e = rd_leb(r, &v);
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
		case DW_CFA_advance_loc1: e = rd_skip(r, 1); break;
		case DW_CFA_advance_loc2: e = rd_skip(r, 2); break;
		case DW_CFA_advance_loc4: e = rd_skip(r, 4); break;
		case DW_CFA_MIPS_advance_loc8: e = rd_skip(r, 8); break;
		case DW_CFA_def_cfa_offset: case DW_CFA_def_cfa_offset_sf:
		case DW_CFA_GNU_args_size:
			e = rd_leb(r, &v);
			break;
		case DW_CFA_def_cfa_expression:
			e = rd_leb(r, &v) || rd_skip(r, v);
			break;
		case DW_CFA_restore_extended: case DW_CFA_undefined:
		case DW_CFA_same_value: case DW_CFA_def_cfa_register:
			e = rd_reg(r);
			break;
		case DW_CFA_register:
			e = rd_reg(r) || rd_reg(r);
			break;
		case DW_CFA_offset_extended: case DW_CFA_offset_extended_sf:
		case DW_CFA_def_cfa: case DW_CFA_def_cfa_sf:
		case DW_CFA_val_offset: case DW_CFA_val_offset_sf:
		case DW_CFA_GNU_negative_offset_extended:
			e = rd_reg(r) || rd_leb(r, &v);
			break;
		case DW_CFA_expression: case DW_CFA_val_expression:
			e = rd_reg(r) || rd_leb(r, &v) || rd_skip(r, v);
			break;
		default:
			return BAD;
		}
	}
	return e ? BAD : 0;
}

/* One record: its body (after the id) and what the id says. */
struct rec {
	struct rd body;
	bool cie;
	uint64_t cie_off;	/* an FDE's */
	uint64_t next;
};

/* 1 at the end (a zero length, or fewer than 5 bytes left: where libdw
 * stops), 0 with the record at off, BAD. */
static int read_rec(const struct uw_cfi_sec *s, uint64_t off, struct rec *out)
{
	struct rd r;
	uint64_t len = 0, id = 0, pos;
	unsigned osz = 4;

	if (off >= s->size || s->size - off <= 4)
		return 1;
	r = (struct rd){ s->data + off, s->data + s->size };
	rd_fixed(&r, 4, &len);
	if (len == 0xffffffffu) {
		osz = 8;
		if (rd_fixed(&r, 8, &len))
			return BAD;
	} else if (len >= 0xfffffff0u) {
		return BAD;
	}
	if (len == 0)
		return 1;
	if (len > (uint64_t)(r.end - r.p) || len < osz + 1u)
		return BAD;
	pos = (uint64_t)(r.p - s->data);
	out->next = pos + len;
	r.end = r.p + len;
	rd_fixed(&r, osz, &id);
	out->body = r;
	if (s->eh) {
		out->cie = id == 0;
		if (!out->cie && (id > pos || pos <= osz))
			return BAD;
		out->cie_off = pos - id;
	} else {
		out->cie = id == (osz == 4 ? 0xffffffffu : UINT64_MAX);
		out->cie_off = id;
	}
	return 0;
}

struct cie {
	uint64_t off;
	bool valid, z;
	uint8_t fde_enc;
};

/* Whether libdw reads a pointer of encoding enc as this file does. */
static bool enc_known(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: case DW_EH_PE_uleb128: case DW_EH_PE_sleb128:
	case DW_EH_PE_udata2: case DW_EH_PE_udata4: case DW_EH_PE_udata8:
	case DW_EH_PE_sdata2: case DW_EH_PE_sdata4: case DW_EH_PE_sdata8:
		return (enc & 0x70) <= DW_EH_PE_funcrel;
	default:
		return false;
	}
}

/* The augmentation data a of a 'z' CIE: its letters' operands. */
static int scan_aug(struct rd *a, const char *aug, uint8_t addr_size, struct cie *c)
{
	for (const char *l = aug + 1; *l; l++) {
		uint8_t enc;

		if (*l == 'S' || *l == 'B' || *l == 'G')
			continue;	/* signal frame, BTI, MTE: no data */
		if ((*l != 'L' && *l != 'R' && *l != 'P') || rd_skip(a, 1))
			return BAD;
		enc = a->p[-1];
		if (*l == 'P' && skip_encoded(a, enc, addr_size))
			return BAD;	/* the personality routine */
		if (*l == 'L' && enc != DW_EH_PE_omit && !enc_known(enc))
			return BAD;
		if (*l == 'R') {
			if (!enc_known(enc) || (enc & DW_EH_PE_indirect))
				return BAD;
			c->fde_enc = enc;
		}
	}
	return 0;
}

/* The CIE whose body is r; fills c. */
static int scan_cie(const struct uw_cfi_sec *s, struct rd *r, struct cie *c)
{
	uint64_t v, ra;
	uint8_t version;
	const char *aug;
	const uint8_t *nul;

	c->fde_enc = DW_EH_PE_absptr;
	if (rd_fixed(r, 1, &v))
		return BAD;
	version = (uint8_t)v;
	if (version != 1 && version != 3 && version != 4)
		return BAD;
	aug = (const char *)r->p;
	if (!(nul = memchr(r->p, 0, (size_t)(r->end - r->p))))
		return BAD;
	r->p = nul + 1;
	if (version == 4 && (rd_fixed(r, 2, &v) || v != s->addr_size))
		return BAD;	/* address size, segment selector size 0 */
	if (rd_leb(r, &v) || rd_leb(r, &v))
		return BAD;	/* code and data alignment */
	if (version == 1 ? rd_fixed(r, 1, &ra) : rd_leb(r, &ra))
		return BAD;
	if (ra > UW_CFI_MAX_REG)
		return BAD;
	c->z = aug[0] == 'z';
	if (c->z) {
		struct rd a;

		if (rd_leb(r, &v) || (uint64_t)(r->end - r->p) < v)
			return BAD;
		a = (struct rd){ r->p, r->p + v };
		r->p += v;
		if (scan_aug(&a, aug, s->addr_size, c))
			return BAD;
	} else if (aug[0]) {
		return BAD;
	}
	return scan_insns(r, c->fde_enc, s->addr_size);
}

/* The CIE at off, unless it is the one last checked. */
static int cie_at(const struct uw_cfi_sec *s, uint64_t off, struct cie *c)
{
	struct rec rec;

	if (c->valid && c->off == off)
		return 0;
	c->valid = false;
	if (read_rec(s, off, &rec) != 0 || !rec.cie || scan_cie(s, &rec.body, c))
		return BAD;
	c->off = off;
	c->valid = true;
	return 0;
}

static int scan_fde(const struct uw_cfi_sec *s, struct rec *rec, struct cie *c)
{
	struct rd *r = &rec->body;
	uint64_t len;

	if (cie_at(s, rec->cie_off, c))
		return BAD;
	if (skip_encoded(r, c->fde_enc, s->addr_size) ||
	    skip_encoded(r, c->fde_enc & 0x0f, s->addr_size))
		return BAD;	/* initial location, address range */
	if (c->z && (rd_leb(r, &len) || rd_skip(r, len)))
		return BAD;
	return scan_insns(r, c->fde_enc, s->addr_size);
}

int uw_cfi_scan_all(const struct uw_cfi_sec *s)
{
	struct cie c = { 0 };
	struct rec rec;
	uint64_t off = 0;
	int r;

	while ((r = read_rec(s, off, &rec)) == 0) {
		if (rec.cie ? scan_cie(s, &rec.body, &(struct cie){ 0 }) : scan_fde(s, &rec, &c))
			return BAD;
		off = rec.next;
	}
	return r < 0 ? BAD : 0;
}

static int fde_at(const struct uw_cfi_sec *s, uint64_t off, struct cie *c)
{
	struct rec rec;

	if (read_rec(s, off, &rec) != 0 || rec.cie)
		return BAD;
	return scan_fde(s, &rec, c);
}

int uw_cfi_scan_fde(const struct uw_cfi_sec *s, uint64_t off)
{
	return fde_at(s, off, &(struct cie){ 0 });
}

int uw_cfi_parse_hdr(const uint8_t *hdr, size_t size, uint64_t hdr_vaddr,
		     uint8_t addr_size, struct uw_cfi_hdr *h)
{
	struct rd r = { hdr, hdr + size };
	uint64_t count = 0;
	uint8_t ptr_enc, cnt_enc;

	memset(h, 0, sizeof(*h));
	if (size < 4 || hdr[0] != 1 || hdr[1] == DW_EH_PE_omit)
		return BAD;
	ptr_enc = hdr[1], cnt_enc = hdr[2], h->enc = hdr[3];
	r.p += 4;
	if (rd_encoded(&r, hdr, ptr_enc, addr_size, hdr_vaddr, hdr_vaddr, &h->eh_frame_ptr))
		return BAD;
	if (cnt_enc != DW_EH_PE_omit &&
	    rd_encoded(&r, hdr, cnt_enc, addr_size, hdr_vaddr, hdr_vaddr, &count))
		return BAD;
	if (cnt_enc == DW_EH_PE_omit || count == 0 || h->enc == DW_EH_PE_omit ||
	    (h->enc & ~DW_EH_PE_signed) == DW_EH_PE_uleb128)
		return 0;	/* no table: libdw walks .eh_frame */
	switch (h->enc & 0x07) {
	case DW_EH_PE_udata2: h->vsize = 2; break;
	case DW_EH_PE_udata4: h->vsize = 4; break;
	case DW_EH_PE_udata8: h->vsize = 8; break;
	case DW_EH_PE_absptr: h->vsize = addr_size; break;
	default: return BAD;
	}
	if (count > (size_t)(r.end - r.p) / h->vsize / 2)
		return BAD;
	h->table = r.p;
	h->count = count;
	return 0;
}

int uw_cfi_scan_table(const struct uw_cfi_sec *eh, uint64_t eh_vaddr,
		      const struct uw_cfi_hdr *h, uint64_t hdr_vaddr)
{
	struct cie c = { 0 };
	struct rd r = { h->table, h->table + h->count * 2 * h->vsize };
	uint64_t fde;

	for (size_t i = 0; i < h->count; i++) {
		r.p += h->vsize;	/* the initial location */
		if (rd_encoded(&r, h->table, h->enc, eh->addr_size, hdr_vaddr, hdr_vaddr, &fde) ||
		    fde_at(eh, fde - eh_vaddr, &c))
			return BAD;
	}
	return 0;
}
