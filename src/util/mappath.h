/* SPDX-License-Identifier: GPL-2.0-only */
/* mappath.h — what a mapping's path says: whether it names a file.
 *
 * One rule for the layers that tell anonymous code (JIT code, which has
 * no file to read call frame information or symbols from) from a file's:
 * the model (intern.c: such a module is private to its process) and the
 * unwinder (unwind.c: such code is stepped by its frame pointer or its
 * instructions). Header-only; reads nothing.
 */
#ifndef KP_UTIL_MAPPATH_H
#define KP_UTIL_MAPPATH_H

#include <string.h>

/* Does path name a file? Not "", "[anon:...]", "[heap]" or another
 * bracketed name, nor perf's "//anon" (and "//anon_hugepage"). */
static inline int kp_mappath_is_file(const char *path)
{
	return path && path[0] == '/' && strncmp(path, "//anon", 6) != 0;
}

#endif /* KP_UTIL_MAPPATH_H */
