// SPDX-License-Identifier: GPL-2.0-only
/* model-bench.c — aggregation throughput and memory of the model, and
 * the time to build its views (`make bench`; never run by `make check`).
 *
 * A synthetic stream: NR_STACKS distinct stacks (depth 8..24, a third
 * with 4..8 kernel frames on top, shared prefixes) over NR_PROCS
 * processes mapping the same binary, sampled uniformly at random (the
 * worst case for caches) NR_SAMPLES times. The resolver answers
 * instantly with a name per 0x100 bytes of code, so symbolization costs
 * almost nothing and there are about NR_FUNCS functions.
 *
 * Usage: model-bench [samples [stacks [funcs [max_nodes]]]]
 * Then a second run in window mode (10 s window, the samples spread over
 * 60 s, a refresh per simulated second) for its throughput and memory.
 * Prints samples/s, bytes per distinct stack (model heap / stacks, and
 * against the stacks' own size: 24 bytes of header + 8 per pc), peak RSS,
 * and the time to build the sorted flat view and the top-down view. The
 * heap (mallinfo2: chunks in use, capacity slack included) is broken down
 * by structure (kp_model__mem) after the aggregation, after the views
 * (their scratch buffers) and in window mode.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "model/model.h"
#include "../tests/model-fake.h"

#define NR_PROCS 64
#define APP 0x400000ull

struct stack {
	uint32_t pid;
	uint16_t nk, nu;
	uint64_t *k, *u;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t kp_fake_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* Stacks grow like a program's: stack i takes the outer frames of an
 * earlier stack (of the same process) and calls 1..3 functions deeper
 * along a fixed call graph (each function calls 4 others, from 4 call
 * sites), the last one a function of its own; a third carry one of 256
 * kernel stacks. */
static uint64_t callee(uint64_t pc, unsigned j, size_t funcs)
{
	uint64_t f = (pc - APP) / 0x100;

	return APP + kp_fake_mix(f * 4 + j) % funcs * 0x100 + 0x10 + j * 8;
}

static int make_stacks(struct stack *st, size_t nr, size_t funcs, size_t *own)
{
	uint64_t seed = 0x1234567, kst[256][8], root[32];
	size_t i;
	int j, d, keep;

	for (i = 0; i < 256; i++)
		for (j = 0; j < 8; j++)
			kst[i][j] = 0xffffffff81000000ull +
				    ((j < 4 ? i % 16 * 4 + (size_t)j : i * 8 + (size_t)j) * 0x100) + 0x10;
	*own = 0;
	for (i = 0; i < nr; i++) {
		struct stack *s = &st[i];
		const struct stack *p = i >= NR_PROCS ? &st[rnd(&seed) % i] : NULL;

		s->pid = p ? p->pid : 1000 + (uint32_t)i;
		keep = p ? p->nu - 1 - (int)(rnd(&seed) % 3) : 0;
		keep = keep < 4 && p ? (p->nu < 4 ? p->nu : 4) : keep;
		for (j = 0; j < keep; j++)	/* p->u is innermost first */
			root[j] = p->u[p->nu - 1 - j];
		if (!keep)
			root[keep++] = APP + (i % 16) * 0x100 + 0x10;
		d = keep + 1 + (int)(rnd(&seed) % 3);
		d = d > 32 ? 32 : d < 8 ? 8 : d;
		for (j = keep; j < d; j++)
			root[j] = callee(root[j - 1], (unsigned)(rnd(&seed) % 4), funcs);
		root[d - 1] = APP + (i % funcs) * 0x100 + 0x20;
		s->nu = (uint16_t)d;
		s->u = malloc(d * sizeof(uint64_t));
		s->nk = rnd(&seed) % 3 == 0 ? (uint16_t)(4 + rnd(&seed) % 5) : 0;
		s->k = malloc(8 * sizeof(uint64_t));
		if (!s->u || !s->k)
			return -ENOMEM;
		for (j = 0; j < d; j++)
			s->u[j] = root[d - 1 - j];
		memcpy(s->k, kst[rnd(&seed) % 256] + (8 - s->nk), s->nk * sizeof(uint64_t));
		*own += 24 + 8 * (size_t)(s->nk + s->nu);
	}
	return 0;
}

