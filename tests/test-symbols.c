// SPDX-License-Identifier: GPL-2.0-only
/* test-symbols.c — the symbols layer against fixtures built by `make
 * check' (tests/fixtures/): addresses from the fixtures' own nm output must
 * resolve to the right names (and lines where there is DWARF); hostile
 * files must give a clean miss. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "smaps-rss.h"
#include <gelf.h>

#include "elf-section.h"

#include "symbols/dwarfidx.h"
#include "symbols/dwlines.h"
#include "symbols/dwarfsrc.h"
#include "symbols/elfread.h"
#include "symbols/fdetab.h"
#include "symbols/jitdump.h"
#include "symbols/jitmap.h"
#include "symbols/jitname.h"
#include "symbols/symbols.h"
#include "symbols/symtab.h"

static char builddir[2048], srcdir[2048];

static const char *fx(const char *name)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/tests/fixtures/%s", builddir, name);
	return buf[i];
}

/* Address of sym in bin, from nm (the fixture's own symbol table). */
static uint64_t nm_addr(const char *bin, const char *sym)
{
	char cmd[PATH_MAX + 64], line[512], name[400];
	unsigned long long a;
	uint64_t found = 0;
	char type;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %399s", &a, &type, name) == 3 &&
		    strcmp(name, sym) == 0)
			found = a;
	pclose(p);
	if (!found)
		fail_msg("nm: %s not in %s", sym, bin);
	return found;
}

/* Line of the marker in tests/fixtures/fx-prog.c. */
static uint32_t marker_line(const char *marker)
{
	char path[PATH_MAX + 32], line[512];
	uint32_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/fx-prog.c", srcdir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("marker %s not found", marker);
	return 0;
}

/* A mapping of the executable PT_LOAD of bin at load bias `base`, as the
 * kernel would make it (pid 0: a host file). */
static void exec_map(const char *bin, uint64_t base, struct kp_sym_map *m)
{
	struct kp_elf_info info;
	struct stat st;
	Elf *elf;
	int fd = open(bin, O_RDONLY);

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_int_equal(kp_elf__info(elf, &info), 0);
	assert_int_equal(fstat(fd, &st), 0);
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < info.nr_loads; i++) {
		const struct kp_elf_load *l = &info.loads[i];

		if (!(l->flags & PF_X))
			continue;
		m->start = base + (l->vaddr & ~0xfffull);
		m->end = (base + l->vaddr + l->memsz + 0xfff) & ~0xfffull;
		m->pgoff = l->offset & ~0xfffull;
	}
	m->maj = major(st.st_dev);
	m->min = minor(st.st_dev);
	m->ino = st.st_ino;
	m->path = bin;
	elf_end(elf);
	close(fd);
	assert_true(m->end > m->start);
}

static struct kp_symbols *new_syms(const char *const *dirs)
{
	static const char *const none[] = { NULL };
	struct kp_symbols_opts o = { .debug_dirs = dirs ? dirs : none };
	struct kp_err err = { 0 };
	struct kp_symbols *s = kp_symbols__new(&o, &err);

	assert_non_null(s);
	return s;
}

static int lookup(struct kp_symbols *s, const char *bin, uint64_t base,
		  const char *sym, const char *mapped_as,
		  struct kp_sym_frame *f, int max)
{
	struct kp_sym_map m;

	exec_map(mapped_as ? mapped_as : bin, base, &m);
	return kp_symbols__user(s, &m, base + nm_addr(bin, sym), f, max);
}

static void expect_leaf(struct kp_symbols *s, const char *bin, uint64_t base,
			const char *mapped_as, int with_line)
{
	struct kp_sym_frame f[8];
	int n = lookup(s, bin, base, "kp_mark_leaf", mapped_as, f, 8);

	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "kp_leaf");
	assert_null(f[0].mangled);
	if (with_line) {
		assert_non_null(f[0].file);
		assert_non_null(strstr(f[0].file, "fx-prog.c"));
		assert_int_equal(f[0].line, marker_line("MARK_LEAF"));
	}
	n = lookup(s, bin, base, "kp_outer", mapped_as, f, 8);
	assert_true(n >= 1);
	assert_string_equal(f[n - 1].name, "kp_outer");
}

static void test_nopie(void **state)
{
	struct kp_symbols *s = new_syms(NULL);

	expect_leaf(s, fx("fx-prog-nopie"), 0, NULL, 1);
	kp_symbols__free(s);
}

static void test_pie_random_base(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	uint64_t base = 0x555500000000ull + ((uint64_t)(rand() & 0xffff) << 12);

	expect_leaf(s, fx("fx-prog-pie"), base, NULL, 1);
	kp_symbols__free(s);
}

static void test_demangle(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	const char *bin = fx("fx-prog-pie");
	struct kp_sym_frame f[4];
	uint64_t base = 0x7f0000000000ull;
	int n = lookup(s, bin, base, "_ZNK2ns3BoxIiE3getEi", NULL, f, 4);

	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "ns::Box<int>::get(int) const");
	assert_string_equal(f[0].mangled, "_ZNK2ns3BoxIiE3getEi");
	n = lookup(s, bin, base, "_RNvCs1234_7mycrate4work", NULL, f, 4);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "mycrate::work");
	assert_string_equal(f[0].mangled, "_RNvCs1234_7mycrate4work");
	kp_symbols__free(s);

	/* demangling off: the mangled name is the name */
	struct kp_symbols_opts o = { .no_demangle = 1 };
	s = kp_symbols__new(&o, NULL);
	assert_non_null(s);
	n = lookup(s, bin, base, "_ZNK2ns3BoxIiE3getEi", NULL, f, 4);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "_ZNK2ns3BoxIiE3getEi");
	kp_symbols__free(s);
}

/* The table's own rules: a zero-sized entry reaches the next entry
 * within its limit, a sized alias wins its address, and demangled names
 * (more than the side table first holds) are made once and kept. */
static void test_symtab_rules(void **state)
{
	struct kp_symtab *t = kp_symtab__new();
	const char *kept[40];
	const struct kp_sym *s;
	char name[32], want[32];

	(void)state;
	assert_non_null(t);
	assert_int_equal(kp_symtab__add(t, 0x800, 0, 0, "reaches", KP_SYM_RANK_GLOBAL), 0);
	assert_int_equal(kp_symtab__add(t, 0x1000, 0, 0, "alias", KP_SYM_RANK_GLOBAL), 0);
	assert_int_equal(kp_symtab__add(t, 0x1000, 0x10, 0, "sized", KP_SYM_RANK_LOCAL), 0);
	assert_int_equal(kp_symtab__add(t, 0x2000, 0, 0x2100, "limited", KP_SYM_RANK_GLOBAL), 0);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "_Z4f%03dv", i);
		assert_int_equal(kp_symtab__add(t, 0x4000 + 0x10 * (uint64_t)i, 0x10, 0,
						name, KP_SYM_RANK_GLOBAL), 0);
	}
	assert_int_equal(kp_symtab__add(t, 0x9000, 0, 0, "last", KP_SYM_RANK_GLOBAL), 0);
	assert_int_equal(kp_symtab__finish(t), 0);

	s = kp_symtab__lookup(t, 0xfff);
	assert_non_null(s);
	assert_string_equal(kp_symtab__name(t, s), "reaches");
	assert_true(s->start == 0x800 && s->end == 0x1000);
	assert_string_equal(kp_symtab__name(t, kp_symtab__lookup(t, 0x1000)), "sized");
	s = kp_symtab__lookup(t, 0x20ff);
	assert_non_null(s);
	assert_string_equal(kp_symtab__name(t, s), "limited");
	assert_null(kp_symtab__lookup(t, 0x2100));
	assert_null(kp_symtab__lookup(t, 0x9000));	/* open-ended, nothing after */
	assert_null(kp_symtab__demangled(t, kp_symtab__lookup(t, 0x800)));
	for (int i = 0; i < 40; i++) {
		s = kp_symtab__lookup(t, 0x4000 + 0x10 * (uint64_t)i + 3);
		assert_non_null(s);
		kept[i] = kp_symtab__demangled(t, s);
		snprintf(want, sizeof(want), "f%03d()", i);
		assert_non_null(kept[i]);
		assert_string_equal(kept[i], want);
	}
	for (int i = 0; i < 40; i++)	/* the same strings, made once */
		assert_ptr_equal(kp_symtab__demangled(t, kp_symtab__lookup(t, 0x4000 + 0x10 * (uint64_t)i)),
				 kept[i]);
	assert_null(kp_symtab__demangled(t, kp_symtab__lookup(t, 0x800)));
	assert_int_equal(kp_symtab__count(t), 44);	/* the alias dropped */
	kp_symtab__free(t);
}

static void test_inline(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	struct kp_sym_frame f[8];
	int n = lookup(s, fx("fx-prog-pie"), 0x10000, "kp_mark_inline", NULL, f, 8);

	assert_int_equal(n, 2);
	assert_string_equal(f[0].name, "kp_inner");
	assert_int_equal(f[0].inlined, 1);
	assert_int_equal(f[0].line, marker_line("MARK_INLINE"));
	assert_string_equal(f[1].name, "kp_outer");
	assert_int_equal(f[1].inlined, 0);
	assert_int_equal(f[1].line, marker_line("MARK_CALL"));
	kp_symbols__free(s);
}

/* The file pages a DWARF lookup touched leave kptop's RSS (the first
 * lookup, and then every 10 s): they are libelf's read-only map of
 * another program's file, outside the memory budget. */
static void test_pages_released(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	struct kp_sym_frame f[8];
	char path[PATH_MAX];
	int n = lookup(s, fx("fx-prog-pie"), 0x10000, "kp_mark_inline", NULL, f, 8);

	assert_int_equal(n, 2);
	assert_non_null(realpath(fx("fx-prog-pie"), path));
	assert_int_equal(rss_of(path), 0);
	kp_symbols__free(s);
}

/* The function alone comes from the symbol table, DWARF left unread,
 * also where no symbol holds the pc; a full lookup then reads it. Also
 * through a separate debug file. */
