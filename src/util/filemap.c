// SPDX-License-Identifier: GPL-2.0-only
/* filemap.c — read-only file mappings recognised and their pages given
 * back (filemap.h). */
#include "util/filemap.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

/* One line of /proc/self/maps: "start-end perms offset dev inode path". */
static int line_holds(const char *line, uintptr_t a, uintptr_t z)
{
	uintptr_t lo, hi;
	unsigned long long inode;
	char perms[8];

	if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %*x %*x:%*x %llu",
		   &lo, &hi, perms, &inode) != 4)
		return -1;
	if (a < lo || a >= hi)
		return -1;
	/* r--p: readable, never writable, private; a file's (inode) */
	return z <= hi && !strcmp(perms, "r--p") && inode != 0;
}

int kp_filemap__is_file(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, page = (uintptr_t)sysconf(_SC_PAGESIZE);
	char line[512];
	FILE *f;
	int r = 0, h;

	if (!p || !len || (a & (page - 1)) || a + len < a)
		return 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n') && !feof(f)) {	/* a long path: skip its rest */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		h = line_holds(line, a, a + len);
		if (h >= 0) {
			r = h;
			break;
		}
	}
	fclose(f);
	return r;
}

void kp_filemap__release(void *p, size_t len)
{
	(void)madvise(p, len, MADV_DONTNEED);
}
