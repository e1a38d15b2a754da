// SPDX-License-Identifier: GPL-2.0-only
/* test-dwcache.c — the persistent cache of inflated DWARF (symbols/
 * dwcache.h) against tests/fixtures/fx-prog-gz (DWARF compressed with
 * zlib, as Debian's -dbg packages ship it): a first kp_symbols names a
 * line and an inlined frame and writes the cache (a private directory, a
 * CACHEDIR.TAG, a 0600 file with no compressed section and the build
 * ID), a second names the same from the cache; a directory open to
 * others or another user's is refused (and names still come); a link or
 * a file with another build ID planted under the cached name is refused,
 * its target untouched, and replaced; two writers and a reader at once
 * never show a torn file nor leave a temporary one; the bound evicts the
 * least recently used file, an open counting as a use; a dead writer's
 * old temporary file is removed. */
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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>

#include "symbols/dwcache.h"
#include "symbols/elfread.h"
#include "symbols/symbols.h"

#define DIR_TEMPLATE "/tmp/kp-dwcache-XXXXXX"

static char builddir[2048], srcdir[2048];
static char tmp[sizeof(DIR_TEMPLATE)], cache[sizeof(DIR_TEMPLATE) + 8], fixture[PATH_MAX];
static uint8_t id[KP_ELF_BUILD_ID_MAX];
static uint8_t id_len;
static char cached[PATH_MAX];	/* cache/HEXID.debug */

static int setup(void **state)
{
	(void)state;
	memcpy(tmp, DIR_TEMPLATE, sizeof(DIR_TEMPLATE));
	if (!mkdtemp(tmp))
		return -1;
	snprintf(cache, sizeof(cache), "%s/cache", tmp);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", tmp, tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* Address of sym in the fixture, from nm. */
static uint64_t nm_addr(const char *sym)
{
	char cmd[PATH_MAX + 64], line[512], name[400];
	unsigned long long a;
	uint64_t found = 0;
	char type;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", fixture);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %399s", &a, &type, name) == 3 &&
		    strcmp(name, sym) == 0)
			found = a;
	pclose(p);
	if (!found)
		fail_msg("nm: %s not in %s", sym, fixture);
	return found;
}

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

static Elf *open_elf(const char *path, int *fd)
{
	Elf *e;

	*fd = open(path, O_RDONLY);
	assert_true(*fd >= 0);
	e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(e);
	return e;
}

/* The fixture's executable PT_LOAD mapped at its link address (pid 0). */
static void fixture_map(struct kp_sym_map *m)
{
	struct kp_elf_info info;
	struct stat st;
	int fd;
	Elf *e = open_elf(fixture, &fd);

	assert_int_equal(kp_elf__info(e, &info), 0);
	assert_int_equal(fstat(fd, &st), 0);
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < info.nr_loads; i++) {
		if (!(info.loads[i].flags & PF_X))
			continue;
		m->start = info.loads[i].vaddr & ~0xfffull;
		m->end = (info.loads[i].vaddr + info.loads[i].memsz + 0xfff) & ~0xfffull;
		m->pgoff = info.loads[i].offset & ~0xfffull;
	}
	m->maj = major(st.st_dev);
	m->min = minor(st.st_dev);
	m->ino = st.st_ino;
	m->path = fixture;
	elf_end(e);
	close(fd);
}

static struct kp_symbols *new_syms(const char *dir)
{
	static const char *const none[] = { NULL };
	struct kp_symbols_opts o = { .debug_dirs = none, .dwarf_cache = 1,
				     .dwarf_cache_dir = dir };
	struct kp_symbols *s = kp_symbols__new(&o, NULL);

	assert_non_null(s);
	return s;
}

/* The leaf's line and the inlined frame, as DWARF names them. */
static void expect_names(struct kp_symbols *s)
{
	struct kp_sym_frame f[8];
	struct kp_sym_map m;
	int n;

	fixture_map(&m);
	n = kp_symbols__user(s, &m, nm_addr("kp_mark_leaf"), f, 8);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "kp_leaf");
	assert_non_null(f[0].file);
	assert_int_equal(f[0].line, marker_line("MARK_LEAF"));
	n = kp_symbols__user(s, &m, nm_addr("kp_mark_inline"), f, 8);
	assert_int_equal(n, 2);
	assert_string_equal(f[0].name, "kp_inner");
	assert_true(f[0].inlined);
	assert_int_equal(f[0].line, marker_line("MARK_INLINE"));
	assert_string_equal(f[1].name, "kp_outer");
	assert_int_equal(f[1].line, marker_line("MARK_CALL"));
}

static void stats(struct kp_symbols *s, uint64_t hits, uint64_t stored,
		  uint64_t failed)
{
	struct kp_symbols_stats st;

	kp_symbols__stats(s, &st);
	assert_int_equal(st.dwcache_hits, hits);
	assert_int_equal(st.dwcache_stored, stored);
	assert_int_equal(st.dwcache_failed, failed);
}