static void test_function_only(void **state)
{
	char dir[PATH_MAX];
	const char *dirs[] = { dir, NULL };
	struct kp_symbols *s = new_syms(NULL);
	struct kp_symbols_stats st;
	struct kp_sym_frame f[8];
	struct kp_sym_map m;
	uint64_t span[2];
	const char *bin = fx("fx-prog-pie");

	exec_map(bin, 0x10000, &m);
	assert_int_equal(kp_symbols__user_function(s, &m, 0x10000 +
						   nm_addr(bin, "kp_mark_inline"), f, span), 1);
	assert_string_equal(f[0].name, "kp_outer");
	assert_int_equal(f[0].inlined, 0);
	/* the function's bytes on either side of an address inside it */
	assert_int_equal(kp_symbols__user_function(s, &m, 0x10000 + 2 +
						   nm_addr(bin, "kp_outer"), f, span), 1);
	assert_int_equal(span[0], 2);
	assert_true(span[1] > 2 && span[1] < 4096);
	/* no symbol there (the padding after main): unknown, still no DWARF */
	assert_int_equal(kp_symbols__user_function(s, &m, 0x10000 +
						   nm_addr(bin, "_start") - 4, f, span), 0);
	assert_int_equal(span[0] + span[1], 0);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.dwarf_begun, 0);
	assert_int_equal(lookup(s, bin, 0x10000, "kp_mark_inline", NULL, f, 8), 2);
	assert_string_equal(f[1].name, "kp_outer");
	kp_symbols__stats(s, &st);
	assert_int_equal(st.dwarf_begun, 1);
	kp_symbols__free(s);

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/debug", builddir);
	s = new_syms(dirs);
	exec_map(fx("fx-buildid"), 0x30000, &m);
	assert_int_equal(kp_symbols__user_function(s, &m, 0x30000 +
						   nm_addr(bin, "kp_mark_leaf"), f, NULL), 1);
	assert_string_equal(f[0].name, "kp_leaf");
	kp_symbols__stats(s, &st);
	assert_int_equal(st.debug_build_id, 1);
	assert_int_equal(st.dwarf_begun, 0);
	kp_symbols__free(s);
}

/* The PLT entry of printf is named printf@plt (objdump says where). */
static void test_plt(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	const char *bin = fx("fx-prog-nopie");
	char cmd[PATH_MAX + 64], line[512];
	unsigned long long a = 0;
	struct kp_sym_frame f[2];
	struct kp_sym_map m;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec '%s'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "<printf@plt>:"))
			a = strtoull(line, NULL, 16);
	pclose(p);
	assert_true(a != 0);
	exec_map(bin, 0, &m);
	assert_int_equal(kp_symbols__user(s, &m, a + 4, f, 2), 1);
	assert_string_equal(f[0].name, "printf@plt");
	kp_symbols__free(s);
}

static void test_outside_any_symbol(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	struct kp_sym_frame f[2];
	struct kp_sym_map m;

	exec_map(fx("fx-prog-nopie"), 0, &m);
	/* the padding after the last function of the text segment */
	assert_int_equal(kp_symbols__user(s, &m, m.end - 1, f, 2), 0);
	/* outside the mapping */
	assert_int_equal(kp_symbols__user(s, &m, m.end, f, 2), 0);
	kp_symbols__free(s);
}

static void test_debuglink(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	struct kp_symbols_stats st;

	/* stripped: names only come from fx-debuglink.debug next to it */
	expect_leaf(s, fx("fx-prog-pie"), 0x20000, fx("fx-debuglink"), 1);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.debug_debuglink, 1);
	kp_symbols__free(s);
}

static void copy_file(const char *from, const char *to)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
}

static char tmpdir[2048];

static const char *tmp(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

/* A debug file of another build under the debuglink name is refused. */
static void test_debuglink_mismatch(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	struct kp_symbols_stats st;
	struct kp_sym_frame f[4];

	copy_file(fx("fx-debuglink"), tmp("fx-debuglink"));
	copy_file(fx("fx-wrong.debug"), tmp("fx-debuglink.debug"));
	assert_int_equal(lookup(s, fx("fx-prog-pie"), 0, "kp_mark_leaf",
				tmp("fx-debuglink"), f, 4), 0);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.debug_debuglink, 0);
	assert_true(st.debug_rejected >= 1);
	kp_symbols__free(s);
}

static void test_build_id(void **state)
{
	char dir[PATH_MAX];
	const char *dirs[] = { dir, NULL };
	struct kp_symbols *s;
	struct kp_symbols_stats st;
	struct kp_sym_frame f[4];

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/debug", builddir);
	s = new_syms(dirs);
	expect_leaf(s, fx("fx-prog-pie"), 0x30000, fx("fx-buildid"), 1);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.debug_build_id, 1);
	kp_symbols__free(s);

	/* without the debug dir the stripped binary names nothing */
	s = new_syms(NULL);
	assert_int_equal(lookup(s, fx("fx-prog-pie"), 0, "kp_mark_leaf",
				fx("fx-buildid"), f, 4), 0);
	kp_symbols__free(s);
}

static void test_minidebuginfo(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	struct kp_symbols_stats st;

	expect_leaf(s, fx("fx-prog-pie"), 0x40000, fx("fx-mini"), 0);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.debug_mini, 1);
	kp_symbols__free(s);
}

/* The mapping of our own process that holds addr, from /proc/self/maps. */
static void self_map(uint64_t addr, struct kp_sym_map *m, char *path, size_t len)
{
	unsigned long long lo, hi, off, ino;
	unsigned maj, min;
	char line[PATH_MAX + 128], p[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		p[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %4095s", &lo, &hi,
			   &off, &maj, &min, &ino, p) < 6 || addr < lo || addr >= hi)
			continue;
		memset(m, 0, sizeof(*m));
		m->pid = (uint32_t)getpid();
		m->start = lo;
		m->end = hi;
		m->pgoff = off;
		m->maj = maj;
		m->min = min;
		m->ino = ino;
		snprintf(path, len, "%s", p);
		m->path = path;
		found = 1;
	}
	fclose(f);
	assert_true(found);
}

static void test_shared_lib(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	const char *lib = fx("libfx.so");
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	struct kp_sym_frame f[4];
	struct kp_sym_map m;
	char path[PATH_MAX];
	Dl_info di;
	void *beta;
	uint64_t hidden;

	assert_non_null(h);
	beta = dlsym(h, "kp_lib_beta");
	assert_non_null(beta);
	assert_true(dladdr(beta, &di) != 0);
	self_map((uint64_t)(uintptr_t)beta, &m, path, sizeof(path));
	assert_int_equal(kp_symbols__user(s, &m, (uint64_t)(uintptr_t)beta, f, 4), 1);
	assert_string_equal(f[0].name, "kp_lib_beta");
	assert_string_equal(kp_symbols__module_name(s, &m, 0), "libfx.so");
	/* a static function, by its nm address plus the load base */
	hidden = (uint64_t)(uintptr_t)di.dli_fbase + nm_addr(lib, "kp_lib_hidden");
	self_map(hidden, &m, path, sizeof(path));
	assert_int_equal(kp_symbols__user(s, &m, hidden + 1, f, 4), 1);
	assert_string_equal(f[0].name, "kp_lib_hidden");
	dlclose(h);
	kp_symbols__free(s);
}

static struct kp_symbols *new_syms_keep(unsigned keep)
{
	static const char *const none[] = { NULL };
	struct kp_symbols_opts o = { .debug_dirs = none, .keep_idle_modules = keep };
	struct kp_err err = { 0 };
	struct kp_symbols *s = kp_symbols__new(&o, &err);

	assert_non_null(s);
	return s;
}

/* Two processes map the same file: one module; unused after the last,
 * and then kept for the next process instead of loaded again. */
static void test_module_sharing(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	struct kp_symbols_stats st;
	struct kp_sym_frame f[4];
	struct kp_sym_map m;
	const char *bin = fx("fx-prog-nopie");
	uint64_t a = nm_addr(bin, "kp_leaf");

	(void)state;
	exec_map(bin, 0, &m);
	m.proc_start = 1;
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 1);
	m.proc_start = 2;
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 1);
	/* its file gone from the path (process exited, file deleted): the
	 * module loaded from the same device + inode still names it */
	m.proc_start = 3;
	m.path = "/nonexistent/fx-prog-nopie";
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 1);
	assert_string_equal(f[0].name, "kp_leaf");
	kp_symbols__process_gone(s, 0, 3);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.modules_loaded, 1);
	assert_int_equal(st.modules_live, 1);
	assert_int_equal(st.modules_idle, 0);
	kp_symbols__process_gone(s, 0, 1);
	kp_symbols__process_gone(s, 0, 2);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.modules_live, 1);
	assert_int_equal(st.modules_idle, 1);
	assert_int_equal(st.modules_freed, 0);
	/* a new process maps it: no second load */
	exec_map(bin, 0, &m);
	m.proc_start = 4;
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 1);
	assert_string_equal(f[0].name, "kp_leaf");
	kp_symbols__stats(s, &st);
	assert_int_equal(st.modules_loaded, 1);
	assert_int_equal(st.modules_idle, 0);
	kp_symbols__free(s);

	/* keep_idle_modules = 1: freed with the last process */
	s = new_syms_keep(1);
	m.proc_start = 1;
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 1);
	kp_symbols__process_gone(s, 0, 1);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.modules_live, 0);
	assert_int_equal(st.modules_freed, 1);
	kp_symbols__free(s);
}

/* exec_map as an mmap2 event with a build-id makes it: no device, no
 * inode, the file's build-id (copied into id, cap bytes). */
static void build_id_map(const char *bin, struct kp_sym_map *m, uint8_t *id,
			 size_t cap)
{
	struct kp_elf_info info;
	int fd = open(bin, O_RDONLY);
	Elf *elf;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_int_equal(kp_elf__info(elf, &info), 0);
	assert_true(info.build_id_len > 0 && info.build_id_len <= cap);
	memcpy(id, info.build_id, info.build_id_len);
	exec_map(bin, 0, m);
	m->ino = 0;
	m->maj = m->min = 0;
	m->build_id = id;
	m->build_id_len = info.build_id_len;
	elf_end(elf);
	close(fd);
}

/* An mmap2 event with a build-id has no device and inode: a module with
 * that build-id names the mapping even where the path no longer opens. */
static void test_module_build_id_key(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	const char *bin = fx("fx-prog-nopie");
	uint64_t a = nm_addr(bin, "kp_leaf");
	struct kp_symbols_stats st;
	struct kp_sym_frame f[4];
	struct kp_sym_map m;
	uint8_t id[64];

	(void)state;
	build_id_map(bin, &m, id, sizeof(id));
	m.proc_start = 1;
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 1);
	m.proc_start = 2;
	m.path = "/nonexistent/fx-prog-nopie";
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 1);
	assert_string_equal(f[0].name, "kp_leaf");
	kp_symbols__stats(s, &st);
	assert_int_equal(st.modules_loaded, 1);
	kp_symbols__free(s);
}

