// SPDX-License-Identifier: GPL-2.0-only
/* test-unwind.c — cmocka tests of the DWARF CFI unwinder on recorded
 * register + stack snapshots (tests/unwind-data/NAME.snap, made by
 * tests/capture-regs from the fixture binaries checked in next to them; see
 * tests/unwind-data/regen.sh). No BPF, no perf.
 *
 * The fixture executables are checked in, so their addresses match the
 * snapshots. Frames beyond main go through the system's libc: each snapshot
 * records libc's build-id, and the cases that need libc's CFI are skipped
 * with a message when the installed libc differs (its map is then dropped,
 * so the rest still runs). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "jit-cfi-code.h"
#include "smaps-rss.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>

#include "unwind/cfi-scan.h"
#include "unwind/unwind.h"
#include "unwind/unwind-int.h"
#include "util/filemap.h"

#define MAX_MAPS 16
#define MAX_SAMPLES 64
#define MAX_SYMS 64

struct sample {
	uint64_t regs[17];
	uint64_t fp[128];
	int nr_fp;
	uint8_t *stack;
	size_t len;
};

struct sym {
	uint64_t lo, hi;
	char name[48];
};

struct snap {
	struct kp_unwind_map maps[MAX_MAPS];
	char paths[MAX_MAPS][512];
	size_t nr_maps;
	struct sample s[MAX_SAMPLES];
	int nr;
	int libc_ok;
	const struct kp_unwind_map *exe;	/* the fixture's map */
	struct sym syms[MAX_SYMS];
	int nr_syms;
};

static const char *srcdir(void)
{
	const char *d = getenv("top_srcdir");

	return d ? d : SRCDIR;
}

static int file_build_id(const char *path, char *hex, size_t size)
{
	int fd = open(path, O_RDONLY), ok = -1;
	const unsigned char *id;
	Elf *elf;
	ssize_t n;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && (n = dwelf_elf_gnu_build_id(elf, (const void **)&id)) > 0 &&
	    (size_t)n * 2 < size) {
		for (ssize_t i = 0; i < n; i++)
			sprintf(hex + 2 * i, "%02x", id[i]);
		ok = 0;
	}
	elf_end(elf);
	close(fd);
	return ok;
}

/* The fixture's function symbols, as process address ranges. */
static void load_syms(struct snap *sn)
{
	const struct kp_unwind_map *m = sn->exe;
	int fd = open(m->path, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	GElf_Phdr ph;
	uint64_t bias = 0;

	assert_non_null(elf);
	for (int i = 0; gelf_getphdr(elf, i, &ph); i++)
		if (ph.p_type == PT_LOAD && m->pgoff >= ph.p_offset &&
		    m->pgoff < ph.p_offset + ph.p_filesz)
			bias = m->start - m->pgoff + ph.p_offset - ph.p_vaddr;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			gelf_getsym(d, (int)i, &sym);
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value ||
			    sn->nr_syms >= MAX_SYMS)
				continue;
			struct sym *s = &sn->syms[sn->nr_syms++];
			s->lo = sym.st_value + bias;
			s->hi = s->lo + sym.st_size;
			snprintf(s->name, sizeof(s->name), "%s",
				 elf_strptr(elf, sh.sh_link, sym.st_name));
		}
	}
	elf_end(elf);
	close(fd);
}

static const char *name_of(const struct snap *sn, uint64_t pc)
{
	for (int i = 0; i < sn->nr_syms; i++)
		if (pc >= sn->syms[i].lo && pc < sn->syms[i].hi)
			return sn->syms[i].name;
	for (size_t i = 0; i < sn->nr_maps; i++)
		if (pc >= sn->maps[i].start && pc < sn->maps[i].end)
			return strstr(sn->maps[i].path, "libc.so") ? "[libc]" : "[other]";
	return "?";
}

static void read_stack(FILE *f, struct sample *s)
{
	unsigned v;

	s->stack = malloc(s->len ? s->len : 1);
	assert_non_null(s->stack);
	for (size_t i = 0; i < s->len; i++) {
		assert_int_equal(fscanf(f, "%2x", &v), 1);
		s->stack[i] = (uint8_t)v;
	}
}

static void parse_line(struct snap *sn, FILE *f, const char *fixture, char *line)
{
	char path[512], hex[128], want[128];
	unsigned long long a, b, c;
	struct sample *s = sn->nr ? &sn->s[sn->nr - 1] : NULL;
	int n;

	if (sscanf(line, "map %llx %llx %llx %511s", &a, &b, &c, path) == 4) {
		struct kp_unwind_map *m = &sn->maps[sn->nr_maps];
		const char *base = strrchr(path, '/') + 1;

		assert_true(sn->nr_maps < MAX_MAPS);
		if (strcmp(base, fixture) == 0)
			snprintf(sn->paths[sn->nr_maps], 512, "%s/tests/unwind-data/%s", srcdir(), fixture);
		else
			snprintf(sn->paths[sn->nr_maps], 512, "%s", path);
		*m = (struct kp_unwind_map){ .start = a, .end = b, .pgoff = c,
					     .path = sn->paths[sn->nr_maps] };
		if (strcmp(base, fixture) == 0)
			sn->exe = m;
		sn->nr_maps++;
	} else if (sscanf(line, "buildid %511s %127s", path, want) == 2 && strstr(path, "libc.so")) {
		sn->libc_ok = file_build_id(path, hex, sizeof(hex)) == 0 && !strcmp(hex, want);
	} else if (strncmp(line, "sample", 6) == 0) {
		assert_true(sn->nr < MAX_SAMPLES);
		memset(&sn->s[sn->nr++], 0, sizeof(struct sample));
	} else if (s && strncmp(line, "regs", 4) == 0) {
		char *p = line + 4;

		for (int i = 0; i < 17; i++)
			s->regs[i] = strtoull(p, &p, 16);
	} else if (s && sscanf(line, "fp %d%n", &s->nr_fp, &n) == 1) {
		char *p = line + n;

		for (int i = 0; i < s->nr_fp && i < 128; i++)
			s->fp[i] = strtoull(p, &p, 16);
	} else if (s && sscanf(line, "stack %llu", &a) == 1) {
		s->len = a;
		read_stack(f, s);
	}
}

/* Drop the maps of system libraries when the installed libc is not the
 * one the snapshot was taken with. */
static void drop_system_maps(struct snap *sn)
{
	size_t j = 0;

	for (size_t i = 0; i < sn->nr_maps; i++) {
		if (&sn->maps[i] != sn->exe)
			continue;
		sn->maps[j] = sn->maps[i];
		memmove(sn->paths[j], sn->paths[i], sizeof(sn->paths[j]));
		sn->maps[j].path = sn->paths[j];
		sn->exe = &sn->maps[j++];
	}
	sn->nr_maps = j;
}

static struct snap *load_snap(const char *fixture)
{
	char path[1024], line[8192];
	struct snap *sn = calloc(1, sizeof(*sn));
	FILE *f;

	assert_non_null(sn);
	snprintf(path, sizeof(path), "%s/tests/unwind-data/%s.snap", srcdir(), fixture);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		parse_line(sn, f, fixture, line);
	fclose(f);
	assert_non_null(sn->exe);
	assert_true(sn->nr > 0);
	if (!sn->libc_ok) {
		print_message("note: installed libc differs from %s's snapshot: "
			      "frames beyond main are not checked\n", fixture);
		drop_system_maps(sn);
	}
	load_syms(sn);
	return sn;
}

static void free_snap(struct snap *sn)
{
	for (int i = 0; i < sn->nr; i++)
		free(sn->s[i].stack);
	free(sn);
}

static int unwind(struct kp_unwinder *u, const struct snap *sn, const struct sample *s,
		  uint64_t *pcs, int max, int *trunc)
{
	return kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, s->regs, 17,
				   s->stack, s->len, pcs, max, trunc);
}

/* The name of frame i: return addresses (i > 0) are named at pc - 1,
 * the call instruction, which may be its function's last. */
static const char *frame_name(const struct snap *sn, const uint64_t *pcs, int i)
{
	return name_of(sn, i ? pcs[i] - 1 : pcs[i]);
}

/* Index of the first frame at or after `from` named name, or -1. */
static int find_frame(const struct snap *sn, const uint64_t *pcs, int n, int from,
		      const char *name)
{
	for (int i = from; i < n; i++)
		if (strcmp(frame_name(sn, pcs, i), name) == 0)
			return i;
	return -1;
}

static void dump(const struct snap *sn, const uint64_t *pcs, int n)
{
	for (int i = 0; i < n; i++)
		print_message("  #%d %llx %s\n", i, (unsigned long long)pcs[i], frame_name(sn, pcs, i));
}

/* Every sample of the -fomit-frame-pointer split workload unwinds to main;
 * those in a hot function through level3, level2, level1 in that order. */
