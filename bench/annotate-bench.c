// SPDX-License-Identifier: GPL-2.0-only
/* annotate-bench.c — the time to open the annotate screen's annotation
 * (kp_model__annotate with the real resolver: symbols, capstone, DWARF
 * lines), cold and warm, for a function of about 5,000 instructions
 * (big_fn, below) and for libc's memcpy, and for one live refresh of it
 * (new samples, then the annotation again, as the screen does at every
 * refresh). `make bench`; never run by `make check`.
 *
 * The model is fed synthetic records about this very process: its
 * mappings (from /proc/self/maps) and samples whose leaf pc lies in
 * big_fn or memcpy, so the resolver reads this binary and libc as it
 * would a profiled program's. Cold: the first annotation, the module
 * opened and its DWARF read; warm: the same again.
 *
 * Usage: annotate-bench [REPEATS]   (default 20 warm runs; the median)
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"
#include "pump/resolve.h"
#include "symbols/symbols.h"

uint64_t big_fn(uint64_t x);

/* About 5,000 instructions: each step is a shift, a xor and a register
 * the compiler must keep (the empty asm). */
#define S1 x ^= x >> 3; x += 0x9e37; __asm__ __volatile__("" : "+r"(x));
#define S10 S1 S1 S1 S1 S1 S1 S1 S1 S1 S1
#define S100 S10 S10 S10 S10 S10 S10 S10 S10 S10 S10
#define S1000 S100 S100 S100 S100 S100 S100 S100 S100 S100 S100

__attribute__((noinline, used)) uint64_t big_fn(uint64_t x)
{
	S1000 S100 S100 S10 S10 S10 S10 S10 S10 S10 S10
	return x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int feed(struct kp_model *m, const struct kp_record *r)
{
	int rc = kp_model__feed(m, r);

	if (rc) {
		fprintf(stderr, "annotate-bench: feed: %s\n", strerror(-rc));
		exit(1);
	}
	return rc;
}

/* The executable mappings of this process, as MMAP records. */
static void feed_maps(struct kp_model *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], path[4096], perms[8];
	unsigned long lo, hi, off, ino;
	unsigned maj, min;

	if (!f) {
		perror("/proc/self/maps");
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		struct kp_record r = { .type = KP_REC_MMAP };

		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %4095s", &lo, &hi, perms, &off,
			   &maj, &min, &ino, path) < 7 || perms[2] != 'x' || path[0] != '/')
			continue;
		r.mmap = (struct kp_rec_mmap){ .time_ns = 1, .pid = (uint32_t)getpid(),
			.tid = (uint32_t)getpid(), .addr = lo, .len = hi - lo, .pgoff = off,
			.prot = 5, .maj = maj, .min = min, .ino = ino, .path = path };
		feed(m, &r);
	}
	fclose(f);
}

/* n samples with their leaf pc in [pc, pc + len), spread over it. */
static void feed_samples(struct kp_model *m, uint64_t pc, uint64_t len, int n,
			 uint64_t *t)
{
	for (int i = 0; i < n; i++) {
		uint64_t u[2] = { pc + (uint64_t)(i * 7919) % len, pc };
		struct kp_record r = { .type = KP_REC_SAMPLE };

		r.sample = (struct kp_rec_sample){ .time_ns = ++*t, .pid = (uint32_t)getpid(),
			.tid = (uint32_t)getpid(), .flags = KP_SAMPLE_USER_MODE,
			.comm = "annotate-bench", .nr_uframes = 1, .uframes = u };
		feed(m, &r);
	}
}

/* The load next to the figures: the machine is shared. */
static void print_load(int reps)
{
	char buf[128] = "?";
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			snprintf(buf, sizeof(buf), "?\n");
		fclose(f);
	}
	printf("annotate-bench: %d repeats; loadavg %s", reps, buf);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The annotation of the function the flat view names `name`: ms; the
 * annotation into *keep when keep is not NULL. */