/* One file, one module, whichever key its mappings name it by: the
 * /proc maps of a process seen at start (device and inode) and an mmap
 * event with a build-id, in either order. */
static void test_module_one_per_file(void **state)
{
	const char *bin = fx("fx-prog-nopie");
	uint64_t a = nm_addr(bin, "kp_leaf");
	struct kp_symbols_stats st;
	struct kp_sym_frame f[4];
	struct kp_sym_map bm, im;
	uint8_t id[64];

	(void)state;
	build_id_map(bin, &bm, id, sizeof(id));
	exec_map(bin, 0, &im);
	for (int order = 0; order < 2; order++) {
		struct kp_symbols *s = new_syms(NULL);

		im.proc_start = order ? 2 : 1;
		bm.proc_start = order ? 1 : 2;
		assert_int_equal(kp_symbols__user(s, order ? &bm : &im, a, f, 4), 1);
		assert_int_equal(kp_symbols__user(s, order ? &im : &bm, a, f, 4), 1);
		assert_string_equal(f[0].name, "kp_leaf");
		kp_symbols__stats(s, &st);
		assert_int_equal(st.modules_loaded, 1);
		kp_symbols__free(s);
	}
}

/* Unused modules beyond the bound: the least recently used goes first. */
static void test_module_idle_lru(void **state)
{
	struct kp_symbols *s = new_syms_keep(2);	/* keep one unused */
	const char *bin[2] = { fx("fx-prog-nopie"), fx("fx-prog-pie") };
	struct kp_symbols_stats st;
	struct kp_sym_frame f[4];
	struct kp_sym_map m;

	(void)state;
	for (int i = 0; i < 2; i++) {
		uint64_t base = i ? 0x555555554000ull : 0;

		exec_map(bin[i], base, &m);
		m.pid = 0;
		m.proc_start = 10 + (uint64_t)i;
		assert_int_equal(kp_symbols__user(s, &m, base + nm_addr(bin[i], "kp_leaf"),
						  f, 4), 1);
	}
	kp_symbols__process_gone(s, 0, 10);	/* nopie unused first */
	kp_symbols__process_gone(s, 0, 11);	/* then pie: nopie freed */
	kp_symbols__stats(s, &st);
	assert_int_equal(st.modules_loaded, 2);
	assert_int_equal(st.modules_live, 1);
	assert_int_equal(st.modules_idle, 1);
	assert_int_equal(st.modules_freed, 1);
	/* pie is still loaded; nopie is loaded again */
	exec_map(bin[1], 0x555555554000ull, &m);
	m.proc_start = 12;
	assert_int_equal(kp_symbols__user(s, &m, 0x555555554000ull +
					  nm_addr(bin[1], "kp_leaf"), f, 4), 1);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.modules_loaded, 2);	/* pie was the one kept */
	exec_map(bin[0], 0, &m);
	m.proc_start = 13;
	assert_int_equal(kp_symbols__user(s, &m, nm_addr(bin[0], "kp_leaf"), f, 4), 1);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.modules_loaded, 3);
	assert_int_equal(st.modules_idle, 0);
	kp_symbols__free(s);
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Name every step-th address of file's .text through the CU index and
 * the line copies, and through libdw's scope walks and line tables,
 * which must agree; returns how many
 * inlined frames were compared (0: the file cannot be opened). */
static uint64_t index_matches(const char *file, uint64_t step)
{
	struct kp_dw_index *x = kp_dw_index__new();
	struct kp_dw_lines *ln = kp_dw_lines__new();
	struct kp_dw_frame a[16], b[16];
	uint64_t lo, hi, nr = 0, inl = 0;
	GElf_Shdr text;
	Dwarf *dw;
	Elf *elf;
	int fd = open(file, O_RDONLY);

	assert_non_null(x);
	assert_non_null(ln);
	if (fd < 0) {
		kp_dw_index__free(x);
		kp_dw_lines__free(ln);
		return 0;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	text = elf_section(elf, ".text");
	lo = text.sh_addr;
	hi = text.sh_addr + text.sh_size;
	assert_true(hi > lo);
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	assert_non_null(dw);
	for (uint64_t v = lo; v < hi; v += step, nr++) {
		int na = kp_dwarf__frames(dw, x, ln, v, a, 16);
		int nb = kp_dwarf__frames(dw, NULL, NULL, v, b, 16);

		assert_int_equal(na, nb);
		for (int i = 0; i < na; i++) {
			if (!same_str(a[i].name, b[i].name) || !same_str(a[i].file, b[i].file) ||
			    a[i].line != b[i].line || a[i].inlined != b[i].inlined)
				fail_msg("%s %#llx frame %d: %s %s:%u vs %s %s:%u", file,
					 (unsigned long long)v, i, a[i].name, a[i].file, a[i].line,
					 b[i].name, b[i].file, b[i].line);
			inl += a[i].inlined;
		}
	}
	print_message("dwarf index: %s: %llu addresses, %llu inlined frames, index %zu bytes, "
		      "lines %zu bytes\n", file, (unsigned long long)nr,
		      (unsigned long long)inl, kp_dw_index__bytes(x), kp_dw_lines__bytes(ln));
	kp_dw_index__free(x);
	kp_dw_lines__free(ln);
	dwarf_end(dw);
	elf_end(elf);
	close(fd);
	return inl;
}

/* The CU index names every address of a real binary exactly as libdw's
 * scope walks do: kptop itself (many CUs, inlined code, -O2 -g), and
 * libc's debug file where libc6-dbg is installed (its assembly CUs have
 * aliases sharing one range: the first DIE must win, as in libdw). */
static void test_dwarf_index_matches(void **state)
{
	char path[PATH_MAX], libc[PATH_MAX];
	struct kp_elf_info info;
	struct kp_sym_map m;
	Elf *elf;
	int fd, n;

	(void)state;
	snprintf(path, sizeof(path), "%s/kptop", builddir);
	if (access(path, R_OK))
		skip();		/* the program is built before `make check' runs */
	assert_true(index_matches(path, 37) > 100);
	self_map((uint64_t)(uintptr_t)&printf, &m, libc, sizeof(libc));
	fd = open(libc, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_int_equal(kp_elf__info(elf, &info), 0);
	n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", info.build_id[0]);
	for (unsigned i = 1; i < info.build_id_len; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", info.build_id[i]);
	snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
	if (!index_matches(path, 211))
		print_message("dwarf index: no libc debug file (%s): libc6-dbg not installed\n",
			      path);
	elf_end(elf);
	close(fd);
}

/* Names for a big binary (kptop: many CUs, -O2 -g) under a byte budget
 * (max_bytes): the module's bytes (DWARF state measured on the heap)
 * stay within it as DWARF is ended and begun again, and every name is
 * the one an unbounded kp_symbols gives. */
static void test_module_byte_budget(void **state)
{
	static const char *const none[] = { NULL };
	struct kp_symbols_opts o = { .debug_dirs = none };
	struct kp_symbols *u, *b;
	struct kp_symbols_stats su, sb;
	struct kp_sym_frame fu[16], fb[16];
	struct kp_sym_map m;
	char path[PATH_MAX];
	size_t base_bytes, budget, peak = 0;
	uint64_t nr = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/kptop", builddir);
	if (access(path, R_OK))
		skip();		/* the program is built before `make check' runs */
	exec_map(path, 0x10000, &m);
	u = kp_symbols__new(&o, NULL);
	assert_non_null(u);
	assert_int_equal(kp_symbols__user_function(u, &m, m.start + 64, fu, NULL), 1);
	kp_symbols__stats(u, &su);
	base_bytes = su.bytes;	/* the symbol table alone */
	budget = base_bytes + (1u << 20);
	o.max_bytes = budget;
	o.dwarf_keep_ms = 1;	/* ended as soon as over the budget */
	b = kp_symbols__new(&o, NULL);
	assert_non_null(b);
	for (uint64_t a = m.start; a < m.end; a += 61, nr++) {
		int nu = kp_symbols__user(u, &m, a, fu, 16);
		int nb = kp_symbols__user(b, &m, a, fb, 16);

		assert_int_equal(nu, nb);
		for (int i = 0; i < nu; i++) {
			if (!same_str(fu[i].name, fb[i].name) || !same_str(fu[i].file, fb[i].file) ||
			    fu[i].line != fb[i].line || fu[i].inlined != fb[i].inlined)
				fail_msg("%#llx frame %d: %s %s:%u vs %s %s:%u",
					 (unsigned long long)a, i, fu[i].name, fu[i].file,
					 fu[i].line, fb[i].name, fb[i].file, fb[i].line);
		}
		kp_symbols__stats(b, &sb);
		peak = sb.bytes > peak ? sb.bytes : peak;
	}
	kp_symbols__stats(u, &su);
	print_message("byte budget: %llu lookups, symbols %zu, unbounded %llu, "
		      "budget %zu, peak %zu, DWARF ended %llu times\n",
		      (unsigned long long)nr, base_bytes, (unsigned long long)su.bytes,
		      budget, peak, (unsigned long long)sb.dwarf_ended);
	assert_true(su.bytes > 2 * budget);	/* the budget had work to do */
	/* checked before each lookup: one lookup's growth (DWARF begun
	 * again, a CU's line table) past it */
	assert_true(peak <= budget + (1u << 20));
	assert_true(sb.bytes <= budget + (1u << 20));
	assert_true(sb.dwarf_ended > 0);
	kp_symbols__free(b);
	kp_symbols__free(u);
}

/* A pid that no longer exists: an exited, reaped child's. */
static uint32_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return (uint32_t)pid;
}

static void test_process_gone_first(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	struct kp_sym_frame f[4];
	struct kp_sym_map m;
	const char *bin = fx("fx-prog-nopie");
	uint64_t a = nm_addr(bin, "kp_leaf");

	/* the process exited before its first frame was named: the file at
	 * the mapped path is used when its device and inode are the map's */
	exec_map(bin, 0, &m);
	m.pid = dead_pid();
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 1);
	assert_string_equal(f[0].name, "kp_leaf");
	kp_symbols__free(s);
	/* ... and never when they are not (another file at that path) */
	s = new_syms(NULL);
	m.ino++;
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 0);
	kp_symbols__free(s);
}

