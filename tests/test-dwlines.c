// SPDX-License-Identifier: GPL-2.0-only
/* test-dwlines.c — the compact line tables (symbols/dwlines.h) against
 * libdw's on real binaries: kptop itself (-O2 -g, many CUs) and libc's
 * debug file where libc6-dbg is installed. Every row's address, and the
 * byte before it, must give what dwarf_getsrc_die gives; every file
 * table entry what dwarf_filesrc gives. Then a module (module.h) whose
 * libdw state is ended as it grows must name every address as before. */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>

#include "symbols/dwlines.h"
#include "symbols/module.h"

#include "elf-section.h"

static char builddir[2048];

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* libdw's answer for vaddr in cudie's CU. */
static int libdw_at(Dwarf_Die *cudie, uint64_t vaddr, const char **file, uint32_t *line)
{
	Dwarf_Line *l = dwarf_getsrc_die(cudie, vaddr);
	int n = 0;

	if (!l)
		return -1;
	*file = dwarf_linesrc(l, NULL, NULL);
	*line = dwarf_lineno(l, &n) == 0 && n > 0 ? (uint32_t)n : 0;
	return 0;
}

static void check_at(struct kp_dw_lines *x, Dwarf_Die *cu, uint64_t v)
{
	const char *fa = NULL, *fb = NULL;
	uint32_t la = 0, lb = 0;
	int ra = kp_dw_lines__at(x, cu, v, &fa, &la), rb = libdw_at(cu, v, &fb, &lb);

	if ((ra == 0) != (rb == 0) || (ra == 0 && (!same_str(fa, fb) || la != lb)))
		fail_msg("%#llx: copy %d %s:%u, libdw %d %s:%u", (unsigned long long)v, ra,
			 fa ? fa : "-", la, rb, fb ? fb : "-", lb);
}

/* Every row (and the byte before it) and every file of one CU. */
static uint64_t check_cu(struct kp_dw_lines *x, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t n, nf;

	if (dwarf_getsrclines(cu, &lines, &n) != 0 || dwarf_getsrcfiles(cu, &files, &nf) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;

		assert_int_equal(dwarf_lineaddr(dwarf_onesrcline(lines, i), &a), 0);
		check_at(x, cu, a);
		if (a)
			check_at(x, cu, a - 1);
	}
	for (size_t i = 0; i < nf; i++)
		assert_true(same_str(kp_dw_lines__file(x, cu, i), dwarf_filesrc(files, i, NULL, NULL)));
	assert_null(kp_dw_lines__file(x, cu, nf));
	assert_true(kp_dw_lines__has(x, cu));
	return n;
}

/* The rows of every CU of path compared; how many (0: no file). */
static uint64_t rows_match(const char *path)
{
	struct kp_dw_lines *x = kp_dw_lines__new();
	Dwarf_Off off = 0, next;
	uint64_t rows = 0;
	size_t hs;
	int fd = open(path, O_RDONLY);
	Dwarf *dw;

	assert_non_null(x);
	if (fd < 0) {
		kp_dw_lines__free(x);
		return 0;
	}
	dw = dwarf_begin(fd, DWARF_C_READ);
	assert_non_null(dw);
	while (dwarf_nextcu(dw, off, &next, &hs, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hs, &cu))
			rows += check_cu(x, &cu);
		off = next;
	}
	print_message("dwlines: %s: %llu rows, copies %zu bytes (%.1f a row)\n", path,
		      (unsigned long long)rows, kp_dw_lines__bytes(x),
		      rows ? (double)kp_dw_lines__bytes(x) / (double)rows : 0.0);
	kp_dw_lines__free(x);
	dwarf_end(dw);
	close(fd);
	return rows;
}

static void libc_debug(char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], lib[PATH_MAX] = "";
	struct kp_elf_info info;
	int fd, n;
	Elf *elf;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %*s %4095s", lib) == 1 && strstr(lib, "/libc.so"))
			break;
	fclose(f);
	snprintf(path, len, "/nonexistent");
	if (!strstr(lib, "/libc.so") || (fd = open(lib, O_RDONLY)) < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && kp_elf__info(elf, &info) == 0 && info.build_id_len > 1) {
		n = snprintf(path, len, "/usr/lib/debug/.build-id/%02x/", info.build_id[0]);
		for (unsigned i = 1; i < info.build_id_len; i++)
			n += snprintf(path + n, len - (size_t)n, "%02x", info.build_id[i]);
		snprintf(path + n, len - (size_t)n, ".debug");
	}
	elf_end(elf);
	close(fd);
}

