/* SPDX-License-Identifier: GPL-2.0-only */
/* smaps-rss.h — for the cmocka tests (header-only): how much of a file
 * kptop's code has mapped is resident, from /proc/self/smaps. Used by
 * the tests that check file pages are given back (test-symbols,
 * test-unwind). Include after <cmocka.h>. */
#ifndef KP_TESTS_SMAPS_RSS_H
#define KP_TESTS_SMAPS_RSS_H

#include <stdio.h>
#include <string.h>

/* kB of /proc/self/smaps "Rss:" over the mappings of path. */
static long rss_of(const char *path)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[1024], perms[8];
	unsigned long lo, hi, off, ino;
	unsigned dmaj, dmin;
	long kb = 0, v;
	int in = 0, at = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &lo, &hi, perms, &off,
			   &dmaj, &dmin, &ino, &at) == 7) {
			in = !strcmp(line + at, path);
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
			kb += v;
	}
	fclose(f);
	return kb;
}

#endif
