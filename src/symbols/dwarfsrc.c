#include "symbols/dwarfsrc.h"

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
	f->name = die_str(die, DW_AT_name);
	f->linkage = die_str(die, DW_AT_linkage_name);
	if (!f->linkage)
		f->linkage = die_str(die, DW_AT_MIPS_linkage_name);
}

/* The call site of an inlined scope: its file (via the CU's file table)
 * and line, which locate the next frame out. */
static void call_site(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles,
		      const char **file, uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	*file = NULL;
	*line = 0;
	if (files && dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &v) == 0 &&
	    v < nfiles)
		*file = dwarf_filesrc(files, v, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &v) == 0 &&
	    v <= UINT32_MAX)
		*line = (uint32_t)v;
}

int kp_dwarf__frames(Dwarf *dbg, uint64_t vaddr, struct kp_dw_frame *out, int max)
{
	Dwarf_Die cudie, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Line *l;
	size_t nfiles = 0;
	const char *file = NULL;
	uint32_t line = 0;
	int n, cnt = 0, lineno;

	if (!dbg || max <= 0 || !dwarf_addrdie(dbg, vaddr, &cudie))
		return 0;
	if ((l = dwarf_getsrc_die(&cudie, vaddr)) != NULL) {
		file = dwarf_linesrc(l, NULL, NULL);
		if (dwarf_lineno(l, &lineno) == 0 && lineno > 0)
			line = (uint32_t)lineno;
	}
	if (dwarf_getsrcfiles(&cudie, &files, &nfiles) != 0)
		files = NULL;
	n = dwarf_getscopes(&cudie, vaddr, &scopes);
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
		call_site(&scopes[i], files, nfiles, &file, &line);
	}
	free(scopes);
	return cnt;
}
