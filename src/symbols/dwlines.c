// SPDX-License-Identifier: GPL-2.0-only
/* dwlines.c — compact copies of CUs' line tables (see dwlines.h).
 *
 * A CU's copy: its rows in libdw's order (sorted by address), each the
 * address less the CU's lowest row address, the line, and the file
 * index with the end-of-sequence flag in its low bit; and its file
 * names, one block of strings with an offset for each. A row's file is
 * found by the name pointer libdw hands out, which is the file table's
 * entry for that index (dwarf_linesrc and dwarf_filesrc read the same
 * table); a name not in the table is kept as none.
 */
#include "symbols/dwlines.h"

#include "symbols/dwarfidx.h"

#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DWL_NONE UINT32_MAX	/* no file name */
#define DWL_NOFILE (DWL_NONE >> 1)	/* a row's file index: none */

struct dwl_row {
	uint32_t off;		/* address less the CU's base */
	uint32_t line;
	uint32_t file_end;	/* file index << 1 | end of sequence */
};

struct dwl_cu {
	Dwarf_Off off;		/* first: kp_dw_cu_slot */
	uint64_t base;
	struct dwl_row *rows;
	uint32_t *names;	/* offsets into text, DWL_NONE: none */
	char *text;
	uint32_t nrows, nfiles;
	int missing;		/* no line table: asked once */
};

struct kp_dw_lines {
	struct dwl_cu *cus;	/* sorted by off */
	size_t nr, cap, bytes;
};

struct file_ptr {
	const char *p;
	uint32_t idx;
};

struct kp_dw_lines *kp_dw_lines__new(void)
{
	return calloc(1, sizeof(struct kp_dw_lines));
}

static void cu_free(struct dwl_cu *cu)
{
	free(cu->rows);
	free(cu->names);
	free(cu->text);
}

void kp_dw_lines__free(struct kp_dw_lines *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nr; i++)
		cu_free(&x->cus[i]);
	free(x->cus);
	free(x);
}

size_t kp_dw_lines__bytes(const struct kp_dw_lines *x)
{
	return x ? x->bytes + x->cap * sizeof(*x->cus) : 0;
}

/* The slot of CU offset off: where it is or would be inserted. */
static size_t cu_slot(const struct kp_dw_lines *x, Dwarf_Off off)
{
	return kp_dw_cu_slot(x->cus, x->nr, sizeof(*x->cus), off);
}

int kp_dw_lines__has(const struct kp_dw_lines *x, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	size_t i;

	if (!x)
		return 0;
	i = cu_slot(x, off);
	return i < x->nr && x->cus[i].off == off;
}

static int ptr_cmp(const void *a, const void *b)
{
	const struct file_ptr *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p;
}

/* The file names of files into cu (text and offsets), and the pointer
 * table *ptrs sorted for file_index. */
static int copy_files(struct dwl_cu *cu, Dwarf_Files *files, size_t n,
		      struct file_ptr **ptrs)
{
	size_t len = 0, at = 0;

	if (n >= DWL_NOFILE)
		return -ERANGE;
	for (size_t i = 0; i < n; i++) {
		const char *s = dwarf_filesrc(files, i, NULL, NULL);

		len += s ? strlen(s) + 1 : 0;
	}
	if (len >= DWL_NONE)
		return -ERANGE;
	cu->names = malloc((n ? n : 1) * sizeof(*cu->names));
	cu->text = malloc(len ? len : 1);
	*ptrs = malloc((n ? n : 1) * sizeof(**ptrs));
	if (!cu->names || !cu->text || !*ptrs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *s = dwarf_filesrc(files, i, NULL, NULL);

		(*ptrs)[i] = (struct file_ptr){ s, (uint32_t)i };
		cu->names[i] = s ? (uint32_t)at : DWL_NONE;
		if (s) {
			memcpy(cu->text + at, s, strlen(s) + 1);
			at += strlen(s) + 1;
		}
	}
	cu->nfiles = (uint32_t)n;
	qsort(*ptrs, n, sizeof(**ptrs), ptr_cmp);
	return 0;
}

/* The index of the file table entry whose name is p, else DWL_NONE. */
static uint32_t file_index(const struct file_ptr *ptrs, size_t n, const char *p)
{
	struct file_ptr key = { p, 0 };
	const struct file_ptr *f;

	if (!p || !n)
		return DWL_NONE;
	f = bsearch(&key, ptrs, n, sizeof(*ptrs), ptr_cmp);
	return f ? f->idx : DWL_NONE;
}

/* The rows of lines into cu, relative to its lowest address. */
static int copy_rows(struct dwl_cu *cu, Dwarf_Lines *lines, size_t n,
		     const struct file_ptr *ptrs)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	const char *last = NULL;
	uint32_t idx = DWL_NONE;

	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) != 0)
			return -ENOENT;
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	if (n && hi - lo > UINT32_MAX)
		return -ERANGE;
	cu->base = n ? lo : 0;
	if (!(cu->rows = malloc((n ? n : 1) * sizeof(*cu->rows))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		const char *src = dwarf_linesrc(l, NULL, NULL);
		Dwarf_Addr a = 0;
		int line = 0;
		bool end = false;

		dwarf_lineaddr(l, &a);
		if (dwarf_lineno(l, &line) != 0 || line < 0)
			line = 0;
		dwarf_lineendsequence(l, &end);
		if (src != last) {
			last = src;
			idx = file_index(ptrs, cu->nfiles, src);
		}
		cu->rows[i] = (struct dwl_row){ (uint32_t)(a - lo), (uint32_t)line,
						(idx == DWL_NONE ? DWL_NOFILE : idx) << 1 | end };
	}
	cu->nrows = (uint32_t)n;
	return 0;
}