static double annotate_ms(struct kp_model *m, const char *name, size_t *insns,
			  struct kp_annot **keep)
{
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT };
	struct kp_view *v = NULL;
	struct kp_annot *a = NULL;
	uint64_t fn = 0;
	double t0;

	if (kp_model__view(m, &o, &v)) {
		fprintf(stderr, "annotate-bench: view failed\n");
		exit(1);
	}
	for (size_t i = 0; i < v->nr_rows; i++)
		if (v->rows[i].name && strstr(v->rows[i].name, name))
			fn = v->rows[i].fn;
	kp_view__free(v);
	if (!fn) {
		fprintf(stderr, "annotate-bench: no function %s in the model\n", name);
		exit(1);
	}
	t0 = now();
	if (kp_model__annotate(m, fn, &a)) {
		fprintf(stderr, "annotate-bench: annotate %s failed\n", name);
		exit(1);
	}
	t0 = now() - t0;
	*insns = 0;
	for (size_t i = 0; i < a->nr_rows; i++)
		*insns += a->rows[i].kind == KP_ANNOT_INSN;
	if (a->why)
		fprintf(stderr, "annotate-bench: %s: %s\n", name, a->why);
	if (keep)
		*keep = a;
	else
		kp_annot__free(a);
	return t0 * 1e3;
}

/* What a refresh of the live view does before the annotation: a view,
 * which counts and names the new stacks. */
static void settle(struct kp_model *m)
{
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT, .max_rows = 64 };
	struct kp_view *v = NULL;

	if (kp_model__view(m, &o, &v) == 0)
		kp_view__free(v);
}

static void measure(struct kp_model *m, const char *label, const char *name,
		    uint64_t pc, uint64_t len, int reps, uint64_t *t)
{
	double cold, warm[64], fresh[64], t0;
	struct kp_annot *a = NULL;
	size_t insns = 0;

	cold = annotate_ms(m, name, &insns, NULL);
	for (int i = 0; i < reps; i++)
		warm[i] = annotate_ms(m, name, &insns, i == reps - 1 ? &a : NULL);
	for (int i = 0; i < reps; i++) {	/* the screen's refresh */
		feed_samples(m, pc, len, 2000, t);	/* 2 s of 999 Hz on one CPU */
		settle(m);	/* as the live view's table does first */
		t0 = now();
		if (kp_model__annotate_recount(m, a)) {
			fprintf(stderr, "annotate-bench: recount failed\n");
			exit(1);
		}
		fresh[i] = (now() - t0) * 1e3;
	}
	kp_annot__free(a);
	qsort(warm, (size_t)reps, sizeof(double), cmp_d);
	qsort(fresh, (size_t)reps, sizeof(double), cmp_d);
	printf("%-10s %5zu instructions: open cold %7.2f ms, warm %6.2f ms (median), "
	       "refresh %6.2f ms (median of %d)\n", label, insns, cold, warm[reps / 2],
	       fresh[reps / 2], reps);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 20;
	struct kp_err err = { 0 };
	struct kp_symbols_opts so = { 0 };
	struct kp_symbols *syms;
	struct kp_resolve *res;
	struct kp_model_opts mo = { 0 };
	struct kp_model *m;
	struct kp_record r = { .type = KP_REC_PROCESS };
	void *mc = dlsym(RTLD_DEFAULT, "memcpy");
	uint64_t t = 10;

	if (reps < 1 || reps > 64)
		reps = 20;
	syms = kp_symbols__new(&so, &err);
	res = syms ? kp_resolve__new(syms, NULL, &err) : NULL;
	if (!res || !mc) {
		fprintf(stderr, "annotate-bench: %s\n", mc ? err.msg : "no memcpy");
		return 1;
	}
	mo.resolver = kp_resolve__resolver(res);
	m = kp_model__new(&mo);
	if (!m)
		return 1;
	r.process = (struct kp_rec_process){ .time_ns = 1, .start_ns = 1,
		.pid = (uint32_t)getpid(), .comm = "annotate-bench", .exe = "" };
	feed(m, &r);
	feed_maps(m);
	feed_samples(m, (uint64_t)(uintptr_t)big_fn, 16000, 20000, &t);
	feed_samples(m, (uint64_t)(uintptr_t)mc, 256, 5000, &t);
	print_load(reps);
	measure(m, "big_fn", "big_fn", (uint64_t)(uintptr_t)big_fn, 16000, reps, &t);
	measure(m, "memcpy", "mem", (uint64_t)(uintptr_t)mc, 256, reps, &t);
	kp_model__free(m);
	kp_resolve__free(res);
	kp_symbols__free(syms);
	return 0;
}
