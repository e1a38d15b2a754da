// SPDX-License-Identifier: GPL-2.0-only
/* dwcache-bench — what the persistent DWARF cache saves: the CPU time of
 * the first full name (line, inlined frames: DWARF begun) of a library
 * with compressed debug sections, as every start of kptop pays it.
 *
 *   bench/dwcache-bench [LIB] [ROUNDS]
 * LIB (default libc.so.6, whose libc6-dbg debug file is compressed) is
 * loaded into this process; each round names the address of one of its
 * functions with a fresh kp_symbols three ways, in turn: no cache, a cold
 * cache (an empty directory: inflate, then write the cache file) and a
 * warm one (the file written before: mapped, nothing inflated). Prints the
 * median and min CPU ms of each over ROUNDS (default 9), the cache file's
 * size, and checks that the three give the same name and line. Not run by
 * make check (timing): `make bench' builds it. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols/symbols.h"

#define MAX_ROUNDS 64

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The executable mapping of want in this process. */
static int find_map(const char *want, struct kp_sym_map *m, char *path, size_t len)
{
	unsigned long long lo, hi, off, ino;
	char line[4400], perms[8];
	unsigned maj, min;
	FILE *f = fopen("/proc/self/maps", "r");
	int n, found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms,
			   &off, &maj, &min, &ino, &n) < 7 || !strchr(perms, 'x'))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (!strstr(line + n, want))
			continue;
		snprintf(path, len, "%s", line + n);
		*m = (struct kp_sym_map){ .pid = (uint32_t)getpid(), .start = lo,
			.end = hi, .pgoff = off, .maj = maj, .min = min, .ino = ino,
			.path = path };
		found = 1;
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

/* One first lookup: its CPU ms; the frame it gave in *out (name, line). */
static double first_name(const struct kp_sym_map *m, uint64_t addr, const char *dir,
			 char *out, size_t len, struct kp_symbols_stats *st)
{
	struct kp_symbols_opts o = { .dwarf_cache = dir != NULL, .dwarf_cache_dir = dir };
	struct kp_sym_frame f[16];
	struct kp_symbols *s = kp_symbols__new(&o, NULL);
	double t0 = cpu_ms(), t;
	int n = kp_symbols__user(s, m, addr, f, 16);

	t = cpu_ms() - t0;
	snprintf(out, len, "%s:%u (%d frames)", n > 0 ? f[n - 1].name : "?",
		 n > 0 ? f[0].line : 0, n);
	kp_symbols__stats(s, st);
	kp_symbols__free(s);
	return t;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *what, double *v, int n, const char *name)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("  %-12s median %7.2f ms, min %7.2f ms   %s\n", what, v[n / 2], v[0], name);
}

int main(int argc, char **argv)
{
	const char *lib = argc > 1 ? argv[1] : "libc.so.6";
	int rounds = argc > 2 ? atoi(argv[2]) : 9;
	double none[MAX_ROUNDS], cold[MAX_ROUNDS], warm[MAX_ROUNDS];
	char tmpl[] = "/tmp/kp-dwcache-bench-XXXXXX", dir[64], cmd[160];
	char n0[256], n1[256], n2[256], path[4096];
	struct kp_symbols_stats st;
	struct kp_sym_map m;
	void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	void *fn = h ? dlsym(h, "qsort") : NULL;
	uint64_t hits = 0, stored = 0;
	struct stat sb;

	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = 9;
	if (!h || find_map(lib, &m, path, sizeof(path)) || !mkdtemp(tmpl)) {
		fprintf(stderr, "dwcache-bench: cannot load %s or make a directory\n", lib);
		return 1;
	}
	if (!fn || (uint64_t)fn < m.start || (uint64_t)fn >= m.end)
		fn = (void *)(m.start + (m.end - m.start) / 2);
	snprintf(dir, sizeof(dir), "%s/cache", tmpl);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	for (int r = 0; r < rounds; r++) {
		none[r] = first_name(&m, (uint64_t)fn, NULL, n0, sizeof(n0), &st);
		if (system(cmd) != 0)
			return 1;
		cold[r] = first_name(&m, (uint64_t)fn, dir, n1, sizeof(n1), &st);
		stored += st.dwcache_stored;
		warm[r] = first_name(&m, (uint64_t)fn, dir, n2, sizeof(n2), &st);
		hits += st.dwcache_hits;
	}
	printf("%s (%s): the first full name, CPU time, %d rounds, load %s", lib, path,
	       rounds, "");
	fflush(stdout);
	if (system("cut -d' ' -f1-3 /proc/loadavg") != 0)
		printf("\n");
	report("no cache", none, rounds, n0);
	report("cold cache", cold, rounds, n1);
	report("warm cache", warm, rounds, n2);
	snprintf(path, sizeof(path), "%s", dir);
	printf("  cache: %llu written, %llu used; ", (unsigned long long)stored,
	       (unsigned long long)hits);
	fflush(stdout);
	snprintf(cmd, sizeof(cmd), "du -sh '%s' | cut -f1", dir);
	if (system(cmd) != 0)
		printf("\n");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0 || stat(tmpl, &sb) == 0)
		return 1;
	if (strcmp(n0, n1) || strcmp(n0, n2)) {
		fprintf(stderr, "dwcache-bench: names differ: %s / %s / %s\n", n0, n1, n2);
		return 1;
	}
	return stored == (uint64_t)rounds && hits == (uint64_t)rounds ? 0 : 1;
}