/* The same when the kernel gave a build-id instead of device and inode
 * (mmap2 with PERF_RECORD_MISC_MMAP_BUILD_ID): the file at the path is
 * used when its build-id is the map's, never when it is not. */
static void test_process_gone_build_id(void **state)
{
	const char *bin = fx("fx-prog-nopie");
	uint64_t a = nm_addr(bin, "kp_leaf");
	struct kp_sym_frame f[4];
	struct kp_sym_map m;
	struct kp_symbols *s;
	uint8_t id[64];

	(void)state;
	build_id_map(bin, &m, id, sizeof(id));
	m.pid = dead_pid();
	s = new_syms(NULL);
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 1);
	assert_string_equal(f[0].name, "kp_leaf");
	kp_symbols__free(s);
	id[0] ^= 0xff;		/* another file's build-id */
	s = new_syms(NULL);
	assert_int_equal(kp_symbols__user(s, &m, a, f, 4), 0);
	kp_symbols__free(s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct kp_symbols *jit_syms(void)
{
	static const char *const none[] = { NULL };
	struct kp_symbols_opts o = { .debug_dirs = none, .jit_dir = tmpdir };
	struct kp_symbols *s = kp_symbols__new(&o, NULL);

	assert_non_null(s);
	return s;
}

static void jit_map(struct kp_sym_map *m, uint64_t proc_start)
{
	memset(m, 0, sizeof(*m));
	m->pid = (uint32_t)getpid();
	m->proc_start = proc_start;
	m->start = 0x7f1200000000ull;
	m->end = 0x7f1200100000ull;
	m->path = "//anon";
}

/* A held module names its code after the process is gone, with inlined
 * frames, and stays loaded until released; JIT code is not held. */
static void test_hold(void **state)
{
	struct kp_symbols *s = new_syms_keep(1);	/* keep none unused */
	const char *bin = fx("fx-prog-pie");
	uint64_t a = nm_addr(bin, "kp_mark_inline");
	struct kp_symbols_stats st;
	struct kp_sym_frame f[8];
	struct kp_sym_held *h;
	struct kp_sym_map m;

	(void)state;
	exec_map(bin, 0x10000, &m);
	m.pid = 0;
	m.proc_start = 20;
	h = kp_symbols__hold(s, &m);
	assert_non_null(h);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.held, 1);
	assert_int_equal(st.dwarf_begun, 0);
	kp_symbols__process_gone(s, 0, 20);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.modules_live, 1);	/* the hold keeps it */
	assert_int_equal(kp_symbols__held_user(s, h, a - (m.start - 0x10000) + m.pgoff,
					       f, 8), 2);
	assert_string_equal(f[0].name, "kp_inner");
	assert_int_equal(f[0].inlined, 1);
	assert_string_equal(f[1].name, "kp_outer");
	kp_symbols__release(s, h);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.held, 0);
	assert_int_equal(st.modules_live, 0);
	assert_int_equal(st.modules_freed, 1);
	jit_map(&m, 21);
	assert_null(kp_symbols__hold(s, &m));
	kp_symbols__free(s);
}

static void test_jit_map(void **state)
{
	struct kp_symbols *s = jit_syms();
	struct kp_symbols_stats st;
	struct kp_sym_frame f[2];
	struct kp_sym_map m;
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/perf-%d.map", tmpdir, getpid());
	write_file(path, "7f1200001000 100 LFoo;::bar\n"
		   "garbage line\n"
		   "7f1200002000 zz broken\n"
		   "7f1200003000 40 Interpreter\n");
	jit_map(&m, 1);
	assert_int_equal(kp_symbols__user(s, &m, 0x7f1200001010ull, f, 2), 1);
	assert_string_equal(f[0].name, "LFoo;::bar");
	assert_int_equal(kp_symbols__user(s, &m, 0x7f1200003020ull, f, 2), 1);
	assert_string_equal(f[0].name, "Interpreter");
	assert_int_equal(kp_symbols__user(s, &m, 0x7f1200003040ull, f, 2), 0);
	assert_string_equal(kp_symbols__module_name(s, &m, 0), "[jit]");
	kp_symbols__stats(s, &st);
	assert_int_equal(st.jit_bad_lines, 2);
	assert_int_equal(st.jit_maps, 1);
	kp_symbols__free(s);
	unlink(path);
}

/* Runtimes' names taken apart: function, file, line, the runtime as
 * the module. */
static void test_jit_names(void **state)
{
	struct kp_symbols *s = jit_syms();
	struct kp_sym_frame f[2];
	struct kp_sym_map m;
	struct kp_jitname jn;
	char path[PATH_MAX + 64];

	(void)state;
	kp_jitname__parse("LazyCompile:*fib /srv/app/fib.js:3:17", &jn);
	assert_string_equal(jn.fn, "fib");
	assert_string_equal(jn.file, "/srv/app/fib.js");
	assert_int_equal(jn.line, 3);
	assert_int_equal(jn.runtime, KP_JIT_NODE);
	kp_jitname__parse("JS:~ node:internal/main:1", &jn);
	assert_string_equal(jn.fn, "(anonymous)");
	assert_string_equal(jn.file, "node:internal/main");
	assert_int_equal(jn.line, 1);
	kp_jitname__parse("Builtin:ArrayPrototypePush", &jn);
	assert_string_equal(jn.fn, "Builtin:ArrayPrototypePush");
	assert_int_equal(jn.runtime, KP_JIT_NODE);
	kp_jitname__parse("void java.lang.Thread.run()", &jn);
	assert_string_equal(jn.fn, "java.lang.Thread.run()");
	assert_int_equal(jn.runtime, KP_JIT_JAVA);
	kp_jitname__parse("py::Foo.hot:/srv/x.py", &jn);
	assert_string_equal(jn.fn, "Foo.hot");
	assert_string_equal(jn.file, "/srv/x.py");
	assert_int_equal(jn.runtime, KP_JIT_PYTHON);
	kp_jitname__parse("some code 1:2", &jn);	/* none of them: whole */
	assert_string_equal(jn.fn, "some code 1:2");
	assert_int_equal(jn.runtime, KP_JIT_UNKNOWN);
	kp_jitname__parse("JS:*", &jn);
	assert_string_equal(jn.fn, "(anonymous)");

	snprintf(path, sizeof(path), "%s/perf-%d.map", tmpdir, getpid());
	write_file(path, "7f1200001000 100 JS:*hot /srv/app.js:12:5\n"
		   "7f1200002000 100 Builtin:ArgumentsAdaptorTrampoline\n");
	jit_map(&m, 1);
	assert_int_equal(kp_symbols__user(s, &m, 0x7f1200001010ull, f, 2), 1);
	assert_string_equal(f[0].name, "hot");
	assert_string_equal(f[0].file, "/srv/app.js");
	assert_int_equal(f[0].line, 12);
	assert_string_equal(kp_symbols__module_name(s, &m, 0), "[jit:node]");
	kp_symbols__free(s);
	unlink(path);
}

/* A jitdump (fuzz/corpus/jitdump/good: loads, a move, debug info,
 * unwinding info, close): names, the newest load at one address, moved
 * code, source lines, the call frame information of the next load;
 * damaged ones refused or counted. */
static struct kp_jittab *read_seed(const char *name, uint64_t *bad)
{
	char path[PATH_MAX];
	struct kp_jittab *t = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/jitdump/%s", srcdir, name);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(kp_jitdump__read(fd, 1u << 20, &t, bad, NULL), 0);
	close(fd);
	return t;
}

static void test_jitdump(void **state)
{
	char path[PATH_MAX];
	struct kp_jittab *t;
	const char *file;
	const uint8_t *eh;
	size_t len;
	uint64_t bad = 0, at;
	uint32_t line;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/fuzz/corpus/jitdump/good", srcdir);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(kp_jitdump__read(fd, 1u << 20, &t, &bad, NULL), 0);
	close(fd);
	assert_int_equal(bad, 0);
	assert_string_equal(kp_jittab__lookup(t, 0x1002), "newer");
	assert_string_equal(kp_jittab__lookup(t, 0x3004), "jit_tramp");	/* moved */
	assert_null(kp_jittab__lookup(t, 0x3008));
	assert_int_equal(kp_jittab__source(t, 0x1002, &file, &line), 1);
	assert_string_equal(file, "app.js");
	assert_int_equal(line, 10);
	assert_int_equal(kp_jittab__source(t, 0x1005, &file, &line), 1);
	assert_string_equal(file, "app.js");	/* "\xff": the same file */
	assert_int_equal(line, 11);
	assert_int_equal(kp_jittab__source(t, 0x3004, &file, &line), 0);
	/* the unwinding info before "newer" is its; moved code has none */
	assert_int_equal(kp_jittab__unwind(t, 0x1000, &eh, &len, &at), 1);
	assert_int_equal(len, 24);
	assert_true(at == 0x1008);	/* after its 8 bytes of code */
	assert_int_equal(kp_jittab__unwind(t, 0x3000, &eh, &len, &at), 0);
	assert_int_equal(kp_jittab__unwind(t, 0x1001, &eh, &len, &at), 0);
	kp_jittab__free(t);
	/* a real .eh_frame and its .eh_frame_hdr: the .eh_frame kept */
	t = read_seed("unwind-eh-frame", &bad);
	assert_int_equal(kp_jittab__unwind(t, 0x5000, &eh, &len, &at), 1);
	assert_int_equal(len, 48);
	assert_int_equal(eh[0], 0x14);
	assert_int_equal(eh[47], 0);
	assert_true(at == 0x5010);
	kp_jittab__free(t);
	/* sizes past the record, a header larger than the data, a short
	 * record: bad, and the next load gets none; all of it a header (V8's
	 * for code without CFI): not bad, none; a move drops it */
	assert_int_equal(bad, 0);
	t = read_seed("unwind-too-big", &bad);
	assert_int_equal(kp_jittab__unwind(t, 0x5000, &eh, &len, &at), 0);
	assert_string_equal(kp_jittab__lookup(t, 0x5000), "f");
	kp_jittab__free(t);
	t = read_seed("unwind-all-hdr", &bad);
	assert_int_equal(kp_jittab__unwind(t, 0x5000, &eh, &len, &at), 0);
	assert_int_equal(bad, 1);
	kp_jittab__free(t);
	t = read_seed("unwind-hdr-past", &bad);
	assert_int_equal(kp_jittab__unwind(t, 0x5000, &eh, &len, &at), 0);
	kp_jittab__free(t);
	t = read_seed("unwind-short", &bad);
	assert_int_equal(kp_jittab__unwind(t, 0x5000, &eh, &len, &at), 0);
	kp_jittab__free(t);
	assert_int_equal(bad, 3);
	t = read_seed("unwind-moved", &bad);
	assert_int_equal(kp_jittab__unwind(t, 0x6000, &eh, &len, &at), 0);
	assert_int_equal(kp_jittab__unwind(t, 0x7000, &eh, &len, &at), 0);
	assert_string_equal(kp_jittab__lookup(t, 0x7000), "g");
	kp_jittab__free(t);

	snprintf(path, sizeof(path), "%s/fuzz/corpus/jitdump/bad-magic", srcdir);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(kp_jitdump__read(fd, 1u << 20, &t, &bad, NULL), -EPROTO);
	assert_null(t);
	close(fd);
	bad = 0;
	snprintf(path, sizeof(path), "%s/fuzz/corpus/jitdump/debug-too-many", srcdir);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(kp_jitdump__read(fd, 1u << 20, &t, &bad, NULL), 0);
	assert_int_equal(bad, 1);
	kp_jittab__free(t);
	close(fd);
	/* over the byte limit: nothing kept */
	snprintf(path, sizeof(path), "%s/fuzz/corpus/jitdump/good", srcdir);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(kp_jitdump__read(fd, 64, &t, &bad, NULL), -E2BIG);
	close(fd);
	assert_true(kp_jitdump__is_name("jit-12.dump"));
	assert_false(kp_jitdump__is_name("jit-.dump"));
	assert_false(kp_jitdump__is_name("jit-12.dump.x"));
}