static void test_split_nofp(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	uint64_t pcs[128];
	int hot = 0;

	assert_non_null(u);
	for (int i = 0; i < sn->nr; i++) {
		int trunc, n = unwind(u, sn, &sn->s[i], pcs, 128, &trunc);
		int h = find_frame(sn, pcs, n, 0, "hot_a");

		if (h < 0)
			h = find_frame(sn, pcs, n, 0, "hot_b");
		if (h < 0)
			h = find_frame(sn, pcs, n, 0, "hot_c");
		if (find_frame(sn, pcs, n, 0, "main") < 0 || (sn->libc_ok && trunc))
			dump(sn, pcs, n);
		assert_true(find_frame(sn, pcs, n, 0, "main") > 0);
		if (sn->libc_ok)
			assert_int_equal(trunc, 0);
		if (h < 0)
			continue;
		hot++;
		int l3 = find_frame(sn, pcs, n, h, "level3");
		int l2 = find_frame(sn, pcs, n, l3 + 1, "level2");
		int l1 = find_frame(sn, pcs, n, l2 + 1, "level1");
		assert_int_equal(l3, h + 1);
		assert_int_equal(l2, l3 + 1);
		assert_int_equal(l1, l2 + 1);
		assert_int_equal(find_frame(sn, pcs, n, l1, "do_round"), l1 + 1);
	}
	assert_true(hot >= sn->nr / 2);
	kp_unwinder__stats(u, &st);
	if (sn->libc_ok)
		assert_int_equal(st.ok, sn->nr);
	kp_unwinder__free(u);
	free_snap(sn);
}

/* A comparator called by libc's qsort: the stack goes through libc's
 * frames back to sort_rounds and main. */
static void test_qsort_libc(void **state)
{
	struct snap *sn = load_snap("unwind-qsort");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	uint64_t pcs[128];
	int in_cmp = 0;

	assert_non_null(u);
	if (!sn->libc_ok) {
		kp_unwinder__free(u);
		free_snap(sn);
		skip();
	}
	for (int i = 0; i < sn->nr; i++) {
		int trunc, n = unwind(u, sn, &sn->s[i], pcs, 128, &trunc);
		int c = find_frame(sn, pcs, n, 0, "cmp_slow");
		int sr = find_frame(sn, pcs, n, 0, "sort_rounds");

		if (trunc || sr < 0)
			dump(sn, pcs, n);
		assert_int_equal(trunc, 0);
		assert_true(sr >= 0);
		assert_int_equal(find_frame(sn, pcs, n, sr, "main"), sr + 1);
		if (c < 0)
			continue;
		in_cmp++;
		assert_true(sr > c + 1);
		for (int k = c + 1; k < sr; k++)
			assert_string_equal(frame_name(sn, pcs, k), "[libc]");
	}
	assert_true(in_cmp > 0);
	kp_unwinder__free(u);
	free_snap(sn);
}

/* The caller ends with a call to a noreturn function: its return address
 * is past its CFI range, and only a lookup at return address - 1 finds it. */
static void test_noreturn_call(void **state)
{
	struct snap *sn = load_snap("unwind-noret");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	uint64_t pcs[128];
	int checked = 0;

	assert_non_null(u);
	for (int i = 0; i < sn->nr; i++) {
		int trunc, n = unwind(u, sn, &sn->s[i], pcs, 128, &trunc);
		int r = find_frame(sn, pcs, n, 0, "run");

		if (find_frame(sn, pcs, n, 0, "spin_exit") != 0)
			continue;	/* in clock_gettime (vdso) */
		checked++;
		if (r != 1 || find_frame(sn, pcs, n, r, "main") != 2)
			dump(sn, pcs, n);
		assert_int_equal(r, 1);
		/* the return address itself is past run */
		assert_string_not_equal(name_of(sn, pcs[1]), "run");
		assert_int_equal(find_frame(sn, pcs, n, r, "main"), 2);
		if (sn->libc_ok)
			assert_int_equal(trunc, 0);
	}
	assert_true(checked > 0);
	kp_unwinder__free(u);
	free_snap(sn);
}

/* A recursion deeper than the copied stack: every unwind stops truncated,
 * counted as "stack copy too short", after the frames the copy holds. */
static void test_deep_truncated(void **state)
{
	struct snap *sn = load_snap("unwind-deep");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	uint64_t pcs[128];

	assert_non_null(u);
	for (int i = 0; i < sn->nr; i++) {
		int trunc, n = unwind(u, sn, &sn->s[i], pcs, 128, &trunc);

		assert_int_equal(trunc, 1);
		assert_true(n >= 20);	/* 8 KiB / 272 bytes per level */
		assert_true(find_frame(sn, pcs, n, 1, "recurse") >= 1);
		assert_int_equal(find_frame(sn, pcs, n, 0, "main"), -1);
	}
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.short_stack, sn->nr);
	assert_int_equal(st.ok, 0);
	/* the same with fewer frames allowed than the copy holds */
	int trunc, n = unwind(u, sn, &sn->s[0], pcs, 4, &trunc);
	assert_int_equal(n, 4);
	assert_int_equal(trunc, 1);
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.too_deep, 1);
	kp_unwinder__free(u);
	free_snap(sn);
}

/* Frame-pointer build, hot frameless leaf: the perf fp walk from leaf_spin
 * goes straight to outer; fix_leaf puts middle back, and leaves stacks
 * from framed code alone. */
static void test_leaf_fix(void **state)
{
	struct snap *sn = load_snap("unwind-leaf");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	int leaves = 0, fixed = 0;

	assert_non_null(u);
	for (int i = 0; i < sn->nr; i++) {
		struct sample *s = &sn->s[i];
		uint64_t fp[129];
		int n0 = s->nr_fp, n;
		size_t words = s->len < 64 ? s->len : 64;	/* what BPF copies */

		assert_true(n0 >= 2);
		memcpy(fp, s->fp, sizeof(s->fp));
		n = kp_unwinder__fix_leaf(u, 1, sn->maps, sn->nr_maps, s->regs, 17,
					  s->stack, words, fp, n0, 128);
		if (strcmp(name_of(sn, fp[0]), "leaf_spin") != 0) {
			assert_int_equal(n, n0);
			assert_memory_equal(fp, s->fp, (size_t)n0 * 8);
			continue;
		}
		leaves++;
		/* the fixture really shows the bug */
		assert_string_equal(name_of(sn, s->fp[1]), "outer");
		assert_int_equal(n, n0 + 1);
		assert_string_equal(name_of(sn, fp[1]), "middle");
		assert_string_equal(name_of(sn, fp[2]), "outer");
		assert_memory_equal(&fp[2], &s->fp[1], (size_t)(n0 - 1) * 8);
		fixed++;
		if (sn->libc_ok)
			assert_int_equal(kp_unwinder__reaches_entry(u, 1, sn->maps, sn->nr_maps,
								    fp, n), 1);
	}
	assert_true(leaves > 0);
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.leaf_fixed, fixed);
	/* a full frame list is kept at max: the outermost frame drops */
	struct sample *s = &sn->s[0];
	uint64_t fp[2] = { s->fp[0], s->fp[1] };
	int n = kp_unwinder__fix_leaf(u, 1, sn->maps, sn->nr_maps, s->regs, 17,
				      s->stack, 64, fp, 2, 2);
	if (strcmp(name_of(sn, fp[0]), "leaf_spin") == 0) {
		assert_int_equal(n, 2);
		assert_string_equal(name_of(sn, fp[1]), "middle");
	}
	kp_unwinder__free(u);
	free_snap(sn);
}

/* Frame-pointer stacks of -fomit-frame-pointer code stop short of the
 * entry; whole DWARF-unwound stacks reach it. */
static void test_reaches_entry(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	uint64_t pcs[128];

	assert_non_null(u);
	for (int i = 0; i < sn->nr; i++) {
		struct sample *s = &sn->s[i];
		int trunc, n;

		assert_int_equal(kp_unwinder__reaches_entry(u, 1, sn->maps, sn->nr_maps,
							    s->fp, s->nr_fp), 0);
		if (!sn->libc_ok)
			continue;
		n = unwind(u, sn, s, pcs, 128, &trunc);
		assert_int_equal(kp_unwinder__reaches_entry(u, 1, sn->maps, sn->nr_maps,
							    pcs, n), 1);
		/* cut after main: stops short */
		int m = find_frame(sn, pcs, n, 0, "main");
		assert_int_equal(kp_unwinder__reaches_entry(u, 1, sn->maps, sn->nr_maps,
							    pcs, m + 1), 0);
	}
	assert_int_equal(kp_unwinder__reaches_entry(u, 1, sn->maps, sn->nr_maps, pcs, 0),
			 -EINVAL);
	kp_unwinder__free(u);
	free_snap(sn);
}

/* The same rule without libc's debug file (no local symbols): the fixed
 * fp stacks of the leaf fixture still reach the entry, through the
 * function placed right before __libc_start_main. */