/* The cached file: a regular 0600 file, no section compressed, the
 * fixture's build ID. */
static void expect_cached_file(void)
{
	uint8_t got[KP_ELF_BUILD_ID_MAX], glen = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	struct stat st;
	int fd, debug_info = 0;
	Elf *e;

	assert_int_equal(lstat(cached, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	e = open_elf(cached, &fd);
	assert_int_equal(kp_elf__build_id(e, got, &glen), 0);
	assert_int_equal(glen, id_len);
	assert_memory_equal(got, id, id_len);
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;

		assert_non_null(gelf_getshdr(scn, &sh));
		n = elf_strptr(e, shstrndx, sh.sh_name);
		assert_non_null(n);
		assert_false(sh.sh_flags & SHF_COMPRESSED);
		debug_info |= !strcmp(n, ".debug_info");
	}
	assert_true(debug_info);
	elf_end(e);
	close(fd);
}

static void test_fixture_compressed(void **state)
{
	int fd;
	Elf *e = open_elf(fixture, &fd);

	(void)state;
	assert_true(kp_dwcache__worth(e));	/* else nothing here tests much */
	elf_end(e);
	close(fd);
}

static void test_cold_then_warm(void **state)
{
	struct kp_symbols *s = new_syms(cache);
	struct stat st;
	char tag[PATH_MAX];

	(void)state;
	assert_null(kp_symbols__cache_status(s));
	expect_names(s);
	stats(s, 0, 1, 0);
	kp_symbols__free(s);
	expect_cached_file();
	assert_int_equal(stat(cache, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(tag, sizeof(tag), "%s/CACHEDIR.TAG", cache);
	assert_int_equal(access(tag, R_OK), 0);

	s = new_syms(cache);
	expect_names(s);
	stats(s, 1, 0, 0);
	kp_symbols__free(s);
}

static void test_dir_refused(void **state)
{
	char dir[PATH_MAX];
	struct kp_symbols *s;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/open", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	s = new_syms(dir);
	assert_non_null(kp_symbols__cache_status(s));
	assert_non_null(strstr(kp_symbols__cache_status(s), dir));
	expect_names(s);	/* from the fixture's own DWARF */
	stats(s, 0, 0, 0);
	kp_symbols__free(s);
	if (geteuid() != 0)
		return;
	snprintf(dir, sizeof(dir), "%s/theirs", tmp);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chown(dir, 65534, 65534), 0);
	s = new_syms(dir);
	assert_non_null(kp_symbols__cache_status(s));
	assert_non_null(strstr(kp_symbols__cache_status(s), "65534"));
	expect_names(s);
	kp_symbols__free(s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A link under the cached name to a good cached file elsewhere (as
 * another user's could be): never followed, the file it points to
 * untouched, the link replaced by a file of ours. */
static void test_planted_link(void **state)
{
	char victim[sizeof(tmp) + 8], cmd[3 * PATH_MAX];
	struct kp_symbols *s;
	struct stat st;

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", tmp);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && cp '%s' '%s.orig'", cached,
		 victim, cached, victim);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(unlink(cached), 0);
	assert_int_equal(symlink(victim, cached), 0);
	s = new_syms(cache);
	expect_names(s);
	stats(s, 0, 1, 1);	/* refused, then written in its place */
	kp_symbols__free(s);
	assert_int_equal(lstat(cached, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s.orig'", victim, victim);
	assert_int_equal(system(cmd), 0);
	expect_cached_file();
}

static void test_wrong_build_id(void **state)
{
	char cmd[3 * PATH_MAX];
	struct kp_symbols *s;

	(void)state;
	snprintf(cmd, sizeof(cmd), "cp '%s/tests/fixtures/fx-prog-nopie' '%s'",
		 builddir, cached);
	assert_int_equal(system(cmd), 0);
	s = new_syms(cache);
	expect_names(s);
	stats(s, 0, 1, 1);
	kp_symbols__free(s);
	expect_cached_file();
}

static int count_tmp(void)
{
	char cmd[PATH_MAX + 64];
	int n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -c '\\.tmp\\.'", cache);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

/* A child: 30 stores (writer) or opens (reader) through a kp_dwcache of
 * its own; exits with the count of refused files. */
static void child(int writer)
{
	struct kp_dwcache *c = kp_dwcache__new(cache, 0, 0, NULL);
	struct kp_dwcache_stats st;
	int fd, cfd;
	Elf *e = open_elf(fixture, &fd), *ce;

	if (!c)
		_exit(100);
	for (int i = 0; i < 30; i++) {
		if (writer) {
			if (kp_dwcache__store(c, e, id, id_len))
				_exit(101);
		} else if ((ce = kp_dwcache__open(c, id, id_len, &cfd)) != NULL) {
			elf_end(ce);
			close(cfd);
		}
	}
	kp_dwcache__stats(c, &st);
	_exit(st.failed > 50 ? 50 : (int)st.failed);
}

static void test_two_writers(void **state)
{
	pid_t pids[3];
	int status, cfd;
	struct kp_dwcache *c;
	Elf *ce;

	(void)state;
	for (int i = 0; i < 3; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0)
			child(i < 2);
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);	/* never a torn file */
	}
	assert_int_equal(count_tmp(), 0);
	c = kp_dwcache__new(cache, 0, 0, NULL);
	assert_non_null(c);
	ce = kp_dwcache__open(c, id, id_len, &cfd);
	assert_non_null(ce);
	elf_end(ce);
	close(cfd);
	kp_dwcache__free(c);
	expect_cached_file();
}

static void age(const char *name, time_t secs)
{
	char path[PATH_MAX];
	struct timespec t[2];

	snprintf(path, sizeof(path), "%s/%s", cache, name);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= secs;
	t[1] = t[0];
	assert_int_equal(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0);
}

static int present(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", cache, name);
	return access(path, F_OK) == 0;
}

/* The bound: A, B, C of one size, room for two and a half. A used
 * (opened) after B was written: B is the least recently used. */
static void test_lru(void **state)
{
	static const uint8_t a[] = { 0xaa, 1 }, b[] = { 0xbb, 2 }, cc[] = { 0xcc, 3 };
	char dir[PATH_MAX];
	struct stat st;
	struct kp_dwcache *c;
	int fd, cfd;
	Elf *e = open_elf(fixture, &fd), *ce;

	(void)state;
	snprintf(dir, sizeof(dir), "%s", cache);
	assert_int_equal(stat(cached, &st), 0);
	assert_int_equal(unlink(cached), 0);
	c = kp_dwcache__new(dir, (uint64_t)st.st_size * 5 / 2, 0, NULL);
	assert_non_null(c);
	assert_int_equal(kp_dwcache__store(c, e, a, sizeof(a)), 0);
	assert_int_equal(kp_dwcache__store(c, e, b, sizeof(b)), 0);
	age("aa01.debug", 100);
	age("bb02.debug", 50);
	ce = kp_dwcache__open(c, a, sizeof(a), &cfd);	/* A: used now */
	assert_non_null(ce);
	elf_end(ce);
	close(cfd);
	assert_int_equal(kp_dwcache__store(c, e, cc, sizeof(cc)), 0);
	assert_true(present("aa01.debug"));
	assert_false(present("bb02.debug"));
	assert_true(present("cc03.debug"));
	assert_null(kp_dwcache__open(c, b, sizeof(b), &cfd));
	kp_dwcache__free(c);
	elf_end(e);
	close(fd);
}

static void test_stale_tmp(void **state)
{
	char path[PATH_MAX];
	struct kp_dwcache *c = kp_dwcache__new(cache, 0, 0, NULL);
	int fd;
	Elf *e = open_elf(fixture, &fd);

	(void)state;
	assert_non_null(c);
	snprintf(path, sizeof(path), "%s/dd04.debug.tmp.1.0", cache);
	write_file(path, "dead writer");
	age("dd04.debug.tmp.1.0", 3600);
	snprintf(path, sizeof(path), "%s/ee05.debug.tmp.2.0", cache);
	write_file(path, "busy writer");
	assert_int_equal(kp_dwcache__store(c, e, id, id_len), 0);
	assert_false(present("dd04.debug.tmp.1.0"));
	assert_true(present("ee05.debug.tmp.2.0"));
	kp_dwcache__free(c);
	elf_end(e);
	close(fd);
}

int main(void)
{
	const char *b = getenv("top_builddir"), *sr = getenv("top_srcdir");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_compressed),
		cmocka_unit_test(test_cold_then_warm),
		cmocka_unit_test(test_dir_refused),
		cmocka_unit_test(test_planted_link),
		cmocka_unit_test(test_wrong_build_id),
		cmocka_unit_test(test_two_writers),
		cmocka_unit_test(test_lru),
		cmocka_unit_test(test_stale_tmp),
	};
	int n, fd;
	Elf *e;

	snprintf(builddir, sizeof(builddir), "%s", b ? b : ".");
	snprintf(srcdir, sizeof(srcdir), "%s", sr ? sr : "..");
	snprintf(fixture, sizeof(fixture), "%s/tests/fixtures/fx-prog-gz", builddir);
	elf_version(EV_CURRENT);
	e = open_elf(fixture, &fd);
	if (kp_elf__build_id(e, id, &id_len) || !id_len) {
		fprintf(stderr, "%s: no build ID\n", fixture);
		return 1;
	}
	elf_end(e);
	close(fd);
	if (setup(NULL))
		return 1;
	n = snprintf(cached, sizeof(cached), "%s/", cache);
	for (unsigned i = 0; i < id_len; i++)
		n += snprintf(cached + n, sizeof(cached) - (size_t)n, "%02x", id[i]);
	snprintf(cached + n, sizeof(cached) - (size_t)n, ".debug");
	n = cmocka_run_group_tests(tests, NULL, NULL);
	teardown(NULL);
	return n;
}