/* A process's jitdump is the file it maps (as perf finds it), read
 * through /proc/PID/map_files (root only) before its perf map. */
static void test_jitdump_mapped(void **state)
{
	static const uint8_t hdr[40] = { 0x44, 0x54, 0x69, 0x4a, 1, 0, 0, 0, 40 };
	struct kp_symbols *s;
	struct kp_sym_frame f[2];
	struct kp_sym_map m;
	char path[PATH_MAX + 64], mpath[PATH_MAX + 64];
	uint8_t rec[16 + 40 + 4 + 8] = { 0 };
	uint64_t v;
	uint32_t u;
	void *map;
	FILE *out;
	int fd;

	(void)state;
	if (geteuid() != 0)
		skip();		/* /proc/PID/map_files needs root */
	s = jit_syms();
	snprintf(mpath, sizeof(mpath), "%s/perf-%d.map", tmpdir, getpid());
	write_file(mpath, "7f1200001000 100 from_the_map\n");
	snprintf(path, sizeof(path), "%s/jit-%d.dump", tmpdir, getpid());
	u = sizeof(rec);
	memcpy(rec + 4, &u, 4);				/* a code load */
	v = 0x7f1200001000ull;
	memcpy(rec + 16 + 16, &v, 8);			/* code address */
	v = 0x40;
	memcpy(rec + 16 + 24, &v, 8);			/* code size */
	memcpy(rec + 16 + 40, "dmp", 4);
	assert_non_null(out = fopen(path, "w"));
	assert_int_equal(fwrite(hdr, 1, sizeof(hdr), out), sizeof(hdr));
	/* the code bytes: the record says 0x40, has 8: a bad record */
	assert_int_equal(fwrite(rec, 1, sizeof(rec), out), sizeof(rec));
	v = 8;
	memcpy(rec + 16 + 24, &v, 8);
	assert_int_equal(fwrite(rec, 1, sizeof(rec), out), sizeof(rec));
	fclose(out);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	close(fd);
	jit_map(&m, 1);
	assert_int_equal(kp_symbols__user(s, &m, 0x7f1200001004ull, f, 2), 1);
	assert_string_equal(f[0].name, "dmp");
	munmap(map, 4096);
	kp_symbols__free(s);
	unlink(path);
	unlink(mpath);
}

static void test_jit_map_untrusted(void **state)
{
	struct kp_symbols *s = jit_syms();
	struct kp_symbols_stats st;
	struct kp_sym_frame f[2];
	struct kp_sym_map m;
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/perf-%d.map", tmpdir, getpid());
	write_file(tmp("real.map"), "7f1200001000 100 planted\n");
	/* a symlink is refused */
	assert_int_equal(symlink(tmp("real.map"), path), 0);
	jit_map(&m, 1);
	assert_int_equal(kp_symbols__user(s, &m, 0x7f1200001010ull, f, 2), 0);
	unlink(path);
	/* owned by another user (needs root to chown; else skip this half) */
	write_file(path, "7f1200001000 100 planted\n");
	if (geteuid() == 0 && chown(path, 12345, 12345) == 0) {
		jit_map(&m, 2);
		assert_int_equal(kp_symbols__user(s, &m, 0x7f1200001010ull, f, 2), 0);
	} else if (getuid() != 0) {
		/* we own it ourselves: then it is trusted */
	}
	kp_symbols__stats(s, &st);
	assert_true(st.jit_refused >= 1);
	assert_int_equal(st.jit_maps, 0);
	unlink(path);
	unlink(tmp("real.map"));
	kp_symbols__free(s);
}

/* A perf map of KP_JITMAP_MAX_BYTES (a sparse file: a good first line,
 * then zeros, lines of junk) is read; one byte more is refused unread,
 * counted. */
static void test_jit_map_size_limit(void **state)
{
	struct kp_symbols *s;
	struct kp_symbols_stats st;
	struct kp_sym_frame f[2];
	struct kp_sym_map m;
	char path[PATH_MAX + 64];

	(void)state;
	snprintf(path, sizeof(path), "%s/perf-%d.map", tmpdir, getpid());
	for (int over = 0; over <= 1; over++) {
		s = jit_syms();
		write_file(path, "7f1200001000 100 atlimit\n");
		assert_int_equal(truncate(path, (off_t)KP_JITMAP_MAX_BYTES + over), 0);
		jit_map(&m, 1);
		assert_int_equal(kp_symbols__user(s, &m, 0x7f1200001010ull, f, 2), !over);
		if (!over)
			assert_string_equal(f[0].name, "atlimit");
		kp_symbols__stats(s, &st);
		assert_int_equal(st.jit_refused, over);
		assert_int_equal(st.jit_maps, !over);
		kp_symbols__free(s);
		unlink(path);
	}
}

/* ---- JIT maps: what hostile ones may cost ---- */

/* A kp_symbols whose processes are fake pids under tmp("proc") (owned by
 * us, so that our maps are theirs), with a JIT budget (0: default). */
static struct kp_symbols *jit_syms_procs(uint64_t budget)
{
	static const char *const none[] = { NULL };
	struct kp_symbols_opts o = { .debug_dirs = none, .jit_dir = tmpdir,
				     .proc_root = tmp("proc"), .jit_budget = budget };
	struct kp_symbols *s;
	char dir[PATH_MAX];

	mkdir(tmp("proc"), 0755);
	for (int pid = 1001; pid <= 1008; pid++) {
		snprintf(dir, sizeof(dir), "%s/%d", tmp("proc"), pid);
		mkdir(dir, 0755);
	}
	s = kp_symbols__new(&o, NULL);
	assert_non_null(s);
	return s;
}

static void jit_pid_map(struct kp_sym_map *m, uint32_t pid)
{
	jit_map(m, 1);
	m->pid = pid;
	m->end = 0x7f1300000000ull;
}

static const char *jit_path(uint32_t pid)
{
	static char buf[PATH_MAX + 64];

	snprintf(buf, sizeof(buf), "%s/perf-%u.map", tmpdir, pid);
	return buf;
}

/* n entries of 0x40 bytes from 0x7f1200000000, named fn_<i>_<pad>; the
 * names' bytes (with their NULs) go to *name_bytes. */
static void write_big_map(const char *path, unsigned n, size_t *name_bytes)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	*name_bytes = 0;
	for (unsigned i = 0; i < n; i++) {
		/* written out of order: the table sorts */
		unsigned k = (i * 7919u) % n;
		char name[64];
		int len = snprintf(name, sizeof(name), "fn_%u_abcdefghijklmnop", k);

		fprintf(f, "%llx 40 %s\n", 0x7f1200000000ull + 0x40ull * k, name);
		*name_bytes += (size_t)len + 1;
	}
	fclose(f);
}

static void expect_jit(struct kp_symbols *s, uint32_t pid, uint64_t addr,
		       const char *name)
{
	struct kp_sym_frame f[2];
	struct kp_sym_map m;

	jit_pid_map(&m, pid);
	if (!name) {
		assert_int_equal(kp_symbols__user(s, &m, addr, f, 2), 0);
		return;
	}
	assert_int_equal(kp_symbols__user(s, &m, addr, f, 2), 1);
	assert_string_equal(f[0].name, name);
}

/* A big map: one table of 16 bytes per entry and its names (the module's
 * own accounting), not one allocation per line. */
static void test_jit_map_compact(void **state)
{
	const unsigned n = 200000;
	struct kp_symbols *s = jit_syms_procs(0);
	struct kp_symbols_stats st;
	struct stat fst;
	size_t names;

	(void)state;
	write_big_map(jit_path(1001), n, &names);
	assert_int_equal(stat(jit_path(1001), &fst), 0);
	expect_jit(s, 1001, 0x7f1200000000ull + 0x40ull * 12345 + 3, "fn_12345_abcdefghijklmnop");
	expect_jit(s, 1001, 0x7f1200000000ull + 0x40ull * (n - 1), "fn_199999_abcdefghijklmnop");
	expect_jit(s, 1001, 0x7f1200000000ull + 0x40ull * n, NULL);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.jit_maps, 1);
	assert_int_equal(st.jit_bad_lines, 0);
	/* 16 bytes an entry + the names + a little: under the file's size */
	assert_true(st.jit_bytes > 0);
	assert_true(st.jit_bytes <= (uint64_t)n * 16 + names + 4096);
	assert_true(st.jit_bytes <= (uint64_t)fst.st_size + 4096);
	kp_symbols__process_gone(s, 1001, 1);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.jit_bytes, 0);
	kp_symbols__free(s);
	unlink(jit_path(1001));
}