static void test_reaches_entry_nodebug(void **state)
{
	struct snap *sn = load_snap("unwind-leaf");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	int checked = 0;

	assert_non_null(u);
	assert_int_equal(kp_unwinder__set_debug_dir(u, "/nonexistent"), 0);
	if (!sn->libc_ok) {
		kp_unwinder__free(u);
		free_snap(sn);
		skip();
	}
	for (int i = 0; i < sn->nr; i++) {
		struct sample *s = &sn->s[i];
		uint64_t fp[129];
		int n;

		memcpy(fp, s->fp, sizeof(s->fp));
		n = kp_unwinder__fix_leaf(u, 1, sn->maps, sn->nr_maps, s->regs, 17,
					  s->stack, 64, fp, s->nr_fp, 128);
		assert_int_equal(kp_unwinder__reaches_entry(u, 1, sn->maps, sn->nr_maps,
							    fp, n), 1);
		/* without the outermost frames it stops short */
		assert_int_equal(kp_unwinder__reaches_entry(u, 1, sn->maps, sn->nr_maps,
							    fp, n - 2), 0);
		checked++;
	}
	assert_true(checked > 0);
	kp_unwinder__free(u);
	free_snap(sn);
}

/* The resolver's entry point picks DWARF for full copies and the fixed
 * frame-pointer stack for the leaf words, and says when to mark. */
static void test_user_stack(void **state)
{
	struct snap *nofp = load_snap("split-nofp"), *leaf = load_snap("unwind-leaf");
	struct snap *deep = load_snap("unwind-deep");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	enum kp_ustack_how how;
	uint64_t pcs[128];
	int trunc, want, n;

	assert_non_null(u);
	for (int i = 0; i < nofp->nr; i++) {
		struct sample *s = &nofp->s[i];

		n = kp_unwinder__user_stack(u, 1, nofp->maps, nofp->nr_maps, s->regs, 17,
					    s->stack, s->len, s->fp, s->nr_fp, pcs, 128,
					    &trunc, &how, &want);
		assert_int_equal(how, KP_USTACK_DWARF);
		assert_true(find_frame(nofp, pcs, n, 0, "main") > 0);
		/* only the leaf words: the fp stack, which stops short */
		n = kp_unwinder__user_stack(u, 1, nofp->maps, nofp->nr_maps, s->regs, 17,
					    s->stack, KP_UNWIND_LEAF_BYTES, s->fp, s->nr_fp,
					    pcs, 128, &trunc, &how, &want);
		assert_true(how == KP_USTACK_FP || how == KP_USTACK_FP_LEAF);
		assert_true(n >= s->nr_fp);
		assert_int_equal(find_frame(nofp, pcs, n, 0, "main"), -1);
		assert_int_equal(want, 1);
	}
	for (int i = 0; i < leaf->nr; i++) {
		struct sample *s = &leaf->s[i];

		n = kp_unwinder__user_stack(u, 1, leaf->maps, leaf->nr_maps, s->regs, 17,
					    s->stack, KP_UNWIND_LEAF_BYTES, s->fp, s->nr_fp,
					    pcs, 128, &trunc, &how, &want);
		if (strcmp(name_of(leaf, pcs[0]), "leaf_spin") != 0)
			continue;
		assert_int_equal(how, KP_USTACK_FP_LEAF);
		assert_int_equal(n, s->nr_fp + 1);
		assert_string_equal(frame_name(leaf, pcs, 1), "middle");
		if (leaf->libc_ok)
			assert_int_equal(want, 0);
	}
	for (int i = 0; i < deep->nr; i++) {
		struct sample *s = &deep->s[i];

		n = kp_unwinder__user_stack(u, 1, deep->maps, deep->nr_maps, s->regs, 17,
					    s->stack, s->len, s->fp, s->nr_fp, pcs, 128,
					    &trunc, &how, NULL);
		assert_int_equal(how, KP_USTACK_DWARF);
		assert_int_equal(trunc, 1);
		assert_true(n >= 20);
	}
	{	/* a pc in no mapping (the registers of an image an exec is
		 * replacing): the walk cannot step, the fp stack decides and
		 * nothing stopped early */
		struct sample *s = &nofp->s[0];
		uint64_t regs[17], fp1 = 0x10;

		memcpy(regs, s->regs, sizeof(regs));
		regs[16] = fp1;
		n = kp_unwinder__user_stack(u, 1, nofp->maps, nofp->nr_maps, regs, 17,
					    s->stack, s->len, &fp1, 1, pcs, 128,
					    &trunc, &how, NULL);
		assert_int_not_equal(how, KP_USTACK_DWARF);
		assert_int_equal(n, 1);
		assert_int_equal(trunc, 0);
	}
	kp_unwinder__free(u);
	free_snap(nofp);
	free_snap(leaf);
	free_snap(deep);
}

/* Garbage registers and stack bytes fail cleanly, counted. */
static void test_garbage(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	uint64_t regs[17], pcs[128], seed = 42;
	uint8_t junk[4096];
	int trunc, n;

	assert_non_null(u);
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < sizeof(junk); i += 8) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t v = round & 1 ? sn->exe->start + (seed >> 40) % (sn->exe->end - sn->exe->start) : seed;
			memcpy(&junk[i], &v, 8);
		}
		memcpy(regs, junk + 128, sizeof(regs));
		/* a pc inside the fixture's code, everything else random */
		regs[16] = sn->exe->start + (seed >> 20) % (sn->exe->end - sn->exe->start);
		n = kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, regs, 17,
					junk, sizeof(junk), pcs, 128, &trunc);
		assert_true(n >= 1 && n <= 128);
		assert_int_equal(pcs[0], regs[16]);
	}
	/* no registers: an error, not a stack */
	assert_int_equal(kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, regs, 0,
					     junk, sizeof(junk), pcs, 128, &trunc), -EINVAL);
	/* a pc outside every mapping: one frame, bad address */
	kp_unwinder__stats(u, &st);
	regs[16] = 0x10;
	n = kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, regs, 17, junk, sizeof(junk),
				pcs, 128, &trunc);
	assert_int_equal(n, 1);
	assert_int_equal(trunc, 1);
	struct kp_unwind_stats st2;
	kp_unwinder__stats(u, &st2);
	assert_int_equal(st2.bad_address, st.bad_address + 1);
	/* a real sample with only the leaf words, or none: not unwound */
	assert_int_equal(kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, sn->s[0].regs, 17,
					     NULL, 0, pcs, 128, &trunc), -ENODATA);
	assert_int_equal(kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, sn->s[0].regs, 17,
					     sn->s[0].stack, KP_UNWIND_LEAF_BYTES, pcs, 128,
					     &trunc), -ENODATA);
	/* a real sample whose copy ends in main's caller's frame: too short */
	n = kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, sn->s[0].regs, 17,
				sn->s[0].stack, 200, pcs, 128, &trunc);
	assert_true(n >= 1);
	assert_int_equal(trunc, 1);
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.short_stack, st2.short_stack + 1);
	/* a module whose file is missing: no CFI */
	struct kp_unwind_map gone = *sn->exe;
	gone.path = "/nonexistent/kptop-unwind-test";
	gone.ino = 12345;
	n = kp_unwinder__unwind(u, 1, &gone, 1, sn->s[0].regs, 17,
				sn->s[0].stack, sn->s[0].len, pcs, 128, &trunc);
	assert_int_equal(n, 1);
	kp_unwinder__stats(u, &st2);
	assert_int_equal(st2.no_cfi, st.no_cfi + 1);
	/* the same file (device + inode) later seen under a path that opens */
	gone.path = sn->exe->path;
	n = kp_unwinder__unwind(u, 1, &gone, 1, sn->s[0].regs, 17,
				sn->s[0].stack, sn->s[0].len, pcs, 128, &trunc);
	assert_true(n > 3);
	kp_unwinder__free(u);
	kp_unwinder__free(NULL);
	free_snap(sn);
}

/* Compiled rules (unwind-rule.c) step as libdw's frame states do: every
 * recorded sample, cut at every 8 bytes of its copy, and junk stacks
 * whose words point into the fixture give the same frames, the same end
 * and the same counts of why each walk stopped, rules on and off. */
static void unwind_both(struct kp_unwinder *on, struct kp_unwinder *off,
			const struct snap *sn, const uint64_t *regs,
			const uint8_t *stack, size_t len)
{
	uint64_t a[128], b[128];
	int ta, tb;
	int na = kp_unwinder__unwind(on, 1, sn->maps, sn->nr_maps, regs, 17,
				     stack, len, a, 128, &ta);
	int nb = kp_unwinder__unwind(off, 1, sn->maps, sn->nr_maps, regs, 17,
				     stack, len, b, 128, &tb);

	assert_int_equal(na, nb);
	assert_int_equal(ta, tb);
	if (na > 0)
		assert_memory_equal(a, b, (size_t)na * sizeof(a[0]));
}

