// SPDX-License-Identifier: GPL-2.0-only
/* cfi-rec.c — the records of a call frame information section and the
 * .eh_frame_hdr (contract: cfi-rec.h). */
#include "util/cfi-rec.h"

#include <string.h>

#include "util/kp_err.h"

#define BAD KP_EFORMAT

int kp_cfi__fixed(struct kp_cfi_rd *r, unsigned n, uint64_t *v)
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

int kp_cfi__skip(struct kp_cfi_rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n)
		return BAD;
	r->p += n;
	return 0;
}

int kp_cfi__leb(struct kp_cfi_rd *r, bool sign, uint64_t *v)
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

int kp_cfi__encoded(struct kp_cfi_rd *r, const uint8_t *start, uint8_t enc,
		    uint8_t addr_size, uint64_t pc_base, uint64_t data_base,
		    uint64_t *v)
{
	uint64_t base = 0, x = 0;
	int64_t s;
	int ret;

	switch (enc & 0x70) {
	case KP_EH_PE_absptr: case KP_EH_PE_textrel: case KP_EH_PE_funcrel:
		break;
	case KP_EH_PE_pcrel:
		base = pc_base + (uint64_t)(r->p - start);
		break;
	case KP_EH_PE_datarel:
		base = data_base;
		break;
	default:
		return BAD;
	}
	if (enc & KP_EH_PE_indirect)
		return BAD;
	switch (enc & 0x0f) {
	case KP_EH_PE_absptr: ret = kp_cfi__fixed(r, addr_size, &x); break;
	case KP_EH_PE_udata2: ret = kp_cfi__fixed(r, 2, &x); break;
	case KP_EH_PE_sdata2: ret = kp_cfi__fixed(r, 2, &x), s = (int16_t)x, x = (uint64_t)s; break;
	case KP_EH_PE_udata4: ret = kp_cfi__fixed(r, 4, &x); break;
	case KP_EH_PE_sdata4: ret = kp_cfi__fixed(r, 4, &x), s = (int32_t)x, x = (uint64_t)s; break;
	case KP_EH_PE_udata8: case KP_EH_PE_sdata8: ret = kp_cfi__fixed(r, 8, &x); break;
	case KP_EH_PE_uleb128: ret = kp_cfi__leb(r, false, &x); break;
	case KP_EH_PE_sleb128: ret = kp_cfi__leb(r, true, &x); break;
	default: return BAD;
	}
	*v = base + x;
	return ret;
}

/* Skip a pointer of encoding enc (only its size matters; indirect is
 * fine here: libdw never follows these). */
static int skip_encoded(struct kp_cfi_rd *r, uint8_t enc, uint8_t addr_size)
{
	uint64_t v;

	return kp_cfi__encoded(r, r->p, enc & 0x7f, addr_size, 0, 0, &v);
}