/* Six processes whose maps are one file (hard links): read once, one
 * table held for all of them, freed with the last. */
static void test_jit_map_shared(void **state)
{
	struct kp_symbols *s = jit_syms_procs(0);
	struct kp_symbols_stats st;
	char first[PATH_MAX + 64];
	uint64_t one;
	size_t names;

	(void)state;
	snprintf(first, sizeof(first), "%s", jit_path(1001));
	write_big_map(first, 20000, &names);
	for (uint32_t pid = 1002; pid <= 1006; pid++)
		assert_int_equal(link(first, jit_path(pid)), 0);
	expect_jit(s, 1001, 0x7f1200000000ull + 0x40ull * 77, "fn_77_abcdefghijklmnop");
	kp_symbols__stats(s, &st);
	one = st.jit_bytes;
	for (uint32_t pid = 1002; pid <= 1006; pid++) {
		char name[64];

		snprintf(name, sizeof(name), "fn_%u_abcdefghijklmnop", pid);
		expect_jit(s, pid, 0x7f1200000000ull + 0x40ull * pid, name);
	}
	kp_symbols__stats(s, &st);
	assert_int_equal(st.jit_maps, 6);
	assert_int_equal(st.jit_reads, 1);
	assert_int_equal(st.jit_bytes, one);
	for (uint32_t pid = 1001; pid <= 1005; pid++)
		kp_symbols__process_gone(s, pid, 1);
	expect_jit(s, 1006, 0x7f1200000000ull + 0x40ull * 9, "fn_9_abcdefghijklmnop");
	kp_symbols__process_gone(s, 1006, 1);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.jit_bytes, 0);
	kp_symbols__free(s);
	for (uint32_t pid = 1001; pid <= 1006; pid++)
		unlink(jit_path(pid));
}

/* Junk is skipped and counted, line by line; the good lines around it
 * still name their code. */
static void test_jit_map_junk(void **state)
{
	struct kp_symbols *s = jit_syms_procs(0);
	struct kp_symbols_stats st;
	char *longname = malloc(6000);
	FILE *f = fopen(jit_path(1001), "w");

	(void)state;
	assert_non_null(longname);
	assert_non_null(f);
	memset(longname, 'x', 5999);
	longname[5999] = '\0';
	fprintf(f, "7f1200001000 10 good_one\n");
	fprintf(f, "no hex at all\n");				/* bad 1 */
	fprintf(f, "7f1200002000 0 zero_sized\n");		/* bad 2 */
	fprintf(f, "7f1200003000 10\n");			/* bad 3: no name */
	fprintf(f, "ffffffffffffffff 10 wraps\n");		/* bad 4 */
	fprintf(f, "7f1200004000 10 %s\n", longname);		/* bad 5 */
	fprintf(f, "7f1200005000 10 crlf_line\r\n");
	fprintf(f, "11112222333344445 10 too_wide\n");		/* bad 6 */
	fputs("7f1200006000 10 nul", f);
	fputc('\0', f);
	fputs("in_name\n", f);					/* bad 7 */
	fprintf(f, "\n");					/* bad 8 */
	fprintf(f, "7f1200007000 10 last_no_newline");
	fclose(f);
	free(longname);
	expect_jit(s, 1001, 0x7f1200001008ull, "good_one");
	expect_jit(s, 1001, 0x7f1200005000ull, "crlf_line");
	expect_jit(s, 1001, 0x7f120000700full, "last_no_newline");
	expect_jit(s, 1001, 0x7f1200002000ull, NULL);
	expect_jit(s, 1001, 0x7f1200004000ull, NULL);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.jit_bad_lines, 8);
	assert_int_equal(st.jit_refused, 0);
	kp_symbols__free(s);
	unlink(jit_path(1001));
}

/* All JIT tables together stay within the budget: a map that would take
 * more is refused (counted once, not read again while unchanged), and
 * the maps already read keep their names. */
static void test_jit_map_budget(void **state)
{
	const uint64_t budget = 256u << 10;
	struct kp_symbols *s = jit_syms_procs(budget);
	struct kp_symbols_stats st;
	char big[PATH_MAX + 64];
	uint64_t read_ns;
	size_t names;

	(void)state;
	write_file(jit_path(1001), "7f1200001000 100 small\n");
	snprintf(big, sizeof(big), "%s", jit_path(1002));
	write_big_map(big, 20000, &names);	/* ~600 KB as a table */
	expect_jit(s, 1001, 0x7f1200001010ull, "small");
	expect_jit(s, 1002, 0x7f1200000000ull + 0x40ull * 5, NULL);
	kp_symbols__stats(s, &st);
	read_ns = st.jit_read_ns;
	assert_true(read_ns > 0);
	kp_symbols__process_gone(s, 1002, 1);
	expect_jit(s, 1002, 0x7f1200000000ull + 0x40ull * 6, NULL);
	assert_int_equal(link(big, jit_path(1003)), 0);	/* the same file */
	expect_jit(s, 1003, 0x7f1200000000ull + 0x40ull * 7, NULL);
	kp_symbols__stats(s, &st);
	assert_int_equal(st.jit_refused, 3);	/* once per process */
	assert_int_equal(st.jit_read_ns, read_ns);	/* and not read again */
	assert_int_equal(st.jit_reads, 1);
	assert_true(st.jit_bytes > 0 && st.jit_bytes <= budget);
	expect_jit(s, 1001, 0x7f1200001010ull, "small");
	kp_symbols__free(s);
	unlink(jit_path(1001));
	unlink(jit_path(1002));
	unlink(jit_path(1003));
}

/* With a wait, a big map is read by a thread of its own: the lookup that
 * starts the read returns (unnamed) long before 8 MB are parsed, and a
 * later one finds the table; freeing in the middle of a read is safe. */
static void test_jit_map_async(void **state)
{
	static const char *const none[] = { NULL };
	struct kp_symbols_opts o = { .debug_dirs = none, .jit_dir = tmpdir,
				     .proc_root = tmp("proc"), .jit_wait_ms = 1 };
	uint64_t addr = 0x7f1200000000ull + 0x40ull * 4242;
	struct kp_symbols *s = jit_syms_procs(0);
	struct kp_symbols_stats st;
	struct kp_sym_frame f[2];
	struct kp_sym_map m;
	size_t names;
	int n = 0;

	(void)state;
	kp_symbols__free(s);	/* made the fake pids */
	write_big_map(jit_path(1001), 200000, &names);
	s = kp_symbols__new(&o, NULL);
	assert_non_null(s);
	jit_pid_map(&m, 1001);
	assert_int_equal(kp_symbols__user(s, &m, addr, f, 2), 0);
	for (int i = 0; i < 2000 && n == 0; i++) {	/* up to 20 s */
		usleep(10000);
		n = kp_symbols__user(s, &m, addr, f, 2);
	}
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "fn_4242_abcdefghijklmnop");
	kp_symbols__stats(s, &st);
	assert_int_equal(st.jit_reads, 1);
	assert_int_equal(st.jit_maps, 1);
	kp_symbols__free(s);
	/* a read still going when the kp_symbols is freed */
	s = kp_symbols__new(&o, NULL);
	assert_non_null(s);
	assert_int_equal(kp_symbols__user(s, &m, addr, f, 2), 0);
	kp_symbols__free(s);
	unlink(jit_path(1001));
}

static void test_kernel(void **state)
{
	struct kp_symbols_opts o = { .kallsyms = NULL };
	struct kp_sym_frame f;
	struct kp_symbols *s;

	write_file(tmp("kallsyms"),
		   "ffffffff81000000 T _stext\n"
		   "ffffffff81000100 t do_one_thing\n"
		   "ffffffff81000200 D some_data\n"
		   "ffffffff81000300 T schedule\n"
		   "ffffffff81000320 t pvm_safe_halt_hc\n"
		   "ffffffff81000330 t __pfx_pv_native_safe_halt\n"
		   "ffffffff81000340 t pv_native_safe_halt\n"
		   "ffffffff81000350 t __pfx_next_fn\n"
		   "ffffffff81000360 T __cpuidle_text_start\n"
		   "ffffffff81000360 T default_idle\n"
		   "ffffffff81000380 t acpi_safe_halt\n"
		   "ffffffff810003a5 T __cpuidle_text_end\n"
		   "not a line\n"
		   "ffffffff81000400 T _etext\n"
		   "ffffffffc0001000 t mod_fn\t[mymod]\n"
		   "ffffffffc0001080 t mod_fn2\t[mymod]\n"
		   "ffffffffc0002000 t other_fn\t[othermod]\n"
		   "ffffffffc0002080 t other_fn2\t[othermod]\n");
	o.kallsyms = tmp("kallsyms");
	s = kp_symbols__new(&o, NULL);
	assert_non_null(s);
	assert_null(kp_symbols__kernel_status(s));
	assert_int_equal(kp_symbols__kernel(s, 0xffffffff81000150ull, &f), 1);
	assert_string_equal(f.name, "do_one_thing");
	/* data symbols do not end a function: still do_one_thing */
	assert_int_equal(kp_symbols__kernel(s, 0xffffffff81000250ull, &f), 1);
	assert_string_equal(f.name, "do_one_thing");
	assert_int_equal(kp_symbols__kernel(s, 0xffffffff81000300ull, &f), 1);
	assert_string_equal(f.name, "schedule");
	assert_string_equal(kp_symbols__module_name(s, NULL, 0xffffffff81000300ull),
			    "[kernel]");
	assert_int_equal(kp_symbols__kernel(s, 0xffffffffc0001010ull, &f), 1);
	assert_string_equal(f.name, "mod_fn");
	assert_string_equal(kp_symbols__module_name(s, NULL, 0xffffffffc0001090ull),
			    "[mymod]");
	/* below the first symbol: unknown */
	assert_int_equal(kp_symbols__kernel(s, 0xffffffff80000000ull, &f), 0);
	/* where an idle CPU halts: the cpuidle section, the paravirt halt */
	{
		uint64_t r[4][2];

		/* the section; PVM's and the native paravirt halt, not
		 * acpi_safe_halt (inside the section) nor a __pfx_ */
		assert_int_equal(kp_symbols__idle_text(s, r, 4), 3);
		assert_true(r[0][0] == 0xffffffff81000360ull && r[0][1] == 0xffffffff810003a5ull);
		assert_true(r[1][0] == 0xffffffff81000320ull && r[1][1] == 0xffffffff81000330ull);
		assert_true(r[2][0] == 0xffffffff81000340ull && r[2][1] == 0xffffffff81000350ull);
		assert_int_equal(kp_symbols__idle_text(s, r, 1), 1);
	}
	kp_symbols__free(s);
}