static void test_rules_same(void **state)
{
	static const char *const fixtures[] = { "split-nofp", "unwind-qsort",
						"unwind-deep", "unwind-leaf", "unwind-noret" };
	struct kp_unwinder *on = kp_unwinder__new(NULL), *off = kp_unwinder__new(NULL);
	struct kp_unwind_stats a, b;
	uint64_t regs[17], seed = 7;
	uint8_t junk[2048];

	assert_non_null(on);
	assert_non_null(off);
	kp_unwinder__set_rules(off, 0);
	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		struct snap *sn = load_snap(fixtures[f]);

		for (int i = 0; i < sn->nr; i++)
			for (size_t len = sn->s[i].len; len > KP_UNWIND_LEAF_BYTES; len -= 8)
				unwind_both(on, off, sn, sn->s[i].regs, sn->s[i].stack, len);
		for (int round = 0; round < 500; round++) {
			for (size_t k = 0; k < sizeof(junk); k += 8) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				uint64_t v = sn->exe->start + (seed >> 40) % (sn->exe->end - sn->exe->start);

				v = round & 1 ? v : (seed >> 33 & 1 ? sn->s[0].regs[7] + (seed >> 52) : v);
				memcpy(&junk[k], &v, 8);
			}
			memcpy(regs, sn->s[round % sn->nr].regs, sizeof(regs));
			regs[7] = sn->s[0].regs[7];	/* the junk is the stack at sp */
			regs[16] = sn->exe->start + (seed >> 20) % (sn->exe->end - sn->exe->start);
			unwind_both(on, off, sn, regs, junk, sizeof(junk));
		}
		free_snap(sn);
	}
	kp_unwinder__stats(on, &a);
	kp_unwinder__stats(off, &b);
	assert_true(a.ok > 100);
	assert_true(a.short_stack > 100);
	assert_int_equal(a.ok, b.ok);
	assert_int_equal(a.no_cfi, b.no_cfi);
	assert_int_equal(a.short_stack, b.short_stack);
	assert_int_equal(a.bad_address, b.bad_address);
	assert_int_equal(a.fp_frames, b.fp_frames);
	assert_int_equal(a.too_deep, b.too_deep);
	kp_unwinder__free(on);
	kp_unwinder__free(off);
}

/* Kept walks (unwind-memo.c) give what full walks give: every recorded
 * sample unwound twice in a row (the second reuses the first's outer
 * frames), then with one word of its copy changed in turn at every
 * offset (a return address, a saved register: a stale walk would show),
 * then with each mapping in turn another file's: the same frames, ends
 * and stop counts as an unwinder that keeps none. */
static void memo_both(struct kp_unwinder *on, struct kp_unwinder *off,
		      const struct snap *sn, const struct kp_unwind_map *maps,
		      size_t nr_maps, const struct sample *s, const uint8_t *stack)
{
	uint64_t a[128], b[128];
	int ta, tb;
	int na = kp_unwinder__unwind(on, 1, maps, nr_maps, s->regs, 17, stack, s->len,
				     a, 128, &ta);
	int nb = kp_unwinder__unwind(off, 1, maps, nr_maps, s->regs, 17, stack, s->len,
				     b, 128, &tb);

	(void)sn;
	assert_int_equal(na, nb);
	assert_int_equal(ta, tb);
	if (na > 0)
		assert_memory_equal(a, b, (size_t)na * sizeof(a[0]));
}

static void test_memo_same(void **state)
{
	static const char *const fixtures[] = { "split-nofp", "unwind-qsort",
						"unwind-deep", "unwind-leaf", "unwind-noret" };
	struct kp_unwinder *on = kp_unwinder__new(NULL), *off = kp_unwinder__new(NULL);
	struct kp_unwind_stats a, b;

	(void)state;
	assert_non_null(on);
	assert_non_null(off);
	assert_int_equal(kp_unwinder__set_memo(off, 0), 0);
	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		struct snap *sn = load_snap(fixtures[f]);
		struct kp_unwind_map other[MAX_MAPS];

		for (int i = 0; i < sn->nr; i++) {
			const struct sample *s = &sn->s[i];
			uint8_t *copy = malloc(s->len);

			assert_non_null(copy);
			memo_both(on, off, sn, sn->maps, sn->nr_maps, s, s->stack);
			memo_both(on, off, sn, sn->maps, sn->nr_maps, s, s->stack);
			for (size_t k = 0; k + 8 <= s->len; k += 8) {
				memcpy(copy, s->stack, s->len);
				copy[k] ^= 0x10;
				memo_both(on, off, sn, sn->maps, sn->nr_maps, s, copy);
				memo_both(on, off, sn, sn->maps, sn->nr_maps, s, s->stack);
			}
			for (size_t m = 0; m < sn->nr_maps; m++) {
				memcpy(other, sn->maps, sn->nr_maps * sizeof(other[0]));
				other[m].ino += 1000;	/* another file, same place */
				memo_both(on, off, sn, other, sn->nr_maps, s, s->stack);
				memo_both(on, off, sn, sn->maps, sn->nr_maps, s, s->stack);
			}
			free(copy);
		}
		free_snap(sn);
	}
	kp_unwinder__stats(on, &a);
	kp_unwinder__stats(off, &b);
	print_message("memo: %llu walks reused, %llu frames spared\n",
		      (unsigned long long)a.memo_walks, (unsigned long long)a.memo_frames);
	assert_true(a.memo_walks > 1000);
	assert_int_equal(b.memo_walks, 0);
	assert_int_equal(a.ok, b.ok);
	assert_int_equal(a.no_cfi, b.no_cfi);
	assert_int_equal(a.short_stack, b.short_stack);
	assert_int_equal(a.bad_address, b.bad_address);
	assert_int_equal(a.too_deep, b.too_deep);
	kp_unwinder__free(on);
	kp_unwinder__free(off);
}

/* An epilogue row of the fixture: after "pop %rbx" (or another
 * callee-saved register), before "ret", GCC's CFI says CFA = rsp + 8 and
 * still that the register is saved at a negative offset from the CFA,
 * below rsp: the process address of such an instruction and the register,
 * or 0. */
static uint64_t epilogue_pc(const struct snap *sn, int *reg)
{
	const struct kp_unwind_map *m = sn->exe;
	int fd = open(m->path, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Dwarf_CFI *cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	uint64_t found = 0, bias = 0;
	GElf_Phdr ph;

	for (int i = 0; elf && gelf_getphdr(elf, i, &ph); i++)
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			bias = m->start - m->pgoff + ph.p_offset - ph.p_vaddr;
	for (int i = 0; i < sn->nr_syms && cfi && !found; i++) {
		for (uint64_t pc = sn->syms[i].lo; pc < sn->syms[i].hi && !found; pc++) {
			Dwarf_Op mem_ops[3], *ops;
			Dwarf_Frame *f;
			size_t nops;

			if (dwarf_cfi_addrframe(cfi, pc - bias, &f))
				continue;
			if (!dwarf_frame_cfa(f, &ops, &nops) && nops == 1 &&
			    ops[0].atom == DW_OP_bregx && ops[0].number == 7 && ops[0].number2 == 8)
				for (int r = 3; r <= 15 && !found; r++)
					if ((UW_CALLEE_SAVED & (1u << r)) &&
					    !dwarf_frame_register(f, r, mem_ops, &ops, &nops) &&
					    nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
					    (int64_t)ops[1].number < -8) {
						found = pc;
						*reg = r;
					}
			free(f);
		}
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	return found;
}

/* A sample in an epilogue, the register popped already: its save slot is
 * below the sampled rsp, outside the copy. The walk goes on to the caller
 * (the register is the caller's value: "same value"), by compiled rules
 * and by libdw's frame states alike; it stopped at the leaf before. */
static void test_epilogue(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	uint64_t regs[17], pcs[128], ra;
	uint8_t stack[256];	/* more than the leaf words */
	int reg = 0, trunc, n;

	(void)state;
	regs[16] = epilogue_pc(sn, &reg);
	assert_true(regs[16] != 0);
	ra = sn->exe->start + 16;	/* a return address in the fixture */
	for (int rules = 1; rules >= 0; rules--) {
		struct kp_unwinder *u = kp_unwinder__new(NULL);
		struct kp_unwind_stats st;

		assert_non_null(u);
		kp_unwinder__set_rules(u, rules);
		memcpy(regs, sn->s[0].regs, 16 * sizeof(regs[0]));
		regs[reg] = 0x1234;
		memset(stack, 0, sizeof(stack));
		memcpy(stack, &ra, sizeof(ra));		/* at rsp: ret's */
		n = kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, regs, 17, stack,
					sizeof(stack), pcs, 128, &trunc);
		kp_unwinder__stats(u, &st);
		assert_true(n >= 2);
		assert_int_equal(pcs[1], ra);
		assert_int_equal(st.bad_address, 0);	/* not stopped at the leaf */
		kp_unwinder__free(u);
	}
	free_snap(sn);
}

/* Maps from mmap2 events with a build-id have no device and inode: every
 * process's map of one file must still share one module (key: the
 * build-id), and a file whose build-id is not the key is not used. */
static void test_build_id_key(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	struct kp_unwind_map m;
	uint8_t id[64];
	char hex[130], other[600];
	uint64_t pcs[128];
	size_t len;
	int trunc, n;

	(void)state;
	assert_non_null(u);
	assert_int_equal(file_build_id(sn->exe->path, hex, sizeof(hex)), 0);
	len = strlen(hex) / 2;
	for (size_t i = 0; i < len; i++)
		assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &id[i]), 1);
	m = *sn->exe;
	m.ino = 0;
	m.maj = m.min = 0;
	m.build_id = id;
	m.build_id_len = (uint8_t)len;
	n = kp_unwinder__unwind(u, 1, &m, 1, sn->s[0].regs, 17, sn->s[0].stack,
				sn->s[0].len, pcs, 128, &trunc);
	assert_true(n > 3);
	/* another process maps it: another path, the same module */
	snprintf(other, sizeof(other), "%s/tests/unwind-data/./split-nofp", srcdir());
	m.path = other;
	assert_int_equal(kp_unwinder__unwind(u, 2, &m, 1, sn->s[0].regs, 17,
					     sn->s[0].stack, sn->s[0].len, pcs, 128,
					     &trunc), n);
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.modules, 1);
	/* a build-id the file does not have: opened, refused, no CFI */
	id[0] ^= 0xff;
	assert_int_equal(kp_unwinder__unwind(u, 3, &m, 1, sn->s[0].regs, 17,
					     sn->s[0].stack, sn->s[0].len, pcs, 128,
					     &trunc), 1);
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.modules, 2);
	kp_unwinder__free(u);
	free_snap(sn);
}

