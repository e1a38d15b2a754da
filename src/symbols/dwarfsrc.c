// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/dwarfsrc.h"

#include "symbols/dwarfidx.h"
#include "symbols/dwlines.h"

#include <errno.h>
#include <stdlib.h>

#include <dwarf.h>

static const char *die_str(Dwarf_Die *die, unsigned int at)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, at, &a))
		return NULL;
	return dwarf_formstring(&a);
}

static void fill_names(Dwarf_Die *die, struct kp_dw_frame *f)
{
	int decl;

	/* through abstract origins, as the name */
	f->decl_line = dwarf_decl_line(die, &decl) == 0 && decl > 0 ? (uint32_t)decl : 0;
	f->name = die_str(die, DW_AT_name);
	f->linkage = die_str(die, DW_AT_linkage_name);
	if (!f->linkage)
		f->linkage = die_str(die, DW_AT_MIPS_linkage_name);
}

/* The CU's line table, from the copies (ln) or from libdw. */
struct cu_lines {
	struct kp_dw_lines *ln;
	Dwarf_Die *cudie;
	Dwarf_Files *files;	/* libdw's, read on first need */
	size_t nfiles;
	int files_read;
};

static const char *file_name(struct cu_lines *cl, Dwarf_Word v)
{
	if (cl->ln)
		return kp_dw_lines__file(cl->ln, cl->cudie, v);
	if (!cl->files_read) {
		cl->files_read = 1;
		if (dwarf_getsrcfiles(cl->cudie, &cl->files, &cl->nfiles) != 0)
			cl->files = NULL;
	}
	return cl->files && v < cl->nfiles ? dwarf_filesrc(cl->files, v, NULL, NULL) : NULL;
}

/* The line at vaddr: *file and *line, left NULL and 0 when none. The
 * copies' file names outlive libdw's state (module.c ends it). */
static void line_at(struct cu_lines *cl, uint64_t vaddr, const char **file,
		    uint32_t *line)
{
	Dwarf_Line *l;
	int lineno;

	if (cl->ln) {	/* out of memory: no line (libdw's would not last) */
		(void)kp_dw_lines__at(cl->ln, cl->cudie, vaddr, file, line);
		return;
	}
	if ((l = dwarf_getsrc_die(cl->cudie, vaddr)) != NULL) {
		*file = dwarf_linesrc(l, NULL, NULL);
		if (dwarf_lineno(l, &lineno) == 0 && lineno > 0)
			*line = (uint32_t)lineno;
	}
}

/* The call site of an inlined scope: its file (via the CU's file table)
 * and line, which locate the next frame out. */
static void call_site(Dwarf_Die *die, struct cu_lines *cl, const char **file,
		      uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &v) == 0)
		*file = file_name(cl, v);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &v) == 0 &&
	    v <= UINT32_MAX)
		*line = (uint32_t)v;
}

static int is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram;
}

/* dwarf_getscopes() continues from an inlined instance into the scopes of
 * its abstract definition; the callers are the concrete DIEs around the
 * instance, which dwarf_getscopes_die() walks. */
static int innermost_chain(Dwarf_Die *cudie, uint64_t vaddr, Dwarf_Die **out)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cudie, vaddr, &scopes), i;

	for (i = 0; i < n && !is_function(&scopes[i]); i++)
		;
	if (i < n && dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
		Dwarf_Die inner = scopes[i];

		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	*out = n > 0 ? scopes : NULL;
	if (n <= 0)
		free(scopes);
	return n;
}

/* The function-like scopes around vaddr, innermost first, from the index
 * (or, without one or out of memory, from libdw's walks). */
static int scope_chain(Dwarf *dbg, struct kp_dw_index *x, Dwarf_Die *cudie,
		       uint64_t vaddr, Dwarf_Die **out)
{
	Dwarf_Off offs[64];
	Dwarf_Die *dies;
	int n = x ? kp_dw_index__scopes(x, cudie, vaddr, offs, 64) : -ENOMEM, k = 0;

	if (n < 0)
		return innermost_chain(cudie, vaddr, out);
	*out = NULL;
	if (n == 0 || !(dies = calloc((size_t)n, sizeof(*dies))))
		return 0;
	for (int i = 0; i < n; i++)
		if (dwarf_offdie(dbg, offs[i], &dies[k]))
			k++;
	if (k == 0)
		free(dies);
	else
		*out = dies;
	return k;
}

int kp_dwarf__frames(Dwarf *dbg, struct kp_dw_index *x, struct kp_dw_lines *ln,
		     uint64_t vaddr, struct kp_dw_frame *out, int max)
{
	Dwarf_Die cudie, *scopes = NULL;
	struct cu_lines cl = { .ln = ln, .cudie = &cudie };
	const char *file = NULL;
	uint32_t line = 0;
	int n, cnt = 0;

	if (!dbg || max <= 0 || !dwarf_addrdie(dbg, vaddr, &cudie))
		return 0;
	line_at(&cl, vaddr, &file, &line);
	n = scope_chain(dbg, x, &cudie, vaddr, &scopes);
	for (int i = 0; i < n && cnt < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		struct kp_dw_frame *f = &out[cnt];

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		fill_names(&scopes[i], f);
		f->file = file;
		f->line = line;
		f->inlined = tag == DW_TAG_inlined_subroutine;
		cnt++;
		if (tag == DW_TAG_subprogram)
			break;
		call_site(&scopes[i], &cl, &file, &line);
	}
	free(scopes);
	return cnt;
}

int kp_dwarf__new_cu(Dwarf *dbg, const struct kp_dw_index *x, uint64_t vaddr)
{
	Dwarf_Die cudie;

	return dbg && dwarf_addrdie(dbg, vaddr, &cudie) && !kp_dw_index__has(x, &cudie);
}
