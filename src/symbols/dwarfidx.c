// SPDX-License-Identifier: GPL-2.0-only
/* dwarfidx.c — per-CU index of function-like scopes (see dwarfidx.h).
 *
 * A CU's index: its scopes (DIE offset, enclosing function-like scope,
 * inlined or not) and their address ranges, sorted by (start, depth,
 * later DIEs first).
 * Scopes nest, so the innermost scope containing an address is the first
 * containing range met going back from the last range that starts at or
 * before it; a subprogram's range that ends before the address ends the
 * search (nothing before it can enclose the address).
 */
#include "symbols/dwarfidx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#define KP_DWI_MAX_DEPTH 256	/* DIE nesting walked; deeper is skipped */

struct dwi_scope {
	Dwarf_Off die;
	int32_t parent;		/* enclosing function-like scope, -1: none */
	uint8_t inlined;
};

struct dwi_range {
	uint64_t lo, hi;
	uint32_t scope;
	uint32_t depth;		/* function-like scopes around it */
};

struct dwi_cu {
	Dwarf_Off off;		/* first: kp_dw_cu_slot */
	struct dwi_scope *sc;
	struct dwi_range *r;
	size_t nsc, nr, cap_sc, cap_r;
};

struct kp_dw_index {
	struct dwi_cu *cus;	/* sorted by off */
	size_t nr, cap;
	size_t bytes;
};

struct kp_dw_index *kp_dw_index__new(void)
{
	return calloc(1, sizeof(struct kp_dw_index));
}

void kp_dw_index__free(struct kp_dw_index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nr; i++) {
		free(x->cus[i].sc);
		free(x->cus[i].r);
	}
	free(x->cus);
	free(x);
}

size_t kp_dw_index__bytes(const struct kp_dw_index *x)
{
	return x ? x->bytes + x->cap * sizeof(*x->cus) : 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t sz, size_t *bytes)
{
	size_t n = *cap ? *cap * 2 : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	np = realloc(*p, n * sz);
	if (!np)
		return -ENOMEM;
	*bytes += (n - *cap) * sz;
	*p = np;
	*cap = n;
	return 0;
}

static int add_scope(struct kp_dw_index *x, struct dwi_cu *cu, Dwarf_Die *die,
		     int32_t parent, uint32_t depth, int inlined, int32_t *id)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	*id = -1;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (*id < 0) {
			if (grow((void **)&cu->sc, &cu->cap_sc, cu->nsc + 1,
				 sizeof(*cu->sc), &x->bytes))
				return -ENOMEM;
			*id = (int32_t)cu->nsc;
			cu->sc[cu->nsc++] = (struct dwi_scope){ dwarf_dieoffset(die), parent,
							       (uint8_t)inlined };
		}
		if (grow((void **)&cu->r, &cu->cap_r, cu->nr + 1, sizeof(*cu->r), &x->bytes))
			return -ENOMEM;
		cu->r[cu->nr++] = (struct dwi_range){ lo, hi, (uint32_t)*id, depth };
	}
	return 0;
}

/* Every function-like scope under die (its children and theirs). */
static int walk(struct kp_dw_index *x, struct dwi_cu *cu, Dwarf_Die *die,
		int32_t parent, uint32_t depth, int level)
{
	Dwarf_Die child;

	if (level >= KP_DWI_MAX_DEPTH || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child), err;
		int32_t id = -1;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			err = add_scope(x, cu, &child, parent, depth,
					tag == DW_TAG_inlined_subroutine, &id);
			if (err)
				return err;
		}
		err = walk(x, cu, &child, id >= 0 ? id : parent, id >= 0 ? depth + 1 : depth,
			   level + 1);
		if (err)
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct dwi_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	/* aliases (one range, two subprograms): the search goes backwards
	 * and must meet the first in DIE order first, as libdw does */
	return x->scope > y->scope ? -1 : x->scope < y->scope;
}

size_t kp_dw_cu_slot(const void *cus, size_t nr, size_t size, Dwarf_Off off)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Off at;

		memcpy(&at, (const char *)cus + mid * size, sizeof(at));
		if (at < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Where off's CU is, or would go, in x->cus. */
static size_t cu_slot(const struct kp_dw_index *x, Dwarf_Off off)
{
	return kp_dw_cu_slot(x->cus, x->nr, sizeof(*x->cus), off);
}

int kp_dw_index__has(const struct kp_dw_index *x, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	size_t lo = x ? cu_slot(x, off) : 0;

	return x && lo < x->nr && x->cus[lo].off == off;
}

/* The index of cudie's CU, built now if it is new. */
static struct dwi_cu *cu_of(struct kp_dw_index *x, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	size_t lo = cu_slot(x, off);
	struct dwi_cu cu = { .off = off };

	if (lo < x->nr && x->cus[lo].off == off)
		return &x->cus[lo];
	if (walk(x, &cu, cudie, -1, 0, 0) ||
	    grow((void **)&x->cus, &x->cap, x->nr + 1, sizeof(*x->cus), &x->bytes)) {
		free(cu.sc);
		free(cu.r);
		return NULL;
	}
	if (cu.nr)	/* cu.r is NULL without ranges: no qsort(NULL, 0) */
		qsort(cu.r, cu.nr, sizeof(*cu.r), range_cmp);
	memmove(&x->cus[lo + 1], &x->cus[lo], (x->nr - lo) * sizeof(*x->cus));
	x->cus[lo] = cu;
	x->nr++;
	return &x->cus[lo];
}

int kp_dw_index__scopes(struct kp_dw_index *x, Dwarf_Die *cudie, uint64_t vaddr,
			Dwarf_Off *out, int max)
{
	struct dwi_cu *cu = cu_of(x, cudie);
	size_t lo = 0, hi;
	int32_t s = -1;
	int n = 0;

	if (!cu)
		return -ENOMEM;
	hi = cu->nr;
	while (lo < hi) {	/* the first range starting after vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (cu->r[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct dwi_range *r = &cu->r[lo];

		if (vaddr < r->hi) {
			s = (int32_t)r->scope;
			break;
		}
		if (r->depth == 0)
			break;
	}
	for (; s >= 0 && n < max; s = cu->sc[s].parent) {
		out[n++] = cu->sc[s].die;
		if (!cu->sc[s].inlined)
			break;
	}
	return n;
}