static void test_kernel_restricted(void **state)
{
	struct kp_symbols_opts o = { .kallsyms = NULL };
	struct kp_symbols_stats st;
	struct kp_sym_frame f;
	struct kp_symbols *s;
	const char *why;

	write_file(tmp("kallsyms0"),
		   "0000000000000000 T _stext\n"
		   "0000000000000000 T schedule\n");
	o.kallsyms = tmp("kallsyms0");
	s = kp_symbols__new(&o, NULL);
	assert_non_null(s);
	assert_int_equal(kp_symbols__kernel(s, 0xffffffff81000150ull, &f), 0);
	why = kp_symbols__kernel_status(s);
	assert_non_null(why);
	assert_non_null(strstr(why, "kptr_restrict"));
	assert_string_equal(kp_symbols__module_name(s, NULL, 0xffffffff81000150ull),
			    "[kernel]");
	kp_symbols__stats(s, &st);
	assert_int_equal(st.kernel_restricted, 1);
	kp_symbols__free(s);
}

/* [vdso] is read from the process's memory: name __vdso_clock_gettime. */
static void test_vdso(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	struct kp_sym_frame f[2];
	struct kp_sym_map m;
	char path[PATH_MAX];
	uint64_t value = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (!base)
		skip();
	self_map(base, &m, path, sizeof(path));
	elf = elf_memory((char *)base, m.end - m.start);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sizeof(Elf64_Sym); i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (n = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
			    strcmp(n, "__vdso_clock_gettime") == 0)
				value = sym.st_value;
		}
	}
	elf_end(elf);
	assert_true(value != 0);
	self_map(base + value, &m, path, sizeof(path));
	assert_string_equal(m.path, "[vdso]");
	assert_int_equal(kp_symbols__user(s, &m, base + value + 2, f, 2), 1);
	assert_string_equal(f[0].name, "__vdso_clock_gettime");
	assert_string_equal(kp_symbols__module_name(s, &m, 0), "[vdso]");
	kp_symbols__free(s);
}

/* ---- hostile files: a clean miss, never a crash ---- */

static void section_of(const char *bin, const char *name, uint64_t *off,
		       uint64_t *size)
{
	int fd = open(bin, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Shdr sh;

	assert_non_null(elf);
	sh = elf_section(elf, name);
	*off = sh.sh_offset;
	*size = sh.sh_size;
	elf_end(elf);
	close(fd);
	assert_true(*size > 0);
}

static void patch(const char *path, uint64_t off, const void *bytes, size_t len)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bytes, len, (off_t)off), (ssize_t)len);
	close(fd);
}

/* Resolve kp_leaf of fx-prog-nopie through the (damaged) copy `path`. */
static int leaf_through(struct kp_symbols *s, const char *path)
{
	const char *bin = fx("fx-prog-nopie");
	struct kp_sym_frame f[4];
	struct kp_sym_map m;
	int n;

	exec_map(bin, 0, &m);
	m.path = path;
	m.ino = m.maj = m.min = 0;
	n = kp_symbols__user(s, &m, nm_addr(bin, "kp_leaf"), f, 4);
	if (n > 0)
		assert_string_equal(f[n - 1].name, "kp_leaf");	/* never wrong */
	return n;
}

static void test_hostile_truncated(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "head -c 2000 '%s' > '%s' && head -c 63 '%s' > '%s'",
		 fx("fx-prog-nopie"), tmp("trunc"), fx("fx-prog-nopie"), tmp("trunc2"));
	assert_int_equal(system(cmd), 0);
	assert_int_equal(leaf_through(s, tmp("trunc")), 0);
	assert_int_equal(leaf_through(s, tmp("trunc2")), 0);
	kp_symbols__free(s);
}

static void test_hostile_shoff(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	uint64_t shoff = 0x7fffffff00ull;
	uint16_t shnum = 0xffff;

	copy_file(fx("fx-prog-nopie"), tmp("shoff"));
	patch(tmp("shoff"), offsetof(Elf64_Ehdr, e_shoff), &shoff, sizeof(shoff));
	assert_int_equal(leaf_through(s, tmp("shoff")), 0);
	/* section headers in the file, but too many of them */
	copy_file(fx("fx-prog-nopie"), tmp("shnum"));
	patch(tmp("shnum"), offsetof(Elf64_Ehdr, e_shnum), &shnum, sizeof(shnum));
	leaf_through(s, tmp("shnum"));
	kp_symbols__free(s);
}

static void test_hostile_strtab(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	uint64_t off, size;
	char *junk;

	char cmd[3 * PATH_MAX];

	/* without DWARF (which would name kp_leaf on its own) */
	snprintf(cmd, sizeof(cmd), "strip --strip-debug -o '%s' '%s'", tmp("strtab"),
		 fx("fx-prog-nopie"));
	assert_int_equal(system(cmd), 0);
	assert_int_equal(leaf_through(s, tmp("strtab")), 1);	/* intact: named */
	kp_symbols__free(s);
	s = new_syms(NULL);
	section_of(tmp("strtab"), ".strtab", &off, &size);
	junk = malloc(size);
	assert_non_null(junk);
	memset(junk, 'A', size);	/* no name is terminated any more */
	patch(tmp("strtab"), off, junk, size);
	free(junk);
	assert_int_equal(leaf_through(s, tmp("strtab")), 0);
	kp_symbols__free(s);
}

/* A debuglink naming "../evil.debug": a good debug file sits there, but
 * the name leaves the binary's directory, so it is never opened. */
static void test_hostile_debuglink(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	static const char evil[] = "../evil.debug";
	struct kp_sym_frame f[4];
	uint64_t off, size;
	char dir[PATH_MAX + 64];

	snprintf(dir, sizeof(dir), "%s/sub", tmpdir);
	mkdir(dir, 0755);
	copy_file(fx("fx-debuglink"), tmp("sub/fx-debuglink"));
	copy_file(fx("fx-debuglink.debug"), tmp("evil.debug"));
	section_of(tmp("sub/fx-debuglink"), ".gnu_debuglink", &off, &size);
	uint8_t sec[64] = { 0 }, crc[4];
	int fd = open(tmp("sub/fx-debuglink"), O_RDONLY);

	/* keep the real CRC (of the same bytes as evil.debug) so that only
	 * the name can make it refuse: name, NUL, pad to 4, CRC */
	assert_true(size >= 24 && size <= sizeof(sec));
	assert_int_equal(pread(fd, crc, 4, (off_t)(off + size - 4)), 4);
	close(fd);
	memcpy(sec, evil, sizeof(evil));
	memcpy(sec + ((sizeof(evil) + 3) & ~3u), crc, 4);
	patch(tmp("sub/fx-debuglink"), off, sec, size);
	assert_int_equal(lookup(s, fx("fx-prog-pie"), 0, "kp_mark_leaf",
				tmp("sub/fx-debuglink"), f, 4), 0);
	kp_symbols__free(s);
}

/* ---- stripped code: functions by their FDEs ---- */

static const char *const fde_fns[] = { "fde_big", "fde_mid", "fde_small" };

/* nm -S: the size of sym in bin. */
static uint64_t nm_size(const char *bin, const char *sym)
{
	char cmd[PATH_MAX + 64], line[512], name[400];
	unsigned long long a, size;
	uint64_t found = 0;
	char type;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %llx %c %399s", &a, &size, &type, name) == 4 &&
		    strcmp(name, sym) == 0)
			found = size;
	pclose(p);
	if (!found)
		fail_msg("nm -S: %s not in %s", sym, bin);
	return found;
}

/* readelf's FDEs of bin: their count; the offset in .eh_frame of the
 * one starting at pc in *rec (if rec), and pc_begin/pc_end of all in
 * r[0..max). */
static size_t readelf_fdes(const char *bin, uint64_t pc, uint64_t *rec,
			   uint64_t (*r)[2], size_t max)
{
	char cmd[PATH_MAX + 64], line[512];
	unsigned long long off, len, id, cie, lo, hi;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx %llx %llx FDE cie=%llx pc=%llx..%llx",
			   &off, &len, &id, &cie, &lo, &hi) != 6)
			continue;
		if (rec && lo == pc)
			*rec = off;
		if (n < max)
			r[n][0] = lo, r[n][1] = hi;
		n++;
	}
	pclose(p);
	return n;
}

/* The FDE table of path, read directly. */
static struct kp_fdetab *fdetab_of(const char *path)
{
	struct kp_elf_info info;
	struct kp_fdetab *t;
	int fd = open(path, O_RDONLY);
	Elf *elf;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_int_equal(kp_elf__info(elf, &info), 0);
	t = kp_fdetab__new(elf, &info);
	assert_non_null(t);
	elf_end(elf);
	close(fd);
	return t;
}

/* path (fx-fde-stripped or a copy) names nothing of fx-fde's functions,
 * but every address of each (nm of the unstripped build: its first,
 * second, middle and last byte) gives that function's start, as a file
 * offset; want[i] 0: that function has no FDE any more, so no start. */
static void expect_fde_starts(struct kp_symbols *s, const char *path, const int *want)
{
	const char *bin = fx("fx-fde");
	struct kp_sym_frame f[2];
	struct kp_sym_map m;

	exec_map(path, 0, &m);
	for (size_t i = 0; i < 3; i++) {
		uint64_t a = nm_addr(bin, fde_fns[i]), size = nm_size(bin, fde_fns[i]);
		uint64_t at[4] = { a, a + 1, a + size / 2, a + size - 1 };

		for (size_t j = 0; j < 4; j++) {
			uint64_t off = 0;

			assert_int_equal(kp_symbols__user(s, &m, at[j], f, 2), 0);
			assert_int_equal(kp_symbols__user_start(s, &m, at[j], &off),
					 want ? want[i] : 1);
			if (!want || want[i])
				assert_int_equal(off, a - m.start + m.pgoff);
		}
	}
}

/* The table says what readelf says: one range per FDE, each address of
 * it (first, last) giving its start; the FDE table is read at the first
 * need and counted in the symbols' bytes; a held module answers too. */
