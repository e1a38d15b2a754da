// SPDX-License-Identifier: GPL-2.0-only
/* symbols-bench — cost of naming user frames (issue 4's benchmark).
 *
 *   bench/symbols-bench [LIB...]
 * For each shared library (default: libc.so.6 and libstdc++.so.6, loaded
 * into this process), it builds a 100k-sample "profile": 20k distinct
 * instruction addresses inside the library's functions, sampled with a
 * skew like a real profile (a few hot functions take most samples). Each
 * library is measured twice: with the default debug dirs (a -dbg/-dbgsym
 * package gives DWARF: lines and inline frames) and with none (symbol
 * tables only). It reports:
 *   load   time and memory to load the module (first lookup of a fresh
 *          kp_symbols: ELF, debug file search, symbol table), best of 5;
 *   cold   ns per lookup on the first pass (names made, C++ demangled);
 *   cached ns per lookup on later passes (the module's name cache).
 * Not run by make check (timing): `make bench' builds it. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "symbols/elfread.h"
#include "symbols/symbols.h"
#include "symbols/symtab.h"

#define NR_SAMPLES 100000
#define NR_PCS 20000		/* distinct sampled instructions */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The executable mapping of path in this process. */
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

/* 100k addresses inside the library's functions, skewed. */
static uint64_t *make_profile(const struct kp_sym_map *m, size_t *nr_funcs)
{
	struct kp_symtab *t = kp_symtab__new();
	struct kp_elf_info info;
	uint64_t *addrs = malloc(NR_SAMPLES * sizeof(*addrs)), base = 0;
	static uint64_t pcs[NR_PCS];
	int fd = open(m->path, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n;

	kp_elf__info(elf, &info);
	for (size_t i = 0; i < info.nr_loads; i++)
		if (info.loads[i].flags & PF_X)
			base = m->start - m->pgoff - (info.loads[i].vaddr - info.loads[i].offset);
	kp_elf__add_symbols(elf, t, KP_ELF_SYMTAB | KP_ELF_DYNSYM);
	kp_symtab__finish(t);
	n = kp_symtab__count(t);
	*nr_funcs = n;
	srand(42);
	for (size_t i = 0; i < NR_PCS && n; i++) {
		/* cubing a uniform pick favours the low indices */
		double u = (double)rand() / RAND_MAX;
		const struct kp_sym *s = kp_symtab__at(t, (size_t)(u * u * u * (n - 1)));
		uint64_t size = s->end > s->start ? s->end - s->start : 1;

		pcs[i] = base + s->start + (uint64_t)rand() % size;
	}
	for (size_t i = 0; i < NR_SAMPLES && n; i++) {
		double u = (double)rand() / RAND_MAX;

		addrs[i] = pcs[(size_t)(u * u * (NR_PCS - 1))];
	}
	kp_symtab__free(t);
	elf_end(elf);
	close(fd);
	return addrs;
}

static void bench_lib(const char *lib, int with_debug)
{
	static const char *const none[] = { NULL };
	struct kp_symbols_opts o = { .debug_dirs = with_debug ? NULL : none };
	struct kp_sym_frame f[16];
	struct kp_symbols_stats st = { 0 };
	struct kp_sym_map m;
	char path[4096];
	double t0, load = 1e18, cold = 0, cached = 0;
	size_t nr_funcs, named = 0;
	uint64_t *addrs;

	if (!dlopen(lib, RTLD_NOW | RTLD_GLOBAL) || find_map(lib, &m, path, sizeof(path))) {
		printf("%s: not loadable, skipped\n", lib);
		return;
	}
	addrs = make_profile(&m, &nr_funcs);
	for (int rep = 0; rep < 5; rep++) {
		struct kp_symbols *s = kp_symbols__new(&o, NULL);

		t0 = now_ns();
		kp_symbols__user(s, &m, addrs[0], f, 16);
		t0 = now_ns() - t0;
		load = t0 < load ? t0 : load;
		if (rep == 4) {
			t0 = now_ns();
			for (size_t i = 0; i < NR_SAMPLES; i++)
				named += kp_symbols__user(s, &m, addrs[i], f, 16) > 0;
			cold = (now_ns() - t0) / NR_SAMPLES;
			t0 = now_ns();
			for (int pass = 0; pass < 5; pass++)
				for (size_t i = 0; i < NR_SAMPLES; i++)
					kp_symbols__user(s, &m, addrs[i], f, 16);
			cached = (now_ns() - t0) / (5.0 * NR_SAMPLES);
			kp_symbols__stats(s, &st);
		}
		kp_symbols__free(s);
	}
	printf("%s (%s), %s\n  functions %zu, samples %d (%d distinct), named %zu\n",
	       lib, path, with_debug ? (st.debug_build_id + st.debug_debuglink ?
	       "with its debug file (DWARF)" : "no debug file found") :
	       "symbol tables only", nr_funcs, NR_SAMPLES, NR_PCS, named);
	printf("  load   %.2f ms, module memory %.1f KiB (after the run)\n",
	       load / 1e6, st.bytes / 1024.0);
	printf("  cold   %.0f ns/lookup (first pass)\n", cold);
	printf("  cached %.0f ns/lookup\n", cached);
	free(addrs);
}

int main(int argc, char **argv)
{
	static const char *const dflt[] = { "libc.so.6", "libstdc++.so.6" };

	elf_version(EV_CURRENT);
	for (int dbg = 1; dbg >= 0; dbg--) {
		if (argc > 1)
			for (int i = 1; i < argc; i++)
				bench_lib(argv[i], dbg);
		else
			for (size_t i = 0; i < 2; i++)
				bench_lib(dflt[i], dbg);
	}
	return 0;
}
