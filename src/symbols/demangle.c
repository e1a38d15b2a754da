// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/demangle.h"

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

/* libiberty's demangler recurses (with its own depth limit); refuse
 * names long enough to matter anyway. */
#define KP_DEMANGLE_INPUT_MAX 4096

int kp_is_mangled(const char *name)
{
	if (!name)
		return 0;
	return (name[0] == '_' && name[1] == 'Z') ||
	       (name[0] == '_' && name[1] == 'R') ||
	       (name[0] == '_' && name[1] == '_' && name[2] == 'Z');
}

char *kp_demangle(const char *name)
{
	const char *p = name;
	char *out;

	if (!kp_is_mangled(name) || strnlen(name, KP_DEMANGLE_INPUT_MAX + 1) >
	    KP_DEMANGLE_INPUT_MAX)
		return NULL;
	if (p[1] == '_')	/* __Z: some toolchains add an underscore */
		p++;
	out = cplus_demangle(p, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	/* default recursion limit of libiberty is kept */
	return out;
}