#define CHUNK 65536

struct sample {
	uint32_t pid;
	uint16_t nk, nu;
	uint64_t pcs[40];	/* kernel, then user */
};

static void chunk_fill(struct sample *c, const struct stack *st, size_t nr, size_t n,
		       uint64_t *seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct stack *s = &st[rnd(seed) % nr];

		c[i].pid = s->pid;
		c[i].nk = s->nk;
		c[i].nu = s->nu;
		memcpy(c[i].pcs, s->k, s->nk * sizeof(uint64_t));
		memcpy(c[i].pcs + s->nk, s->u, s->nu * sizeof(uint64_t));
	}
}

/* Feed `samples` samples, dt ns apart, refreshing every simulated
 * second; returns the CPU seconds spent in the model, or -1. */
static double run(struct kp_model *m, struct kp_record *r, struct sample *chunk,
		  const struct stack *st, size_t nr, size_t samples, uint64_t dt,
		  uint64_t *seed)
{
	double t = 0, t0;
	size_t i, j;

	for (i = 0; i < samples; i += CHUNK) {
		size_t n = samples - i < CHUNK ? samples - i : CHUNK;

		/* lay the chunk out as a decoder would: records in order */
		chunk_fill(chunk, st, nr, n, seed);
		t0 = now();
		for (j = 0; j < n; j++) {
			uint64_t tm = (i + j) * dt;

			r->sample.pid = r->sample.tid = chunk[j].pid;
			r->sample.time_ns = tm;
			r->sample.nr_kframes = chunk[j].nk;
			r->sample.kframes = chunk[j].pcs;
			r->sample.nr_uframes = chunk[j].nu;
			r->sample.uframes = chunk[j].pcs + chunk[j].nk;
			if (kp_model__feed(m, r))
				return -1;
			if (tm / 1000000000 != (tm + dt) / 1000000000)
				kp_model__refresh(m, tm + dt);
		}
		t += now() - t0;
	}
	return t;
}

static int setup_procs(struct kp_model *m)
{
	uint32_t p;
	int err = 0;

	for (p = 0; p < NR_PROCS && !err; p++) {
		err = feed_process(m, 1000 + p, p + 1, "bench");
		err = err ? err : feed_mmap(m, 1000 + p, APP, 1ull << 32, 0, "/bin/bench", 1);
	}
	return err;
}

/* Where the heap goes: each structure's bytes per distinct stack, with
 * its unused capacity; what is left of the heap is the allocator's own
 * overhead (chunk headers, rounding) and allocations outside the model. */
static void print_mem(const struct kp_model *m, size_t heap, size_t nr)
{
	struct kp_model_mem it[32];
	size_t i, n = kp_model__mem(m, it, 32), sum = 0, small = 0;

	if (n > 32)
		n = 32;
	printf("  by structure, bytes per distinct stack (of which unused capacity):\n");
	for (i = 0; i < n; i++) {
		sum += it[i].bytes;
		if (it[i].bytes * 10 < nr) {	/* under 0.1 B per stack */
			small += it[i].bytes;
			continue;
		}
		printf("    %-20s %6.1f (%5.1f)\n", it[i].name, (double)it[i].bytes / nr,
		       (double)(it[i].bytes - it[i].used) / nr);
	}
	printf("    %-20s %6.1f\n", "the rest", (double)small / nr);
	printf("    %-20s %6.1f; heap %.1f (the difference: allocator overhead)\n",
	       "sum", (double)sum / nr, (double)heap / nr);
}

static int depth0_only(void *ctx, uint64_t id)
{
	return 0;
}

