// SPDX-License-Identifier: GPL-2.0-only
/* unwind-bench.c — the DWARF unwinder's own cost per sample, over the
 * recorded snapshots of tests/unwind-data (no BPF): the first (cold)
 * unwind, which loads the modules' CFI, then the warm cost per sample
 * (thread CPU time, not wall time).
 *
 * Usage: unwind-bench TOP_SRCDIR [ITERATIONS]
 * Prints one line per snapshot: samples, frames per sample, ns per sample
 * and the share of frames taken from kept walks (unwind-memo.c), with
 * mixed unwinding (frames without CFI stepped by their frame pointer),
 * the same without kept walks, and DWARF-only, on the same stacks one
 * after the other, and the same for
 * a stack captured here through generated code (jit-frame: the DWARF-only
 * unwind stops there);
 * then the same with libdwfl's own unwinder (dwfl_attach_state with a
 * memory-read callback over the copy, dwfl_getthread_frames), the design
 * kptop did not take, for comparison.
 * Frames beyond main need the installed libc to match the snapshot's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include <elfutils/libdwfl.h>

#include "unwind/unwind.h"

#define MAX_MAPS 16
#define MAX_SAMPLES 64

struct bsample {
	uint64_t regs[17];
	uint8_t *stack;
	size_t len;
};

struct bsnap {
	struct kp_unwind_map maps[MAX_MAPS];
	char paths[MAX_MAPS][512];
	size_t nr_maps;
	struct bsample s[MAX_SAMPLES];
	int nr;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);	/* the machine may be busy */
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int read_line(struct bsnap *sn, FILE *f, const char *dir, const char *name,
		     char *line)
{
	unsigned long long a, b, c;
	char path[512];
	struct bsample *s = sn->nr ? &sn->s[sn->nr - 1] : NULL;

	if (sscanf(line, "map %llx %llx %llx %511s", &a, &b, &c, path) == 4 &&
	    sn->nr_maps < MAX_MAPS) {
		const char *base = strrchr(path, '/') + 1;

		if (strcmp(base, name) == 0)
			snprintf(sn->paths[sn->nr_maps], 512, "%s/tests/unwind-data/%s", dir, name);
		else
			snprintf(sn->paths[sn->nr_maps], 512, "%s", path);
		sn->maps[sn->nr_maps] = (struct kp_unwind_map){
			.start = a, .end = b, .pgoff = c, .path = sn->paths[sn->nr_maps] };
		sn->nr_maps++;
	} else if (!strncmp(line, "sample", 6) && sn->nr < MAX_SAMPLES) {
		memset(&sn->s[sn->nr++], 0, sizeof(struct bsample));
	} else if (s && !strncmp(line, "regs", 4)) {
		char *p = line + 4;

		for (int i = 0; i < 17; i++)
			s->regs[i] = strtoull(p, &p, 16);
	} else if (s && sscanf(line, "stack %llu", &a) == 1) {
		unsigned v;

		if (!(s->stack = malloc(a ? a : 1)))
			return -1;
		s->len = a;
		for (size_t i = 0; i < a; i++) {
			if (fscanf(f, "%2x", &v) != 1)
				return -1;
			s->stack[i] = (uint8_t)v;
		}
	}
	return 0;
}

static int load(struct bsnap *sn, const char *dir, const char *name)
{
	char path[1024], line[8192];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/tests/unwind-data/%s.snap", dir, name);
	if (!(f = fopen(path, "r")))
		return -1;
	while (!err && fgets(line, sizeof(line), f))
		err = read_line(sn, f, dir, name, line);
	fclose(f);
	return err;
}