/* A file whose build-id is not its key's is not read again at every
 * lookup, even when each process names it by another path (as
 * /proc/PID/map_files does): the first retry comes at once, then the
 * cache waits 16 lookups, twice as many after each further failure. */
static void test_module_retry_bounded(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	struct kp_unwind_map m;
	uint8_t id[20] = { 0xde, 0xad };
	char paths[2][600];
	uint64_t pcs[128];
	int trunc;

	(void)state;
	assert_non_null(u);
	snprintf(paths[0], sizeof(paths[0]), "%s/tests/unwind-data/split-nofp", srcdir());
	snprintf(paths[1], sizeof(paths[1]), "%s/tests/unwind-data/./split-nofp", srcdir());
	m = *sn->exe;
	m.ino = 0;
	m.maj = m.min = 0;
	m.build_id = id;
	m.build_id_len = sizeof(id);
	for (int i = 0; i < 1000; i++) {
		m.path = paths[i & 1];
		kp_unwinder__unwind(u, (uint32_t)i + 1, &m, 1, sn->s[0].regs, 17,
				    sn->s[0].stack, sn->s[0].len, pcs, 128, &trunc);
	}
	kp_unwinder__stats(u, &st);
	/* the first read, a retry, then 16, 32, ..., 512 lookups apart: 8
	 * reads, not 1000 */
	assert_true(st.modules >= 2);
	assert_true(st.modules <= 9);
	kp_unwinder__free(u);
	free_snap(sn);
}

/* The path function's first answer dies before the unwinder opens it
 * (a /proc/PID/map_files path of a process that just exited): the
 * unwinder asks again at once, and the sample that found the module
 * missing unwinds with the second answer. */
struct gone_path {
	const char *paths[2];
	int asked;
};

static const char *gone_path_fn(void *ctx, const struct kp_unwind_map *map)
{
	struct gone_path *g = ctx;

	(void)map;
	return g->paths[g->asked++ ? 1 : 0];
}

static void test_path_gone(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct gone_path g = { .paths = { "/nonexistent/kptop-gone/split-nofp",
					  sn->exe->path } };
	struct kp_unwind_map m;
	uint64_t pcs[128];
	int trunc, n;

	(void)state;
	assert_non_null(u);
	kp_unwinder__set_path_fn(u, gone_path_fn, &g);
	m = *sn->exe;
	m.path = NULL;
	m.ino = 4242;	/* a file: keyed by device and inode */
	n = kp_unwinder__unwind(u, 1, &m, 1, sn->s[0].regs, 17, sn->s[0].stack,
				sn->s[0].len, pcs, 128, &trunc);
	assert_int_equal(g.asked, 2);
	assert_true(n > 3);
	assert_true(find_frame(sn, pcs, n, 0, "main") > 0);
	/* cached now: not asked again */
	assert_int_equal(kp_unwinder__unwind(u, 1, &m, 1, sn->s[0].regs, 17,
					     sn->s[0].stack, sn->s[0].len, pcs,
					     128, &trunc), n);
	assert_int_equal(g.asked, 2);
	kp_unwinder__free(u);
	free_snap(sn);
}

/* The module cache is bounded: past its size the least recently used
 * module is freed, and unwinding through it again loads it again with
 * the same result. Two keys (inodes 1 and 2) for the same file. */
/* sn's first sample unwound as if its file were the one mapping m. */
static int unwind_first(struct kp_unwinder *u, const struct snap *sn,
			const struct kp_unwind_map *m, uint64_t *pcs, int *trunc)
{
	return kp_unwinder__unwind(u, 1, m, 1, sn->s[0].regs, 17, sn->s[0].stack,
				   sn->s[0].len, pcs, 128, trunc);
}

static void test_module_lru(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	struct kp_unwind_map a, b, c;
	uint64_t pcs[128];
	int trunc, n;

	(void)state;
	assert_non_null(u);
	kp_unwinder__set_max_modules(u, 1);
	a = b = *sn->exe;
	a.ino = 1;
	b.ino = 2;
#define UNWIND(m) unwind_first(u, sn, &(m), pcs, &trunc)
	n = UNWIND(a);
	assert_true(n > 3);
	assert_int_equal(UNWIND(a), n);		/* cached */
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.modules, 1);
	assert_int_equal(st.modules_evicted, 0);
	assert_int_equal(UNWIND(b), n);		/* a goes */
	assert_int_equal(UNWIND(a), n);		/* b goes, a is read again */
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.modules, 3);
	assert_int_equal(st.modules_evicted, 2);
	/* room for two: a third one frees the least recently used (b, as
	 * a was used after it), so a stays cached */
	kp_unwinder__set_max_modules(u, 2);
	c = a;
	c.ino = 3;
	assert_int_equal(UNWIND(b), n);
	assert_int_equal(UNWIND(a), n);
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.modules, 4);
	assert_int_equal(st.modules_evicted, 2);
	assert_int_equal(UNWIND(c), n);		/* b goes */
	assert_int_equal(UNWIND(a), n);		/* still cached */
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.modules, 5);
	assert_int_equal(st.modules_evicted, 3);
#undef UNWIND
	kp_unwinder__free(u);
	free_snap(sn);
}

/* The modules' estimated bytes (--max-memory's share): counted as they
 * are loaded and looked up; with a bound, a module added while the
 * others hold more than it frees the least recently used first. */
/* Two loads of one module are counted alike, up to the slack of
 * malloc_usable_size (a chunk split from a free one may be a little
 * larger, as the heap's layout, which the build path changes, has it). */
static void assert_near(size_t got, size_t want)
{
	size_t slack = want / 64;

	if (got + slack < want || got > want + slack)
		fail_msg("%zu bytes, not within %zu of %zu", got, slack, want);
}

static void test_module_bytes(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	struct kp_unwind_map a, b, c;
	uint64_t pcs[128], one;
	int trunc, n;

	(void)state;
	assert_non_null(u);
	a = b = c = *sn->exe;
	a.ino = 1;
	b.ino = 2;
	c.ino = 3;
#define UNWIND(m) unwind_first(u, sn, &(m), pcs, &trunc)
	n = UNWIND(a);
	assert_true(n > 3);
	kp_unwinder__stats(u, &st);
	one = st.bytes;
	assert_true(one > 4096);		/* the base and the frame states */
	assert_int_equal(UNWIND(b), n);		/* no bound: both kept */
	kp_unwinder__stats(u, &st);
	assert_near(st.bytes, 2 * one);
	assert_int_equal(st.modules_evicted, 0);
	kp_unwinder__set_max_bytes(u, st.bytes - one);	/* b's bytes */
	assert_int_equal(UNWIND(c), n);		/* a goes, b fits the bound */
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.modules_evicted, 1);
	assert_near(st.bytes, 2 * one);
	assert_int_equal(UNWIND(b), n);		/* cached */
	assert_int_equal(UNWIND(a), n);		/* c goes (b was used after it) */
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.modules, 4);
	assert_int_equal(st.modules_evicted, 2);
	assert_near(st.bytes, 2 * one);
#undef UNWIND
	kp_unwinder__free(u);
	free_snap(sn);
}

/* A copy of fixture with every CIE's initial instructions replaced by
 * DW_CFA_undefined REG (a ULEB of 4 bytes) and a DW_CFA_restore_state
 * with no state to restore: libdw fails every lookup after making a
 * frame state of REG + 1 registers. The copy's path into path. */