static void test_rows_match(void **state)
{
	char path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/kptop", builddir);
	if (access(path, R_OK))
		skip();		/* the program is built before `make check' runs */
	assert_true(rows_match(path) > 10000);
	libc_debug(path, sizeof(path));
	if (!rows_match(path))
		print_message("dwlines: no libc debug file (%s): libc6-dbg not installed\n", path);
}

/* The .text section of fd: [*lo, *hi). */
static void text_of(int fd, uint64_t *lo, uint64_t *hi)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Shdr sh;

	assert_non_null(elf);
	sh = elf_section(elf, ".text");
	*lo = sh.sh_addr;
	*hi = sh.sh_addr + sh.sh_size;
	elf_end(elf);
	assert_true(*hi > *lo);
}

static struct kp_module *open_module(const char *path)
{
	/* a low bound: libdw's state is ended some times over kptop's DWARF,
	 * also where the heap cannot be measured (ASan) */
	struct kp_module_opts o = { .path = path, .max_file_size = 1ull << 30,
				    .dw_trim_bytes = 256 << 10 };
	struct kp_module_stats st = { 0 };
	int fd = open(path, O_RDONLY);
	struct kp_module *m;

	assert_true(fd >= 0);
	m = kp_module__open(fd, &o, &st);
	assert_non_null(m);
	return m;
}

static void same_frames(uint64_t v, const struct kp_sym_frame *a, int na,
			const struct kp_sym_frame *b, int nb)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++)
		if (!same_str(a[i].name, b[i].name) || !same_str(a[i].file, b[i].file) ||
		    a[i].line != b[i].line || a[i].inlined != b[i].inlined)
			fail_msg("%#llx frame %d: %s %s:%u vs %s %s:%u", (unsigned long long)v,
				 i, a[i].name, a[i].file, a[i].line, b[i].name, b[i].file,
				 b[i].line);
}

/* kptop's .text named every step-th byte by two modules, one going up
 * and one down: each ends libdw's state at other addresses (a bound of
 * 256 KiB), and both must name every address alike,
 * with lines and inlined frames; the first answers the second pass from
 * its name cache, filled across its own ends of libdw's state. */
static void test_trim_same_names(void **state)
{
	char path[PATH_MAX];
	struct kp_module *up, *down;
	uint64_t lo = 0, hi = 0, nr, lines = 0;
	const uint64_t step = 29;
	struct kp_sym_frame a[16], b[16];
	unsigned tu, td;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/kptop", builddir);
	if (access(path, R_OK))
		skip();
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	text_of(fd, &lo, &hi);
	close(fd);
	up = open_module(path);
	down = open_module(path);
	nr = (hi - lo) / step;
	for (uint64_t i = 0; i < nr; i++)
		(void)kp_module__lookup(up, lo + i * step, a, 16);
	for (uint64_t i = nr; i-- > 0;) {
		uint64_t v = lo + i * step;
		int nb = kp_module__lookup(down, v, b, 16);
		int na = kp_module__lookup(up, v, a, 16);

		same_frames(v, a, na, b, nb);
		lines += na > 0 && a[na - 1].line > 0;
	}
	tu = kp_module__dwarf_trims(up);
	td = kp_module__dwarf_trims(down);
	print_message("dwlines: %llu addresses, %llu with a line; libdw ended %u and %u times, "
		      "modules %zu and %zu bytes\n", (unsigned long long)nr,
		      (unsigned long long)lines, tu, td, kp_module__bytes(up),
		      kp_module__bytes(down));
	kp_module__free(up);
	kp_module__free(down);
	assert_true(tu > 2 && td > 2);
	assert_true(lines > nr / 2);
}

static int setup(void **state)
{
	const char *b = getenv("top_builddir");

	(void)state;
	snprintf(builddir, sizeof(builddir), "%s", b ? b : ".");
	elf_version(EV_CURRENT);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_match),
		cmocka_unit_test(test_trim_same_names),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