static void bench_one(const char *dir, const char *name, long iters, int mixed, int memo)
{
	struct bsnap *sn = calloc(1, sizeof(*sn));
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	uint64_t pcs[128], frames = 0;
	double t0, cold, warm;
	int trunc;

	if (!sn || !u || load(sn, dir, name) || !sn->nr || kp_unwinder__set_memo(u, memo)) {
		printf("%-14s cannot load the snapshot\n", name);
		goto out;
	}
	kp_unwinder__set_mixed(u, mixed);
	t0 = now_ns();
	kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, sn->s[0].regs, 17,
			    sn->s[0].stack, sn->s[0].len, pcs, 128, &trunc);
	cold = now_ns() - t0;
	t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		struct bsample *s = &sn->s[i % sn->nr];

		frames += (uint64_t)kp_unwinder__unwind(u, 1, sn->maps, sn->nr_maps, s->regs, 17,
							s->stack, s->len, pcs, 128, &trunc);
	}
	warm = (now_ns() - t0) / (double)iters;
	kp_unwinder__stats(u, &st);
	printf("%-14s %-10s %-7s samples %2d  frames/sample %5.1f  cold %8.0f us  warm %7.0f ns/sample  %6.0f ns/frame  reused %3.0f%%\n",
	       name, mixed ? "mixed" : "dwarf-only", memo ? "memo" : "no-memo", sn->nr,
	       (double)frames / (double)iters, cold / 1e3, warm,
	       warm * (double)iters / (double)frames,
	       100.0 * (double)st.memo_frames / (double)frames);
out:
	for (int i = 0; sn && i < sn->nr; i++)
		free(sn->s[i].stack);
	free(sn);
	kp_unwinder__free(u);
}

/* ---- a stack through generated code (no CFI, a frame pointer) ---- */

struct jcap {
	struct bsample s;
};

static uint64_t stack_end(uint64_t sp)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long lo, hi, end = 0;
	char line[4096];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			end = hi;
	if (f)
		fclose(f);
	return end;
}

static __attribute__((noinline)) void jit_capture(struct jcap *c)
{
	uint64_t pc, sp, bp, end;
	const volatile uint8_t *src;

	__asm__ __volatile__("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			     : "=r"(pc), "=r"(sp), "=r"(bp));
	memset(c->s.regs, 0, sizeof(c->s.regs));
	c->s.regs[16] = pc;
	c->s.regs[7] = sp;
	c->s.regs[6] = bp;
	end = stack_end(sp);
	c->s.len = end - sp < 8192 ? end - sp : 8192;
	c->s.stack = malloc(c->s.len);
	src = (const volatile uint8_t *)(uintptr_t)sp;
	for (size_t i = 0; c->s.stack && i < c->s.len; i++)
		c->s.stack[i] = src[i];
}

static __attribute__((noinline)) void jit_caller(void *code, struct jcap *c)
{
	((void (*)(void (*)(struct jcap *), struct jcap *))code)(jit_capture, c);
	__asm__ __volatile__("" ::: "memory");
}

static size_t self_maps(struct kp_unwind_map *maps, char (*paths)[512], size_t max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long lo, hi, off, ino;
	unsigned maj, min;
	char line[4096], perm[8], path[512];
	size_t n = 0;

	while (f && n < max && fgets(line, sizeof(line), f)) {
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
	if (f)
		fclose(f);
	return n;
}

/* main -> bench_jit -> jit_caller -> generated code -> jit_capture: the
 * cost per frame with the frame-pointer step (mixed) and without it (the
 * unwind stops at the generated code). */
static void bench_jit(long iters, int mixed)
{
#if defined(__x86_64__)
	static const uint8_t tramp[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0x48,
					 0x89, 0xf7, 0xff, 0xd0, 0x5d, 0xc3 };
	static struct kp_unwind_map maps[64];
	static char paths[64][512];
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	struct kp_unwind_stats st;
	struct jcap c = { 0 };
	uint64_t pcs[128], frames = 0;
	double t0, warm;
	size_t nr;
	int trunc;
	void *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	if (!u || code == MAP_FAILED)
		goto out;
	memcpy(code, tramp, sizeof(tramp));
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC))
		goto out;
	jit_caller(code, &c);
	nr = self_maps(maps, paths, 64);
	kp_unwinder__set_mixed(u, mixed);
	kp_unwinder__unwind(u, 1, maps, nr, c.s.regs, 17, c.s.stack, c.s.len, pcs, 128,
			    &trunc);	/* cold: modules loaded */
	t0 = now_ns();
	for (long i = 0; i < iters; i++)
		frames += (uint64_t)kp_unwinder__unwind(u, 1, maps, nr, c.s.regs, 17, c.s.stack,
							c.s.len, pcs, 128, &trunc);
	warm = (now_ns() - t0) / (double)iters;
	kp_unwinder__stats(u, &st);
	printf("%-14s %-10s samples  1  frames/sample %5.1f  fp steps/sample %3.1f  warm %7.0f ns/sample  %6.0f ns/frame\n",
	       "jit-frame", mixed ? "mixed" : "dwarf-only", (double)frames / (double)iters,
	       (double)st.fp_frames / (double)(iters + 1), warm,
	       warm * (double)iters / (double)frames);
out:
	free(c.s.stack);
	if (code != MAP_FAILED)
		munmap(code, 4096);
	kp_unwinder__free(u);
#else
	(void)iters;
	(void)mixed;
#endif
}