static void hostile_copy(const char *fixture, uint64_t reg, char *path, size_t size)
{
	char src[1024];
	int in, out;
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx, len, off = 0, eh_off = 0, eh_size = 0;
	uint8_t *img;
	struct stat st;

	snprintf(src, sizeof(src), "%s/tests/unwind-data/%s", srcdir(), fixture);
	snprintf(path, size, "%s/kptop-test-cfi-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_true((in = open(src, O_RDONLY)) >= 0);
	assert_int_equal(fstat(in, &st), 0);
	len = (size_t)st.st_size;
	assert_non_null(img = malloc(len));
	assert_int_equal(read(in, img, len), (ssize_t)len);
	assert_non_null(elf = elf_memory((char *)img, len));
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".eh_frame"))
			eh_off = sh.sh_offset, eh_size = sh.sh_size;
	elf_end(elf);
	assert_true(eh_size > 0);
	for (int cies = 0;; ) {
		uint8_t *r = img + eh_off + off;
		uint32_t rlen, id;

		memcpy(&rlen, r, 4);
		if (off + 4 >= eh_size || rlen == 0) {
			assert_true(cies > 0);
			break;
		}
		memcpy(&id, r + 4, 4);
		/* gcc's CIE: version 1, "zR", 1, -8, 16, augmentation 1 byte */
		if (id == 0) {
			uint8_t *ins = r + 8 + 1 + 3 + 3 + 2, *end = r + 4 + rlen;

			assert_memory_equal(r + 9, "zR", 3);
			assert_true(end - ins >= 6);
			memset(ins, DW_CFA_nop, (size_t)(end - ins));
			ins[0] = DW_CFA_undefined;
			for (int i = 0; i < 4; i++)
				ins[1 + i] = (uint8_t)(((reg >> (7 * i)) & 0x7f) | (i < 3 ? 0x80 : 0));
			ins[5] = DW_CFA_restore_state;
			cies++;
		}
		off += 4 + rlen;
	}
	assert_true((out = mkstemp(path)) >= 0);
	assert_int_equal(write(out, img, len), (ssize_t)len);
	close(out);
	close(in);
	free(img);
}

/* CFI naming a register far above any machine's is refused when the
 * module is loaded: its lookups, which libdw would fail only after
 * clearing a frame state of that many registers (here 64 MiB, at most
 * 2 GiB), are not made, the module is not retried, and the refusal is
 * counted once. A sane register number in the same failing CFI is not
 * refused (libdw fails it cheaply). */
static void test_hostile_cfi(void **state)
{
	struct snap *sn = load_snap("split-nofp");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	struct kp_unwind_map m = *sn->exe;
	char path[512];
	uint64_t pcs[128];
	int trunc, n;

	(void)state;
	assert_non_null(u);
	n = kp_unwinder__unwind(u, 1, &m, 1, sn->s[0].regs, 17, sn->s[0].stack,
				sn->s[0].len, pcs, 128, &trunc);
	assert_true(n > 3);
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.cfi_refused, 0);
	kp_unwinder__free(u);

	hostile_copy("split-nofp", 1u << 22, path, sizeof(path));
	m.path = path;
	assert_non_null(u = kp_unwinder__new(NULL));
	for (int i = 0; i < 3; i++) {
		n = kp_unwinder__unwind(u, 1, &m, 1, sn->s[0].regs, 17, sn->s[0].stack,
					sn->s[0].len, pcs, 128, &trunc);
		assert_int_equal(n, 1);
		assert_int_equal(trunc, 1);
	}
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.cfi_refused, 1);
	assert_int_equal(st.modules, 1);
	assert_int_equal(st.no_cfi, 3);
	kp_unwinder__free(u);
	unlink(path);

	hostile_copy("split-nofp", 100, path, sizeof(path));
	assert_non_null(u = kp_unwinder__new(NULL));
	n = kp_unwinder__unwind(u, 1, &m, 1, sn->s[0].regs, 17, sn->s[0].stack,
				sn->s[0].len, pcs, 128, &trunc);
	assert_int_equal(n, 1);
	kp_unwinder__stats(u, &st);
	assert_int_equal(st.cfi_refused, 0);
	kp_unwinder__free(u);
	unlink(path);
	free_snap(sn);
}

/* The byte-level checks of cfi-scan.h on .debug_frame records: a CIE
 * (version 1, code 1, data -8, return address 16, def_cfa r7+8) and an
 * FDE of it, each varied once. */
static int scan_debug_frame(const uint8_t *ins, size_t nins, uint8_t ra, uint32_t cie_ptr)
{
	uint8_t b[512];
	size_t o = 0, cie_len = 4 + 1 + 1 + 3 + 3 + nins;
	struct kp_cfi_sec s = { .data = b, .eh = false, .addr_size = 8 };
	uint32_t v;

	assert_true(cie_len + 4 + 4 + 4 + 16 <= sizeof(b));
	v = (uint32_t)cie_len, memcpy(b + o, &v, 4), o += 4;
	v = 0xffffffffu, memcpy(b + o, &v, 4), o += 4;
	b[o++] = 1, b[o++] = 0;			/* version, "" */
	b[o++] = 1, b[o++] = 0x78, b[o++] = ra;	/* 1, -8, ra */
	b[o++] = DW_CFA_def_cfa, b[o++] = 7, b[o++] = 8;
	memcpy(b + o, ins, nins), o += nins;
	v = 4 + 16, memcpy(b + o, &v, 4), o += 4;
	memcpy(b + o, &cie_ptr, 4), o += 4;
	memset(b + o, 0, 16), o += 16;		/* initial location, range */
	s.size = o;
	return uw_cfi_scan_all(&s);
}

static void test_cfi_scan(void **state)
{
	static const uint8_t ok[] = { DW_CFA_offset | 6, 2, DW_CFA_undefined, 0xff, 0x01,
				      DW_CFA_expression, 3, 1, DW_OP_lit0 };
	static const uint8_t high[] = { DW_CFA_undefined, 0x80, 0x02 };	/* 256 */
	static const uint8_t high2[] = { DW_CFA_register, 3, 0x80, 0x80, 0x80, 0x80, 0x08 };
	static const uint8_t unknown[] = { 0x3f };
	static const uint8_t past[] = { DW_CFA_def_cfa_expression, 9, DW_OP_lit0 };
	static const uint8_t cut[] = { DW_CFA_offset_extended, 3 };
	uint8_t deep[UW_CFI_MAX_DEPTH + 1];

	(void)state;
	assert_int_equal(scan_debug_frame(ok, sizeof(ok), 16, 0), 0);
	assert_int_equal(scan_debug_frame(ok, sizeof(ok), 255, 0), 0);
	assert_int_equal(scan_debug_frame(ok, sizeof(ok), 16, 4), KP_EFORMAT);	/* no CIE */
	assert_int_equal(scan_debug_frame(high, sizeof(high), 16, 0), KP_EFORMAT);
	assert_int_equal(scan_debug_frame(high2, sizeof(high2), 16, 0), KP_EFORMAT);
	assert_int_equal(scan_debug_frame(unknown, sizeof(unknown), 16, 0), KP_EFORMAT);
	assert_int_equal(scan_debug_frame(past, sizeof(past), 16, 0), KP_EFORMAT);
	assert_int_equal(scan_debug_frame(cut, sizeof(cut), 16, 0), KP_EFORMAT);
	memset(deep, DW_CFA_remember_state, sizeof(deep));
	assert_int_equal(scan_debug_frame(deep, sizeof(deep) - 1, 16, 0), 0);
	assert_int_equal(scan_debug_frame(deep, sizeof(deep), 16, 0), KP_EFORMAT);
}

/* Built with or without frame pointers, by the CFI: split-nofp
 * (-fomit-frame-pointer) not, unwind-leaf (-fno-omit-frame-pointer) yes;
 * anonymous memory cannot tell. */
static void test_keeps_fp(void **state)
{
	struct snap *nofp = load_snap("split-nofp"), *fp = load_snap("unwind-leaf");
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_map anon = { .start = 0x10000, .end = 0x20000 };

	(void)state;
	assert_non_null(u);
	assert_int_equal(kp_unwinder__keeps_fp(u, nofp->exe), 0);
	assert_int_equal(kp_unwinder__keeps_fp(u, fp->exe), 1);
	assert_int_equal(kp_unwinder__keeps_fp(u, &anon), -1);
	kp_unwinder__free(u);
	free_snap(nofp);
	free_snap(fp);
}

/* ---- mixed unwinding: a JIT frame between frames with CFI ---- */

struct jit_cap {
	uint64_t regs[17];
	uint8_t *stack;
	size_t len;
};

/* The end of the mapping holding addr (the stack's), from /proc/self/maps. */
static uint64_t map_end_of(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long lo, hi, end = 0;
	char line[4096];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi)
			end = hi;
	fclose(f);
	return end;
}