static void test_fde_stripped(void **state)
{
	const char *bin = fx("fx-fde-stripped");
	uint64_t r[64][2], big = nm_addr(fx("fx-fde"), "fde_big"), off, start;
	size_t n = readelf_fdes(bin, 0, NULL, r, 64);
	struct kp_symbols *s = new_syms(NULL);
	struct kp_fdetab *t = fdetab_of(bin);
	struct kp_symbols_stats st0, st1;
	struct kp_sym_frame f[2];
	struct kp_sym_held *h;
	struct kp_sym_map m;

	(void)state;
	assert_true(n >= 5 && n <= 64);	/* 3 + main, _start, the PLT... */
	assert_int_equal(kp_fdetab__count(t), n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(kp_fdetab__lookup(t, r[i][0], &start), 1);
		assert_int_equal(start, r[i][0]);
		assert_int_equal(kp_fdetab__lookup(t, r[i][1] - 1, &start), 1);
		assert_int_equal(start, r[i][0]);
	}
	kp_fdetab__free(t);

	exec_map(bin, 0, &m);
	assert_int_equal(kp_symbols__user(s, &m, big, f, 2), 0);
	kp_symbols__stats(s, &st0);
	expect_fde_starts(s, bin, NULL);
	kp_symbols__stats(s, &st1);
	assert_true(st1.bytes >= st0.bytes + n * 16);
	/* past the code's bytes in the file; past the mapping */
	assert_int_equal(kp_symbols__user_start(s, &m, m.end - 1, &off), 0);
	assert_int_equal(kp_symbols__user_start(s, &m, m.end, &off), 0);
	h = kp_symbols__hold(s, &m);
	assert_non_null(h);
	assert_int_equal(kp_symbols__held_start(s, h, big - m.start + m.pgoff + 7, &off), 1);
	assert_int_equal(off, big - m.start + m.pgoff);
	kp_symbols__release(s, h);
	kp_symbols__free(s);
}

/* Without section headers: the .eh_frame of PT_GNU_EH_FRAME. */
static void test_fde_no_sections(void **state)
{
	struct kp_symbols *s = new_syms(NULL);
	uint64_t zero8 = 0;
	uint16_t zero2 = 0;
	struct kp_fdetab *t;

	(void)state;
	copy_file(fx("fx-fde-stripped"), tmp("fde-noshdr"));
	patch(tmp("fde-noshdr"), offsetof(Elf64_Ehdr, e_shoff), &zero8, 8);
	patch(tmp("fde-noshdr"), offsetof(Elf64_Ehdr, e_shnum), &zero2, 2);
	patch(tmp("fde-noshdr"), offsetof(Elf64_Ehdr, e_shstrndx), &zero2, 2);
	t = fdetab_of(tmp("fde-noshdr"));
	assert_int_equal(kp_fdetab__count(t), readelf_fdes(fx("fx-fde-stripped"), 0, NULL, NULL, 0));
	kp_fdetab__free(t);
	expect_fde_starts(s, tmp("fde-noshdr"), NULL);
	kp_symbols__free(s);
}

/* A copy of fx-fde-stripped with the 4 bytes at offset at of its
 * .eh_frame replaced by v (add: v added to them). */
static const char *fde_patched(const char *name, uint64_t at, uint32_t v, int add)
{
	const char *path = tmp(name);
	uint64_t off, size;
	uint32_t old;
	int fd;

	copy_file(fx("fx-fde-stripped"), path);
	section_of(path, ".eh_frame", &off, &size);
	assert_true(at + 4 <= size);
	fd = open(path, O_RDONLY);
	assert_int_equal(pread(fd, &old, 4, (off_t)(off + at)), 4);
	close(fd);
	v += add ? old : 0;
	patch(path, off + at, &v, 4);
	return path;
}

/* Hostile .eh_frames: a malformed record refuses the table whole; an
 * FDE that is empty or starts outside the code is left out, and its
 * addresses are then nobody's (never the function before's); a range
 * past the next FDE is cut at its start. */
static void test_fde_hostile(void **state)
{
	static const int none[3] = { 0, 0, 0 }, no_mid[3] = { 1, 0, 1 };
	uint64_t mid = nm_addr(fx("fx-fde"), "fde_mid"), big = nm_addr(fx("fx-fde"), "fde_big");
	uint64_t rec_mid = UINT64_MAX, rec_big = UINT64_MAX;
	struct kp_symbols *s;
	struct kp_fdetab *t;

	(void)state;
	readelf_fdes(fx("fx-fde-stripped"), mid, &rec_mid, NULL, 0);
	readelf_fdes(fx("fx-fde-stripped"), big, &rec_big, NULL, 0);
	assert_true(rec_mid != UINT64_MAX && rec_big != UINT64_MAX);
	/* the first record's length: a reserved value */
	s = new_syms(NULL);
	expect_fde_starts(s, fde_patched("fde-len", 0, 0xfffffff5u, 0), none);
	t = fdetab_of(tmp("fde-len"));
	assert_int_equal(kp_fdetab__count(t), 0);
	kp_fdetab__free(t);
	kp_symbols__free(s);
	/* fde_big's CIE pointer leads before the section */
	s = new_syms(NULL);
	expect_fde_starts(s, fde_patched("fde-cie", rec_big + 4, 0x7ffffff0u, 0), none);
	t = fdetab_of(tmp("fde-cie"));
	assert_int_equal(kp_fdetab__count(t), 0);	/* not the FDEs before it either */
	kp_fdetab__free(t);
	kp_symbols__free(s);
	/* fde_mid's range 0; then its start 4 KiB on (in no code) */
	s = new_syms(NULL);
	expect_fde_starts(s, fde_patched("fde-empty", rec_mid + 12, 0, 0), no_mid);
	expect_fde_starts(s, fde_patched("fde-data", rec_mid + 8, 0x1000, 1), no_mid);
	kp_symbols__free(s);
	/* fde_big's range over the next two functions: cut at fde_mid */
	s = new_syms(NULL);
	expect_fde_starts(s, fde_patched("fde-long", rec_big + 12, 0x7fffff, 0), NULL);
	kp_symbols__free(s);
}

/* ---- the table itself ---- */

static void test_symtab(void **state)
{
	struct kp_symtab *t = kp_symtab__new();

	assert_non_null(t);
	assert_int_equal(kp_symtab__add(t, 0x1000, 0x100, 0, "sized", KP_SYM_RANK_GLOBAL), 0);
	assert_int_equal(kp_symtab__add(t, 0x1000, 0x100, 0, "alias", KP_SYM_RANK_WEAK), 0);
	assert_int_equal(kp_symtab__add(t, 0x2000, 0, 0x2400, "open", KP_SYM_RANK_LOCAL), 0);
	assert_int_equal(kp_symtab__add(t, 0x3000, 0, 0, "last", KP_SYM_RANK_GLOBAL), 0);
	assert_int_equal(kp_symtab__add(t, 0x500, 0x10, 0, "_IO_thing", KP_SYM_RANK_GLOBAL), 0);
	assert_int_equal(kp_symtab__add(t, 0x500, 0x10, 0, "thing", KP_SYM_RANK_GLOBAL), 0);
	assert_int_equal(kp_symtab__add(t, 0x4000, 0, 0, "", KP_SYM_RANK_GLOBAL), -EINVAL);
	assert_int_equal(kp_symtab__finish(t), 0);
	assert_int_equal(kp_symtab__count(t), 4);
	/* aliases: fewer leading underscores wins, as in perf */
	assert_string_equal(kp_symtab__name(t, kp_symtab__lookup(t, 0x504)), "thing");
	assert_string_equal(kp_symtab__name(t, kp_symtab__lookup(t, 0x10ff)), "sized");
	assert_null(kp_symtab__lookup(t, 0x1100));	/* gap after a sized one */
	assert_null(kp_symtab__lookup(t, 0xfff));
	assert_string_equal(kp_symtab__name(t, kp_symtab__lookup(t, 0x23ff)), "open");
	assert_null(kp_symtab__lookup(t, 0x2400));	/* past its section */
	assert_null(kp_symtab__lookup(t, 0x3000));	/* open-ended last: unknown */
	/* what the entries left after dedup need, no more: 4 entries and
	 * "thing", "sized", "open", "last" */
	assert_int_equal(kp_symtab__bytes(t), 4 * sizeof(struct kp_sym) + 6 + 6 + 5 + 5);
	kp_symtab__free(t);
}

static int setup(void **state)
{
	const char *b = getenv("top_builddir"), *sr = getenv("top_srcdir");

	snprintf(builddir, sizeof(builddir), "%s", b ? b : ".");
	snprintf(srcdir, sizeof(srcdir), "%s", sr ? sr : "..");
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/kp-test-symbols.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	elf_version(EV_CURRENT);
	srand((unsigned)getpid());
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symtab),
		cmocka_unit_test(test_nopie),
		cmocka_unit_test(test_pie_random_base),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_symtab_rules),
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_pages_released),
		cmocka_unit_test(test_function_only),
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_outside_any_symbol),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_debuglink_mismatch),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_shared_lib),
		cmocka_unit_test(test_module_sharing),
		cmocka_unit_test(test_module_idle_lru),
		cmocka_unit_test(test_module_byte_budget),
		cmocka_unit_test(test_module_one_per_file),
		cmocka_unit_test(test_module_build_id_key),
		cmocka_unit_test(test_dwarf_index_matches),
		cmocka_unit_test(test_process_gone_first),
		cmocka_unit_test(test_process_gone_build_id),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_jit_map),
		cmocka_unit_test(test_jit_map_untrusted),
		cmocka_unit_test(test_jit_map_size_limit),
		cmocka_unit_test(test_jit_map_compact),
		cmocka_unit_test(test_jit_map_shared),
		cmocka_unit_test(test_jit_map_junk),
		cmocka_unit_test(test_jit_map_budget),
		cmocka_unit_test(test_jit_map_async),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_kernel_restricted),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_hostile_truncated),
		cmocka_unit_test(test_hostile_shoff),
		cmocka_unit_test(test_hostile_strtab),
		cmocka_unit_test(test_hostile_debuglink),
		cmocka_unit_test(test_fde_stripped),
		cmocka_unit_test(test_fde_no_sections),
		cmocka_unit_test(test_fde_hostile),
		cmocka_unit_test(test_jit_names),
		cmocka_unit_test(test_jitdump),
		cmocka_unit_test(test_jitdump_mapped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