/* A Dwarf of its own for reading cudie's line table, ended once it is
 * copied (*die: the CU there): libdw keeps every table it reads until
 * dwarf_end, about 4 times the copy's bytes (14.6 of a 72 MB heap under
 * bench/churn-rss.sh), and the copy is all a lookup needs. NULL when it
 * cannot be had (a dwz file, whose names may lie in its alternate file;
 * a split unit): then cudie's own Dwarf reads the table. */
static Dwarf *lines_dwarf(Dwarf_Die *cudie, Dwarf_Die *die)
{
	Dwarf *dw = cudie->cu ? dwarf_cu_getdwarf(cudie->cu) : NULL;
	Elf *elf = dw ? dwarf_getelf(dw) : NULL;
	Dwarf *own;

	if (!elf || dwarf_getalt(dw) || dwarf_tag(cudie) != DW_TAG_compile_unit)
		return NULL;
	own = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (own && (!dwarf_offdie(own, dwarf_dieoffset(cudie), die) ||
		    dwarf_tag(die) != DW_TAG_compile_unit)) {
		dwarf_end(own);
		own = NULL;
	}
	return own;
}

/* cu filled from cudie's line table; -ENOENT when it has none. */
static int copy_cu(struct dwl_cu *cu, Dwarf_Die *cudie)
{
	Dwarf_Die own_die;
	Dwarf *own = lines_dwarf(cudie, &own_die);
	Dwarf_Die *die = own ? &own_die : cudie;
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	struct file_ptr *ptrs = NULL;
	size_t nlines, nfiles;
	int rc = -ENOENT;

	if (dwarf_getsrclines(die, &lines, &nlines) == 0 &&
	    dwarf_getsrcfiles(die, &files, &nfiles) == 0) {
		rc = nlines >= UINT32_MAX ? -ERANGE
					  : copy_files(cu, files, nfiles, &ptrs);
		if (!rc)
			rc = copy_rows(cu, lines, nlines, ptrs);
	}
	free(ptrs);
	dwarf_end(own);
	return rc;
}

static size_t cu_bytes(const struct dwl_cu *cu)
{
	size_t text = 0;

	for (uint32_t i = 0; i < cu->nfiles; i++)
		if (cu->names[i] != DWL_NONE)
			text += strlen(cu->text + cu->names[i]) + 1;
	return cu->nrows * sizeof(*cu->rows) + cu->nfiles * sizeof(*cu->names) + text;
}

/* cudie's copy, made on its first use; NULL with *rc = -ENOMEM. A CU
 * whose table cannot be copied (none, or past the bounds) is kept as
 * missing, so it is asked once. */
static struct dwl_cu *cu_of(struct kp_dw_lines *x, Dwarf_Die *cudie, int *rc)
{
	struct dwl_cu cu = { .off = dwarf_dieoffset(cudie) };
	size_t i = cu_slot(x, cu.off);

	if (i < x->nr && x->cus[i].off == cu.off)
		return &x->cus[i];
	if (x->nr == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 16;
		struct dwl_cu *n = realloc(x->cus, cap * sizeof(*n));

		if (!n)
			return *rc = -ENOMEM, NULL;
		x->cus = n;
		x->cap = cap;
	}
	*rc = copy_cu(&cu, cudie);
	if (*rc == -ENOMEM) {
		cu_free(&cu);
		return NULL;
	}
	if (*rc) {	/* no table: an empty copy says so */
		cu_free(&cu);
		cu = (struct dwl_cu){ .off = cu.off, .missing = 1 };
	}
	x->bytes += cu_bytes(&cu);
	memmove(&x->cus[i + 1], &x->cus[i], (x->nr - i) * sizeof(*x->cus));
	x->cus[i] = cu;
	x->nr++;
	*rc = 0;
	return &x->cus[i];
}

static const char *name_of(const struct dwl_cu *cu, uint32_t idx)
{
	if (idx >= cu->nfiles || cu->names[idx] == DWL_NONE)
		return NULL;
	return cu->text + cu->names[idx];
}

int kp_dw_lines__at(struct kp_dw_lines *x, Dwarf_Die *cudie, uint64_t vaddr,
		    const char **file, uint32_t *line)
{
	int rc = 0;
	struct dwl_cu *cu = cu_of(x, cudie, &rc);
	const struct dwl_row *r;
	size_t l = 0, u;

	if (!cu)
		return rc;
	if (cu->missing || !cu->nrows || vaddr < cu->base)
		return -ENOENT;
	/* the last row at or before vaddr, as dwarf_getsrc_die finds it */
	u = cu->nrows - 1;
	while (l < u) {
		size_t mid = u - (u - l) / 2;

		if (vaddr - cu->base < cu->rows[mid].off)
			u = mid - 1;
		else
			l = mid;
	}
	r = &cu->rows[l];
	if ((r->file_end & 1) || vaddr - cu->base < r->off ||
	    vaddr - cu->base > UINT32_MAX)
		return -ENOENT;
	*file = name_of(cu, r->file_end >> 1);
	*line = r->line;
	return 0;
}

const char *kp_dw_lines__file(struct kp_dw_lines *x, Dwarf_Die *cudie, uint64_t idx)
{
	int rc = 0;
	struct dwl_cu *cu = cu_of(x, cudie, &rc);

	return cu && idx < UINT32_MAX ? name_of(cu, (uint32_t)idx) : NULL;
}
