// SPDX-License-Identifier: GPL-2.0-only
/* fdetab.c — the functions' ranges of an .eh_frame (contract: fdetab.h). */
#include "symbols/fdetab.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/cfi-rec.h"
#include "util/kp_err.h"

struct kp_fde {
	uint64_t start, end;
};

struct kp_fdetab {
	struct kp_fde *e;
	size_t nr, cap;
};

/* The .eh_frame bytes and the address they are loaded at. */
struct eh_src {
	struct kp_cfi_sec sec;
	uint64_t vaddr;
};

/* The section named .eh_frame with bytes in the file. */
static bool eh_section(Elf *elf, struct eh_src *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || shstrndx == 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".eh_frame"))
			continue;
		if (!(d = elf_rawdata(scn, NULL)) || !d->d_buf)
			return false;
		out->sec.data = d->d_buf;
		out->sec.size = d->d_size;
		out->vaddr = sh.sh_addr;
		return true;
	}
	return false;
}

/* Without section headers: the .eh_frame that PT_GNU_EH_FRAME's header
 * points to, up to the end of the PT_LOAD holding it. */
static bool eh_segment(Elf *elf, const struct kp_elf_info *info, struct eh_src *out)
{
	size_t n, fsize;
	const uint8_t *raw = (const uint8_t *)elf_rawfile(elf, &fsize);
	struct kp_cfi_hdr h;
	GElf_Phdr ph;

	if (!raw || elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset ||
		    kp_cfi__parse_hdr(raw + ph.p_offset, ph.p_filesz, ph.p_vaddr,
				      out->sec.addr_size, &h))
			return false;
		for (size_t j = 0; j < info->nr_loads; j++) {
			const struct kp_elf_load *l = &info->loads[j];
			uint64_t off = h.eh_frame_ptr - l->vaddr + l->offset;

			if (h.eh_frame_ptr < l->vaddr || h.eh_frame_ptr - l->vaddr >= l->filesz ||
			    l->offset > fsize || l->filesz > fsize - l->offset)
				continue;
			out->sec.data = raw + off;
			out->sec.size = l->offset + l->filesz - off;
			out->vaddr = h.eh_frame_ptr;
			return true;
		}
		return false;
	}
	return false;
}

static const struct kp_elf_load *exec_load(const struct kp_elf_info *info, uint64_t a)
{
	for (size_t i = 0; i < info->nr_loads; i++) {
		const struct kp_elf_load *l = &info->loads[i];

		if ((l->flags & PF_X) && a >= l->vaddr && a - l->vaddr < l->memsz)
			return l;
	}
	return NULL;
}

/* The FDE [start, start + range), if it is code. -E2BIG past the bound. */
static int add(struct kp_fdetab *t, const struct kp_elf_info *info, uint64_t start,
	       uint64_t range)
{
	const struct kp_elf_load *l = exec_load(info, start);
	uint64_t end;

	if (!range || !l)
		return 0;
	end = l->vaddr + l->memsz;
	if (range < end - start)
		end = start + range;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct kp_fde *e;

		if (t->nr >= KP_FDETAB_MAX)
			return -E2BIG;
		if (cap > KP_FDETAB_MAX)
			cap = KP_FDETAB_MAX;
		if (!(e = realloc(t->e, cap * sizeof(*e))))
			return -ENOMEM;
		t->e = e;
		t->cap = cap;
	}
	t->e[t->nr++] = (struct kp_fde){ start, end };
	return 0;
}

/* Every FDE of the section, each with its CIE (the last one read is
 * kept: an FDE mostly shares its neighbour's). */
static int walk(struct kp_fdetab *t, const struct eh_src *src, const struct kp_elf_info *info)
{
	struct kp_cfi_cie c = { 0 };
	struct kp_cfi_rec rec;
	uint64_t off = 0, start, range;
	int r;

	while ((r = kp_cfi__record(&src->sec, off, &rec)) == 0) {
		off = rec.next;
		if (rec.cie)
			continue;
		if (!c.valid || c.off != rec.cie_off) {
			c.valid = false;
			if (kp_cfi__cie_at(&src->sec, rec.cie_off, &c))
				return KP_EFORMAT;
			c.off = rec.cie_off;
			c.valid = true;
		}
		if (kp_cfi__fde(&src->sec, &c, &rec.body, src->vaddr, &start, &range))
			return KP_EFORMAT;
		if ((c.fde_enc & 0x70) != KP_EH_PE_absptr && (c.fde_enc & 0x70) != KP_EH_PE_pcrel)
			continue;
		if ((r = add(t, info, start, range)) != 0)
			return r;
	}
	return r < 0 ? KP_EFORMAT : 0;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct kp_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Sort; one FDE per start; each cut at the next one's start. */
static void settle(struct kp_fdetab *t)
{
	size_t n = 0;
	struct kp_fde *e;

	if (!t->nr)
		return;		/* no array (qsort wants one) */
	qsort(t->e, t->nr, sizeof(*t->e), fde_cmp);
	for (size_t i = 0; i < t->nr; i++) {
		if (n && t->e[n - 1].start == t->e[i].start)
			continue;
		if (n && t->e[n - 1].end > t->e[i].start)
			t->e[n - 1].end = t->e[i].start;
		t->e[n++] = t->e[i];
	}
	t->nr = n;
	if (n && n < t->cap && (e = realloc(t->e, n * sizeof(*e)))) {
		t->e = e;
		t->cap = n;
	}
}

struct kp_fdetab *kp_fdetab__new(Elf *elf, const struct kp_elf_info *info)
{
	const unsigned char *id = (const unsigned char *)elf_getident(elf, NULL);
	struct kp_fdetab *t = calloc(1, sizeof(*t));
	struct eh_src src = { .sec = { .eh = true } };
	int r = 0;

	if (!t)
		return NULL;
	if (!id || id[EI_DATA] != ELFDATA2LSB)
		return t;	/* the records are read little-endian */
	src.sec.addr_size = id[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	if (eh_section(elf, &src) || eh_segment(elf, info, &src))
		r = walk(t, &src, info);
	if (r == -ENOMEM) {
		kp_fdetab__free(t);
		errno = ENOMEM;
		return NULL;
	}
	if (r) {	/* malformed, or too many: none of it */
		free(t->e);
		memset(t, 0, sizeof(*t));
		return t;
	}
	settle(t);
	return t;
}

void kp_fdetab__free(struct kp_fdetab *t)
{
	if (!t)
		return;
	free(t->e);
	free(t);
}

int kp_fdetab__lookup(const struct kp_fdetab *t, uint64_t vaddr, uint64_t *start)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->e[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= t->e[lo - 1].end)
		return 0;
	*start = t->e[lo - 1].start;
	return 1;
}

size_t kp_fdetab__count(const struct kp_fdetab *t)
{
	return t->nr;
}

size_t kp_fdetab__bytes(const struct kp_fdetab *t)
{
	return t ? sizeof(*t) + t->cap * sizeof(*t->e) : 0;
}