int kp_cfi__record(const struct kp_cfi_sec *s, uint64_t off, struct kp_cfi_rec *out)
{
	struct kp_cfi_rd r;
	uint64_t len = 0, id = 0, pos;
	unsigned osz = 4;

	if (off >= s->size || s->size - off <= 4)
		return 1;
	r = (struct kp_cfi_rd){ s->data + off, s->data + s->size };
	kp_cfi__fixed(&r, 4, &len);
	if (len == 0xffffffffu) {
		osz = 8;
		if (kp_cfi__fixed(&r, 8, &len))
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
	kp_cfi__fixed(&r, osz, &id);
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

/* Whether libdw reads a pointer of encoding enc as this file does. */
static bool enc_known(uint8_t enc)
{
	switch (enc & 0x0f) {
	case KP_EH_PE_absptr: case KP_EH_PE_uleb128: case KP_EH_PE_sleb128:
	case KP_EH_PE_udata2: case KP_EH_PE_udata4: case KP_EH_PE_udata8:
	case KP_EH_PE_sdata2: case KP_EH_PE_sdata4: case KP_EH_PE_sdata8:
		return (enc & 0x70) <= KP_EH_PE_funcrel;
	default:
		return false;
	}
}

/* The augmentation data a of a 'z' CIE: its letters' operands. */
static int scan_aug(struct kp_cfi_rd *a, const char *aug, uint8_t addr_size,
		    struct kp_cfi_cie *c)
{
	for (const char *l = aug + 1; *l; l++) {
		uint8_t enc;

		if (*l == 'S' || *l == 'B' || *l == 'G')
			continue;	/* signal frame, BTI, MTE: no data */
		if ((*l != 'L' && *l != 'R' && *l != 'P') || kp_cfi__skip(a, 1))
			return BAD;
		enc = a->p[-1];
		if (*l == 'P' && skip_encoded(a, enc, addr_size))
			return BAD;	/* the personality routine */
		if (*l == 'L' && enc != KP_EH_PE_omit && !enc_known(enc))
			return BAD;
		if (*l == 'R') {
			if (!enc_known(enc) || (enc & KP_EH_PE_indirect))
				return BAD;
			c->fde_enc = enc;
		}
	}
	return 0;
}

/* The CIE whose body is r (after its id): fills c, r left at its
 * instructions. */
static int parse_cie(const struct kp_cfi_sec *s, struct kp_cfi_rd *r, struct kp_cfi_cie *c)
{
	uint64_t v;
	uint8_t version;
	const char *aug;
	const uint8_t *nul;

	c->fde_enc = KP_EH_PE_absptr;
	if (kp_cfi__fixed(r, 1, &v))
		return BAD;
	version = (uint8_t)v;
	if (version != 1 && version != 3 && version != 4)
		return BAD;
	aug = (const char *)r->p;
	if (!(nul = memchr(r->p, 0, (size_t)(r->end - r->p))))
		return BAD;
	r->p = nul + 1;
	if (version == 4 && (kp_cfi__fixed(r, 2, &v) || v != s->addr_size))
		return BAD;	/* address size, segment selector size 0 */
	if (kp_cfi__leb(r, false, &v) || kp_cfi__leb(r, false, &v))
		return BAD;	/* code and data alignment */
	if (version == 1 ? kp_cfi__fixed(r, 1, &c->ra) : kp_cfi__leb(r, false, &c->ra))
		return BAD;
	c->z = aug[0] == 'z';
	if (c->z) {
		struct kp_cfi_rd a;

		if (kp_cfi__leb(r, false, &v) || (uint64_t)(r->end - r->p) < v)
			return BAD;
		a = (struct kp_cfi_rd){ r->p, r->p + v };
		r->p += v;
		if (scan_aug(&a, aug, s->addr_size, c))
			return BAD;
	} else if (aug[0]) {
		return BAD;
	}
	return 0;
}

int kp_cfi__cie_at(const struct kp_cfi_sec *s, uint64_t off, struct kp_cfi_cie *c)
{
	struct kp_cfi_rec rec;

	if (kp_cfi__record(s, off, &rec) != 0 || !rec.cie || parse_cie(s, &rec.body, c))
		return BAD;
	c->insns = rec.body;
	return 0;
}

int kp_cfi__fde(const struct kp_cfi_sec *s, const struct kp_cfi_cie *c,
		struct kp_cfi_rd *r, uint64_t vaddr, uint64_t *start, uint64_t *range)
{
	uint64_t len;

	if (kp_cfi__encoded(r, s->data, c->fde_enc & 0x7f, s->addr_size, vaddr, 0, start) ||
	    kp_cfi__encoded(r, r->p, c->fde_enc & 0x0f, s->addr_size, 0, 0, range))
		return BAD;	/* initial location, address range */
	if (c->z && (kp_cfi__leb(r, false, &len) || kp_cfi__skip(r, len)))
		return BAD;
	return 0;
}

int kp_cfi__parse_hdr(const uint8_t *hdr, size_t size, uint64_t hdr_vaddr,
		      uint8_t addr_size, struct kp_cfi_hdr *h)
{
	struct kp_cfi_rd r = { hdr, hdr + size };
	uint64_t count = 0;
	uint8_t ptr_enc, cnt_enc;

	memset(h, 0, sizeof(*h));
	if (size < 4 || hdr[0] != 1 || hdr[1] == KP_EH_PE_omit)
		return BAD;
	ptr_enc = hdr[1], cnt_enc = hdr[2], h->enc = hdr[3];
	r.p += 4;
	if (kp_cfi__encoded(&r, hdr, ptr_enc, addr_size, hdr_vaddr, hdr_vaddr, &h->eh_frame_ptr))
		return BAD;
	if (cnt_enc != KP_EH_PE_omit &&
	    kp_cfi__encoded(&r, hdr, cnt_enc, addr_size, hdr_vaddr, hdr_vaddr, &count))
		return BAD;
	if (cnt_enc == KP_EH_PE_omit || count == 0 || h->enc == KP_EH_PE_omit ||
	    (h->enc & ~KP_EH_PE_signed) == KP_EH_PE_uleb128)
		return 0;	/* no table: libdw walks .eh_frame */
	switch (h->enc & 0x07) {
	case KP_EH_PE_udata2: h->vsize = 2; break;
	case KP_EH_PE_udata4: h->vsize = 4; break;
	case KP_EH_PE_udata8: h->vsize = 8; break;
	case KP_EH_PE_absptr: h->vsize = addr_size; break;
	default: return BAD;
	}
	if (count > (size_t)(r.end - r.p) / h->vsize / 2)
		return BAD;
	h->table = r.p;
	h->count = count;
	return 0;
}