static double time_view(struct kp_model *m, enum kp_view_kind kind, size_t *rows,
			int collapsed)
{
	struct kp_view_opts o = { .kind = kind, .sort = KP_SORT_SELF,
				  .expanded = collapsed ? depth0_only : NULL };
	struct kp_view *v;
	double best = 1e9;
	int i;

	for (i = 0; i < 5; i++) {
		double t0 = now();

		if (kp_model__view(m, &o, &v))
			return -1;
		if (now() - t0 < best)
			best = now() - t0;
		*rows = v->nr_rows;
		kp_view__free(v);
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t samples = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;
	size_t nr = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000;
	size_t funcs = argc > 3 ? strtoull(argv[3], NULL, 0) : 100000;
	size_t max_nodes = argc > 4 ? strtoull(argv[4], NULL, 0) : 0;
	struct fake *f = calloc(1, sizeof(*f));
	struct stack *st = calloc(nr, sizeof(*st));
	struct sample *chunk = malloc(CHUNK * sizeof(*chunk));
	struct kp_record r = { .type = KP_REC_SAMPLE };
	struct kp_model_summary sum;
	struct kp_model *m;
	struct rusage ru;
	size_t i, own, h0, rows;
	uint64_t seed = 42;
	double t;

	if (!f || !st || !chunk || make_stacks(st, nr, funcs, &own))
		return 1;
	f->instant = 1;
	h0 = heap_used();
	m = fake_model(f, max_nodes);
	if (!m || setup_procs(m))
		return 1;
	strcpy(r.sample.comm, "bench");
	t = run(m, &r, chunk, st, nr, samples, 1000, &seed);
	if (t < 0)
		return 1;
	kp_model__summary(m, &sum);
	printf("aggregation: %zu samples over %zu stacks in %.3f s: %.2f M samples/s\n",
	       samples, nr, t, samples / t / 1e6);
	printf("model: %llu nodes, %llu frames, %llu other nodes\n",
	       (unsigned long long)sum.nodes, (unsigned long long)sum.frames,
	       (unsigned long long)sum.other_nodes);
	printf("memory: model heap %.1f MB = %.0f bytes per distinct stack; "
	       "stacks' own size %.1f MB (%.0f B each): ratio %.2f\n",
	       (heap_used() - h0) / 1e6, (double)(heap_used() - h0) / nr, own / 1e6,
	       (double)own / nr, (double)(heap_used() - h0) / own);
	print_mem(m, heap_used() - h0, nr);
	t = time_view(m, KP_VIEW_FLAT, &rows, 0);
	printf("flat view (sorted by self): %zu functions in %.1f ms\n", rows, t * 1e3);
	t = time_view(m, KP_VIEW_TOPDOWN, &rows, 0);
	printf("top-down view (all expanded): %zu rows in %.1f ms\n", rows, t * 1e3);
	t = time_view(m, KP_VIEW_TOPDOWN, &rows, 1);
	printf("top-down view (processes only, as the TUI opens): %zu rows in %.1f ms\n",
	       rows, t * 1e3);
	printf("after the views: model heap %.1f MB (%.0f bytes per distinct stack)\n",
	       (heap_used() - h0) / 1e6, (double)(heap_used() - h0) / nr);
	print_mem(m, heap_used() - h0, nr);
	printf("summary: %.0f samples counted, %llu folded under [other]\n", sum.total,
	       (unsigned long long)sum.folded_samples);
	kp_model__free(m);

	/* the window mode: 10 s window, samples over 60 s */
	h0 = heap_used();
	m = fake_model(f, max_nodes);
	if (!m || setup_procs(m))
		return 1;
	kp_model__set_time_mode(m, KP_TIME_WINDOW, 10);
	t = run(m, &r, chunk, st, nr, samples, 60000000000ull / samples, &seed);
	if (t < 0)
		return 1;
	kp_model__summary(m, &sum);
	printf("window mode (10 s of 60 s): %.2f M samples/s; model heap %.1f MB "
	       "(%.0f bytes per distinct stack); %.0f samples in the window\n",
	       samples / t / 1e6, (heap_used() - h0) / 1e6,
	       (double)(heap_used() - h0) / nr, sum.total);
	print_mem(m, heap_used() - h0, nr);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS: %.1f MB (the bench's own stacks: %.1f MB)\n",
	       ru.ru_maxrss / 1e3, own / 1e6);
	kp_model__free(m);
	for (i = 0; i < nr; i++) {
		free(st[i].k);
		free(st[i].u);
	}
	free(st);
	free(chunk);
	free(f);
	return 0;
}