/* Byte by byte, not through memcpy: the stack holds sanitizer redzones. */
static __attribute__((no_sanitize_address)) void copy_stack(uint8_t *dst, uint64_t sp,
							     size_t len)
{
	const volatile uint8_t *src = (const volatile uint8_t *)(uintptr_t)sp;

	for (size_t i = 0; i < len; i++)
		dst[i] = src[i];
}

/* Called from the generated code: the registers at a pc with CFI, and
 * the stack above them up to its end (at most 256 KiB). */
static __attribute__((noinline)) void jit_capture(struct jit_cap *c)
{
	uint64_t pc, sp, bp, end;

	__asm__ __volatile__("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			     : "=r"(pc), "=r"(sp), "=r"(bp));
	memset(c->regs, 0, sizeof(c->regs));
	c->regs[16] = pc;
	c->regs[7] = sp;
	c->regs[6] = bp;
	end = map_end_of(sp);
	c->len = end - sp < (256u << 10) ? end - sp : (256u << 10);
	c->stack = malloc(c->len);
	assert_non_null(c->stack);
	copy_stack(c->stack, sp, c->len);
}

/* Calls the generated code, which calls jit_capture; its return address
 * into here is pcs[2] of the unwind. */
static __attribute__((noinline)) void jit_caller(void *code, struct jit_cap *c)
{
	((void (*)(void (*)(struct jit_cap *), struct jit_cap *))code)(jit_capture, c);
	__asm__ __volatile__("" ::: "memory");	/* no tail call */
}

/* The executable mappings of this process, files with their identity and
 * anonymous ones without (as the model gives them). */
static size_t self_maps(struct kp_unwind_map *maps, char (*paths)[512], size_t max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long lo, hi, off, ino;
	unsigned maj, min;
	char line[4096], perm[8], path[512];
	size_t n = 0;

	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %511s", &lo, &hi, perm, &off,
			   &maj, &min, &ino, path) < 7 || perm[2] != 'x')
			continue;
		strcpy(paths[n], path);
		maps[n] = (struct kp_unwind_map){ .start = lo, .end = hi, .pgoff = off,
			.maj = maj, .min = min, .ino = ino,
			.path = path[0] == '/' ? paths[n] : NULL };
		n++;
	}
	fclose(f);
	return n;
}

#if defined(__x86_64__)
/* A page of executable anonymous memory holding code[0..len). */
static void *jit_code_page(const uint8_t *code, size_t len)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	memcpy(p, code, len);
	assert_int_equal(mprotect(p, 4096, PROT_READ | PROT_EXEC), 0);
	return p;
}
#endif

/* Code with no CFI (JIT code: push %rbp; mov %rsp,%rbp; call *%rdi with
 * the second argument) between two frames with CFI: the unwinder steps
 * over it by its frame pointer and goes on with the CFI of its caller,
 * to the outermost frame. */
static void test_jit_frame(void **state)
{
#if defined(__x86_64__)
	static const uint8_t tramp[] = {
		0x55,			/* push %rbp */
		0x48, 0x89, 0xe5,	/* mov %rsp,%rbp */
		0x48, 0x89, 0xf8,	/* mov %rdi,%rax */
		0x48, 0x89, 0xf7,	/* mov %rsi,%rdi */
		0xff, 0xd0,		/* call *%rax */
		0x5d,			/* pop %rbp */
		0xc3,			/* ret */
	};
	struct kp_unwind_map maps[64];
	static char paths[64][512];
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	struct jit_cap c;
	uint64_t pcs[128], code_at;
	size_t nr;
	int n, trunc;
	void *code = jit_code_page(tramp, sizeof(tramp));

	(void)state;
	code_at = (uint64_t)(uintptr_t)code;
	jit_caller(code, &c);
	nr = self_maps(maps, paths, 64);
	assert_non_null(u);
	n = kp_unwinder__unwind(u, 1, maps, nr, c.regs, 17, c.stack, c.len, pcs, 128, &trunc);
	kp_unwinder__stats(u, &st);
	if (n < 4 || trunc)
		fprintf(stderr, "jit frame: n %d trunc %d no_cfi %llu bad %llu short %llu\n", n,
			trunc, (unsigned long long)st.no_cfi,
			(unsigned long long)st.bad_address,
			(unsigned long long)st.short_stack);
	assert_true(n >= 4);
	/* the capture's caller is the generated code, whose is jit_caller */
	assert_true(pcs[1] > code_at && pcs[1] <= code_at + sizeof(tramp));
	assert_true(pcs[2] > (uint64_t)(uintptr_t)jit_caller &&
		    pcs[2] < (uint64_t)(uintptr_t)jit_caller + 256);
	assert_int_equal(trunc, 0);	/* on to the outermost frame */
	assert_int_equal(st.fp_frames, 1);
	assert_int_equal(st.ok, 1);
	free(c.stack);
	munmap(code, 4096);
	kp_unwinder__free(u);
#else
	(void)state;
	skip();
#endif
}

/* What the instructions of JIT code without CFI say of its frame at a
 * pc (unwind-jit.c): CPython's frameless trampoline, a frame-pointer
 * prologue, a pc inside an instruction, a branch, and random bytes
 * (never read outside the code, any answer a sane frame). */
static void test_jit_rule(void **state)
{
	static const uint8_t cpython[] = {
		0x48, 0x83, 0xec, 0x08,	/* sub $8,%rsp */
		0xff, 0xd1,		/* call *%rcx */
		0x48, 0x83, 0xc4, 0x08,	/* add $8,%rsp */
		0xc3,			/* ret */
	};
	static const uint8_t fp[] = {
		0xf3, 0x0f, 0x1e, 0xfa,	/* endbr64 */
		0x55,			/* push %rbp */
		0x48, 0x89, 0xe5,	/* mov %rsp,%rbp */
		0x41, 0x54,		/* push %r12 */
		0x48, 0x81, 0xec, 0x10, 0x01, 0x00, 0x00,	/* sub $0x110,%rsp */
		0x4c, 0x89, 0xe0,	/* mov %r12,%rax */
		0xe8, 0, 0, 0, 0,	/* call */
		0xc3,
	};
	static const uint8_t branch[] = { 0x48, 0x83, 0xec, 0x08, 0xeb, 0x00, 0xff, 0xd1, 0xc3 };
	static const uint8_t to_rbp[] = { 0x48, 0x89, 0xc5, 0xff, 0xd1, 0xc3 };	/* mov %rax,%rbp */
	struct uw_jit_rule r;
	uint8_t junk[40];

	(void)state;
	assert_int_equal(uw_jit_rule(cpython, sizeof(cpython), 6, &r), 0);
	assert_int_equal(r.cfa_off, 16);
	assert_int_equal(r.rbp_below_cfa, 0);
	assert_true(r.rbp_same);
	assert_int_equal(uw_jit_rule(cpython, sizeof(cpython), 0, &r), 0);	/* the entry */
	assert_int_equal(r.cfa_off, 8);
	assert_int_equal(uw_jit_rule(cpython, sizeof(cpython), 5, &r), KP_ENOCFI);
	assert_int_equal(uw_jit_rule(cpython, sizeof(cpython), sizeof(cpython), &r), KP_ENOCFI);
	assert_int_equal(uw_jit_rule(fp, sizeof(fp), 25, &r), 0);
	assert_int_equal(r.cfa_off, 8 + 8 + 0x110 + 8);	/* pushes, sub, the return address */
	assert_int_equal(r.rbp_below_cfa, 16);
	assert_false(r.rbp_same);
	assert_int_equal(uw_jit_rule(branch, sizeof(branch), 8, &r), KP_ENOCFI);
	assert_int_equal(uw_jit_rule(to_rbp, sizeof(to_rbp), 5, &r), KP_ENOCFI);
	srand(42);
	for (int i = 0; i < 200000; i++) {
		size_t len = 1 + (size_t)rand() % sizeof(junk);
		uint8_t *code = malloc(len);	/* exact size: ASan sees overreads */

		assert_non_null(code);
		for (size_t k = 0; k < len; k++)
			code[k] = (uint8_t)(rand() & 1 ? rand() : cpython[k % sizeof(cpython)]);
		if (uw_jit_rule(code, len, (uint64_t)rand() % (len + 2), &r) == 0) {
			assert_true(r.cfa_off >= 8 && r.cfa_off <= UW_JIT_MAX_FRAME + 8);
			assert_int_equal(r.cfa_off & 7, 0);
			assert_true(r.rbp_below_cfa == 0 ||
				    (r.rbp_below_cfa >= 16 && r.rbp_below_cfa <= r.cfa_off));
		}
		free(code);
	}
}

/* JIT code with no frame pointer and no CFI, whose bytes the code
 * function gives: "sub $8,%rsp; call" as CPython's trampolines are. The
 * unwinder steps over it by what its instructions did to the stack
 * pointer (rbp is not its frame's: its caller's, here jit_caller's, which
 * has no frame pointer), on to the outermost frame. */