/* ---- the same snapshots through libdwfl's unwinder ---- */

struct dwfl_ctx {
	const struct bsample *s;
	int frames;
};

static pid_t dw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return 1;
}

static bool dw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct bsample *s = ((struct dwfl_ctx *)arg)->s;
	uint64_t sp = s->regs[7];

	if (addr < sp || addr - sp + 8 > s->len)
		return false;
	memcpy(result, s->stack + (addr - sp), 8);
	return true;
}

static bool dw_set_regs(Dwfl_Thread *thread, void *arg)
{
	const struct bsample *s = ((struct dwfl_ctx *)arg)->s;

	return dwfl_thread_state_registers(thread, 0, 17, s->regs);
}

static const Dwfl_Thread_Callbacks dw_thread_cb = {
	.next_thread = dw_next_thread,
	.memory_read = dw_memory_read,
	.set_initial_registers = dw_set_regs,
};

static const Dwfl_Callbacks dw_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static int dw_frame(Dwfl_Frame *state, void *arg)
{
	struct dwfl_ctx *c = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL) || ++c->frames >= 128)
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

static void bench_dwfl(const char *dir, const char *name, long iters)
{
	struct bsnap *sn = calloc(1, sizeof(*sn));
	struct dwfl_ctx ctx = { 0 };
	Dwfl *dwfl = dwfl_begin(&dw_cb);
	uint64_t frames = 0;
	double t0, warm;

	if (!sn || !dwfl || load(sn, dir, name) || !sn->nr)
		goto out;
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < sn->nr_maps; i++)	/* bias: vaddr == offset here */
		dwfl_report_elf(dwfl, sn->maps[i].path, sn->maps[i].path, -1,
				sn->maps[i].start - sn->maps[i].pgoff, false);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!dwfl_attach_state(dwfl, NULL, 1, &dw_thread_cb, &ctx)) {
		printf("%-14s dwfl_attach_state: %s\n", name, dwfl_errmsg(-1));
		goto out;
	}
	t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		ctx.s = &sn->s[i % sn->nr];
		ctx.frames = 0;
		dwfl_getthread_frames(dwfl, 1, dw_frame, &ctx);
		frames += (uint64_t)ctx.frames;
	}
	warm = (now_ns() - t0) / (double)iters;
	printf("%-14s dwfl: frames/sample %5.1f  %7.0f ns/sample  %6.0f ns/frame\n",
	       name, (double)frames / (double)iters, warm,
	       frames ? warm * (double)iters / (double)frames : 0.0);
out:
	for (int i = 0; sn && i < sn->nr; i++)
		free(sn->s[i].stack);
	free(sn);
	if (dwfl)
		dwfl_end(dwfl);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"split-nofp", "unwind-qsort", "unwind-deep", "unwind-leaf" };
	long iters = argc > 2 ? atol(argv[2]) : 20000;

	if (argc < 2) {
		fprintf(stderr, "usage: unwind-bench TOP_SRCDIR [ITERATIONS]\n");
		return 2;
	}
	/* mixed and DWARF-only on the same stacks, one after the other */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		bench_one(argv[1], names[i], iters, 1, 1);
		bench_one(argv[1], names[i], iters, 1, 0);
		bench_one(argv[1], names[i], iters, 0, 1);
	}
	bench_jit(iters, 1);
	bench_jit(iters, 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		bench_dwfl(argv[1], names[i], iters);
	return 0;
}
