/* unwind-bench.c — the DWARF unwinder's own cost per sample, over the
 * recorded snapshots of tests/unwind-data (no BPF): the first (cold)
 * unwind, which loads the modules' CFI, then the warm cost per sample
 * (thread CPU time, not wall time).
 *
 * Usage: unwind-bench TOP_SRCDIR [ITERATIONS]
 * Prints one line per snapshot: samples, frames per sample, ns per sample;
 * then the same with libdwfl's own unwinder (dwfl_attach_state with a
 * memory-read callback over the copy, dwfl_getthread_frames), the design
 * kptop did not take, for comparison.
 * Frames beyond main need the installed libc to match the snapshot's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void bench_one(const char *dir, const char *name, long iters)
{
	struct bsnap *sn = calloc(1, sizeof(*sn));
	struct kp_unwinder *u = kp_unwinder__new(NULL);
	uint64_t pcs[128], frames = 0;
	double t0, cold, warm;
	int trunc;

	if (!sn || !u || load(sn, dir, name) || !sn->nr) {
		printf("%-14s cannot load the snapshot\n", name);
		goto out;
	}
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
	printf("%-14s samples %2d  frames/sample %5.1f  cold %8.0f us  warm %7.0f ns/sample  %6.0f ns/frame\n",
	       name, sn->nr, (double)frames / (double)iters, cold / 1e3, warm,
	       warm * (double)iters / (double)frames);
out:
	for (int i = 0; sn && i < sn->nr; i++)
		free(sn->s[i].stack);
	free(sn);
	kp_unwinder__free(u);
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
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		bench_one(argv[1], names[i], iters);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		bench_dwfl(argv[1], names[i], iters);
	return 0;
}