struct jit_code_src {
	const uint8_t *code;
	size_t len;
	uint64_t at;
	int asked;
	const uint8_t *eh;	/* its CFI, as a jitdump gives it (or NULL) */
	size_t eh_len;
};

static int jit_code_fn(void *ctx, uint32_t pid, const struct kp_unwind_map *map,
		       uint64_t pc, struct kp_unwind_code *out)
{
	struct jit_code_src *src = ctx;

	(void)pid;
	(void)map;
	src->asked++;
	if (pc < src->at || pc >= src->at + src->len)
		return 0;
	*out = (struct kp_unwind_code){ .code = src->code, .len = src->len, .start = src->at,
		.eh_frame = src->eh, .eh_len = src->eh_len,
		.eh_vaddr = src->at + ((src->len + 7) & ~(size_t)7) };
	return 1;
}

#if defined(__x86_64__)
/* A JIT run: code copied into a page of its own and called between
 * jit_caller and jit_capture (c), this process's maps, an unwinder asking
 * jit_code_fn about it (src). */
struct jit_run {
	struct kp_unwind_map maps[64];
	char paths[64][512];
	size_t nr;
	struct kp_unwinder *u;
	struct jit_cap c;
	struct jit_code_src src;
	void *code;
};

static struct jit_run *jit_run_new(const uint8_t *code, size_t len)
{
	struct jit_run *j = calloc(1, sizeof(*j));

	assert_non_null(j);
	j->code = jit_code_page(code, len);
	j->src = (struct jit_code_src){ .code = code, .len = len,
					.at = (uint64_t)(uintptr_t)j->code };
	jit_caller(j->code, &j->c);
	j->nr = self_maps(j->maps, j->paths, 64);
	j->u = kp_unwinder__new(NULL);
	assert_non_null(j->u);
	kp_unwinder__set_code_fn(j->u, jit_code_fn, &j->src);
	return j;
}

static void jit_run_free(struct jit_run *j)
{
	free(j->c.stack);
	munmap(j->code, 4096);
	kp_unwinder__free(j->u);
	free(j);
}

/* Unwind the capture into pcs (128); 1 when the chain is whole through
 * the JIT frame: pcs[1] in the code, pcs[2] in jit_caller, to the end. */
static int jit_whole(struct jit_run *j, uint64_t *pcs)
{
	uint64_t jc = (uint64_t)(uintptr_t)jit_caller;
	int trunc, n = kp_unwinder__unwind(j->u, 1, j->maps, j->nr, j->c.regs, 17,
					   j->c.stack, j->c.len, pcs, 128, &trunc);

	return n >= 4 && !trunc && pcs[1] > j->src.at && pcs[1] <= j->src.at + j->src.len &&
	       pcs[2] > jc && pcs[2] < jc + 256;
}
#endif

static void test_jit_frameless(void **state)
{
#if defined(__x86_64__)
	static const uint8_t tramp[] = {
		0x48, 0x83, 0xec, 0x08,	/* sub $8,%rsp */
		0x48, 0x89, 0xf8,	/* mov %rdi,%rax */
		0x48, 0x89, 0xf7,	/* mov %rsi,%rdi */
		0xff, 0xd0,		/* call *%rax */
		0x48, 0x83, 0xc4, 0x08,	/* add $8,%rsp */
		0xc3,			/* ret */
	};
	struct jit_run *j = jit_run_new(tramp, sizeof(tramp));
	struct kp_unwind_stats st;
	uint64_t pcs[128];

	(void)state;
	assert_true(jit_whole(j, pcs));
	kp_unwinder__stats(j->u, &st);
	assert_int_equal(st.jit_frames, 1);
	assert_int_equal(st.fp_frames, 0);
	assert_true(j->src.asked >= 1);
	/* the same with the JIT map named as perf names it: not a file */
	for (size_t i = 0; i < j->nr; i++)
		if (j->src.at >= j->maps[i].start && j->src.at < j->maps[i].end)
			j->maps[i].path = "//anon";
	assert_true(jit_whole(j, pcs));
	/* without the code function: rbp is not this frame's, no whole chain */
	kp_unwinder__set_code_fn(j->u, NULL, NULL);
	assert_false(jit_whole(j, pcs));
	jit_run_free(j);
#else
	(void)state;
	skip();
#endif
}

#if defined(__x86_64__)
/* kp_cfi_code's .eh_frame records (jit-cfi-code.h) for the code at code,
 * without the terminator. */
static void jit_eh(uint8_t eh[48], uint64_t code)
{
	int32_t rel = (int32_t)(code - (code + KP_CFI_EH_AT + KP_CFI_FDE_PC));

	memcpy(eh, kp_cfi_eh, 48);
	memcpy(eh + KP_CFI_FDE_PC, &rel, 4);	/* pc-relative from the field */
}
#endif

/* JIT code without a frame pointer whose instructions the unwinder does
 * not follow (a branch before its call), with the call frame information
 * its runtime gave (a jitdump's unwinding info): stepped by that CFI to
 * the outermost frame; without it, or with CFI that names an absurd
 * register (refused, counted), the chain is not whole. */
static void test_jit_eh_frame(void **state)
{
#if defined(__x86_64__)
	struct jit_run *j = jit_run_new(kp_cfi_code, sizeof(kp_cfi_code));
	struct kp_unwind_stats st;
	uint8_t eh[48];
	uint64_t pcs[128];

	(void)state;
	jit_eh(eh, j->src.at);
	j->src.eh = eh;
	j->src.eh_len = sizeof(eh);
	assert_true(jit_whole(j, pcs));
	kp_unwinder__stats(j->u, &st);
	assert_int_equal(st.jit_cfi_frames, 1);
	assert_int_equal(st.jit_frames, 0);
	assert_int_equal(st.cfi_refused, 0);
	assert_true(jit_whole(j, pcs));		/* again: from the cache */
	/* without its CFI: the branch stops the instructions' reading */
	j->src.eh = NULL;
	assert_false(jit_whole(j, pcs));
	/* hostile CFI: its CIE saves register 300 (above UW_CFI_MAX_REG):
	 * refused, counted, never given to libdw */
	memcpy(eh + 20, (const uint8_t[]){ 0x05, 0xac, 0x02, 0x01 }, 4);
	j->src.eh = eh;
	assert_false(jit_whole(j, pcs));
	kp_unwinder__stats(j->u, &st);
	assert_int_equal(st.cfi_refused, 1);
	jit_run_free(j);
#else
	(void)state;
	skip();
#endif
}

/* The unwinder's images are libelf's maps of other programs' files: the
 * pages its load touched (the CFI check reads all of .eh_frame, 57 kB of
 * kptop's) are given back, not left in kptop's RSS. */
static void test_image_released(void **state)
{
	char exe[600], path[640];
	struct uw_cache *c = uw_cache__new();
	struct kp_unwind_map map = { 0 };
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	(void)state;
	assert_non_null(c);
	assert_true(n > 0);
	exe[n] = 0;
	slash = strrchr(exe, '/');
	assert_non_null(slash);
	*slash = 0;
	snprintf(path, sizeof(path), "%s/../kptop", exe);
	if (!realpath(path, exe) || stat(exe, &st)) {
		skip();	/* kptop not built next to the tests */
		return;
	}
	map.path = exe;
	map.ino = st.st_ino;
	map.maj = major(st.st_dev);
	map.min = minor(st.st_dev);
	map.end = 0x1000;
	assert_non_null(uw_cache__module(c, &map));
	assert_true(rss_of(exe) < 16);
	uw_cache__free(c);
	/* never the heap, where a drop would zero what libelf read */
	void *heap = aligned_alloc(4096, 8192);

	assert_non_null(heap);
	assert_int_equal(kp_filemap__is_file(heap, 8192), 0);
	free(heap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_nofp),
		cmocka_unit_test(test_image_released),
		cmocka_unit_test(test_qsort_libc),
		cmocka_unit_test(test_noreturn_call),
		cmocka_unit_test(test_deep_truncated),
		cmocka_unit_test(test_leaf_fix),
		cmocka_unit_test(test_reaches_entry),
		cmocka_unit_test(test_reaches_entry_nodebug),
		cmocka_unit_test(test_user_stack),
		cmocka_unit_test(test_module_bytes),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_rules_same),
		cmocka_unit_test(test_memo_same),
		cmocka_unit_test(test_epilogue),
		cmocka_unit_test(test_module_lru),
		cmocka_unit_test(test_module_retry_bounded),
		cmocka_unit_test(test_path_gone),
		cmocka_unit_test(test_build_id_key),
		cmocka_unit_test(test_hostile_cfi),
		cmocka_unit_test(test_cfi_scan),
		cmocka_unit_test(test_jit_frame),
		cmocka_unit_test(test_jit_rule),
		cmocka_unit_test(test_jit_frameless),
		cmocka_unit_test(test_jit_eh_frame),
		cmocka_unit_test(test_keeps_fp),
	};

	elf_version(EV_CURRENT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
