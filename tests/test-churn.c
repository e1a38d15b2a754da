// SPDX-License-Identifier: GPL-2.0-only
/* test-churn.c — cmocka tests of the model under process churn: tens of
 * thousands of short processes (PROCESS, MMAP, samples, EXIT) next to a
 * long-lived one, with a small node limit. The model's memory must level
 * off, the node limit must fold cold paths only ([other] under 2%), and
 * the exited processes' trees must merge into one per command with every
 * count kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"
#include "model-fake.h"

#define APP 0x400000ull
#define U(x) (APP + (uint64_t)(x) * 0x100 + 0x10)	/* pc in fn_<x> */
#define NS 1000000000ull

static const char *const comms[3] = { "sh", "true", "py" };

struct churn {
	struct fake f;
	struct kp_model *m;
	uint64_t samples;		/* fed */
	uint64_t per_comm[3];		/* samples of each command's processes */
	uint64_t f_total[5];		/* samples through fn_11 .. fn_15 */
	uint64_t cold;			/* samples at a cold, unique leaf */
	uint32_t nprocs[3];
};

/* A sample of the stack fn_a -> fn_b [-> fn_d] in process pid named comm. */
static void stack3(struct churn *c, uint32_t pid, const char *comm, uint64_t t,
		   int a, int b, int d)
{
	uint64_t pcs[3] = { U(d), U(b), U(a) };	/* innermost first */
	struct kp_record r = { .type = KP_REC_SAMPLE };

	r.sample.pid = r.sample.tid = pid;
	r.sample.time_ns = t;
	snprintf(r.sample.comm, sizeof(r.sample.comm), "%s", comm);
	r.sample.uframes = d ? pcs : pcs + 1;
	r.sample.nr_uframes = d ? 3 : 2;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	c->samples++;
}

static void exit_proc(struct kp_model *m, uint32_t pid)
{
	struct kp_record r = { .type = KP_REC_EXIT };

	r.exit.pid = r.exit.tid = pid;
	assert_int_equal(kp_model__feed(m, &r), 0);
}

static void view_kind(struct kp_model *m, enum kp_view_kind kind)
{
	struct kp_view_opts o = { .kind = kind, .sort = KP_SORT_TOTAL };
	struct kp_view *v = NULL;

	assert_int_equal(kp_model__view(m, &o, &v), 0);
	kp_view__free(v);
}

/* Process k: comm k % 3, pid reused every 30000; 4 samples on one of 50
 * hot paths of its command, every 10th one more on a path of its own. */
static void one_process(struct churn *c, uint32_t k)
{
	uint32_t pid = 1000 + k % 30000, cm = k % 3;
	uint64_t t = (uint64_t)k * NS / 1000;
	int f = 0x11 + (int)(k % 5), g = 0x20 + (int)(k % 50);
	char path[32];

	assert_int_equal(feed_process(c->m, pid, 10 + k, comms[cm]), 0);
	snprintf(path, sizeof(path), "/bin/%s", comms[cm]);
	assert_int_equal(feed_mmap(c->m, pid, APP, 0x1000000, 0, path, 2 + cm), 0);
	stack3(c, pid, comms[cm], t, 0x10, f, g);
	stack3(c, pid, comms[cm], t, 0x10, f, g);
	stack3(c, pid, comms[cm], t, 0x10, f, g);
	stack3(c, pid, comms[cm], t, 0x10, f, 0);
	c->per_comm[cm] += 4;
	c->f_total[k % 5] += 4;
	if (k % 10 == 0) {
		stack3(c, pid, comms[cm], t, 0x10, 0x1000 + (int)(k / 10) % 500, 0);
		c->per_comm[cm]++;
		c->cold++;
	}
	exit_proc(c->m, pid);
	c->nprocs[cm]++;
	/* the long-lived process */
	stack3(c, 100, "app", t, 1, 2, 3);
	stack3(c, 100, "app", t, 1, 2, 3);
}

static size_t model_bytes(const struct kp_model *m)
{
	struct kp_model_mem it[48];
	size_t i, n = kp_model__mem(m, it, 48), sum = 0;

	for (i = 0; i < n && i < 48; i++)
		sum += it[i].bytes;
	return sum;
}

static struct churn *churn_new_defer(size_t max_nodes, size_t max_bytes, int defer)
{
	struct churn *c = calloc(1, sizeof(*c));
	struct kp_model_opts o = { .max_nodes = max_nodes, .max_bytes = max_bytes,
				   .resolver = { .ops = &fake_ops },
				   .defer_stacks = defer,	/* as a batch run */
				   .eager_views = !defer };	/* as the live view runs it */

	assert_non_null(c);
	o.resolver.ctx = &c->f;
	c->m = kp_model__new(&o);
	assert_non_null(c->m);
	assert_int_equal(feed_process(c->m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(c->m, 100, APP, 0x1000000, 0, "/bin/app", 1), 0);
	return c;
}

static struct churn *churn_new_opts(size_t max_nodes, size_t max_bytes)
{
	return churn_new_defer(max_nodes, max_bytes, 0);
}

static struct churn *churn_new(size_t max_nodes)
{
	return churn_new_opts(max_nodes, 0);
}

static void churn_free(struct churn *c)
{
	kp_model__free(c->m);
	free(c);
}

/* Run processes [from, to), with a view every 500 (the live view's
 * refresh), alternating the flat and the tree view. */
static void run(struct churn *c, uint32_t from, uint32_t to)
{
	for (uint32_t k = from; k < to; k++) {
		one_process(c, k);
		if (k % 500 == 499)
			view_kind(c->m, k % 1000 == 999 ? KP_VIEW_TOPDOWN : KP_VIEW_FLAT);
	}
}

static void test_memory_levels_off(void **state)
{
	struct churn *c = churn_new(3000);
	size_t at15k, at45k;

	(void)state;
	run(c, 0, 15000);	/* every path seen */
	at15k = model_bytes(c->m);
	run(c, 15000, 45000);
	at45k = model_bytes(c->m);

	print_message("model: %zu bytes after 15000 processes, %zu after 45000\n",
		      at15k, at45k);
	/* flat: three times the processes, not three times the memory */
	assert_true(at45k < at15k + at15k / 4);
	churn_free(c);
}

static void test_other_stays_small(void **state)
{
	struct churn *c = churn_new(1000);
	struct kp_model_summary s;

	(void)state;
	run(c, 0, 30000);
	kp_model__summary(c->m, &s);
	print_message("[other]: %llu of %llu samples; %llu nodes, %llu merged\n",
		      (unsigned long long)s.folded_samples, (unsigned long long)s.samples,
		      (unsigned long long)s.nodes, (unsigned long long)s.merged_procs);
	assert_int_equal(s.samples, c->samples);
	assert_true(s.nodes <= 1000);
	/* only cold paths fold: at most the cold samples (1.6% here) */
	assert_true(s.folded_samples * 50 < s.samples);
	assert_true(s.folded_samples <= c->cold);
	churn_free(c);
}

/* Process k of a churn whose every process runs a path of its own (of
 * 100,000, over 140 functions), 3 samples, next to the hot paths. */
static void wide_process(struct churn *c, uint32_t k)
{
	uint32_t pid = 1000 + k % 30000;
	uint64_t pcs[4] = { U(0x300 + (k / 2500) % 40), U(0x200 + (k / 50) % 50),
			    U(0x100 + k % 50), U(0x10) };
	struct kp_record r = { .type = KP_REC_SAMPLE };

	assert_int_equal(feed_process(c->m, pid, 10 + k, "sh"), 0);
	assert_int_equal(feed_mmap(c->m, pid, APP, 0x1000000, 0, "/bin/sh", 2), 0);
	r.sample.pid = r.sample.tid = pid;
	r.sample.time_ns = (uint64_t)k * NS / 1000;
	strcpy(r.sample.comm, "sh");
	r.sample.uframes = pcs;
	r.sample.nr_uframes = 4;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(kp_model__feed(c->m, &r), 0);
		c->samples++;
	}
	exit_proc(c->m, pid);
	for (int i = 0; i < 4; i++)
		stack3(c, 100, "app", r.sample.time_ns, 1, 2, 3);
}

/* --max-memory: the model stays within its budget whatever the churn,
 * by merging and then folding the coldest paths. */
static void test_budget(void **state)
{
	const size_t budget = 3u << 20;
	struct churn *c = churn_new_opts(0, budget);
	struct kp_model_summary s;
	size_t most = 0;

	(void)state;
	for (uint32_t k = 0; k < 60000; k++) {
		wide_process(c, k);
		if (k % 500 == 499) {
			view_kind(c->m, k % 1000 == 999 ? KP_VIEW_TOPDOWN : KP_VIEW_FLAT);
			if (model_bytes(c->m) > most)
				most = model_bytes(c->m);
		}
	}
	kp_model__summary(c->m, &s);
	print_message("budget %zu: at most %zu bytes; %llu nodes, [other] %llu of %llu\n",
		      budget, most, (unsigned long long)s.nodes,
		      (unsigned long long)s.folded_samples, (unsigned long long)s.samples);
	assert_true(most <= budget + budget / 8);
	assert_int_equal(s.samples, c->samples);
	assert_true(s.folded_samples > 0);
	churn_free(c);
}

/* Process k of a churn whose every process runs a cold path of its own
 * (three middle frames: 64,000 paths) to one of 8 leaf functions, 2
 * samples, next to the hot paths: most of the trie is cold paths. */
static void deep_process(struct churn *c, uint32_t k, uint64_t *leaf_self)
{
	uint32_t pid = 1000 + k % 30000;
	uint64_t pcs[5] = { U(0x500 + k % 8), U(0x400 + (k / 8) % 40),
			    U(0x300 + (k / 320) % 40), U(0x200 + (k / 12800) % 40),
			    U(0x10) };
	struct kp_record r = { .type = KP_REC_SAMPLE };

	assert_int_equal(feed_process(c->m, pid, 10 + k, "sh"), 0);
	assert_int_equal(feed_mmap(c->m, pid, APP, 0x1000000, 0, "/bin/sh", 2), 0);
	r.sample.pid = r.sample.tid = pid;
	r.sample.time_ns = (uint64_t)k * NS / 1000;
	strcpy(r.sample.comm, "sh");
	r.sample.uframes = pcs;
	r.sample.nr_uframes = 5;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(kp_model__feed(c->m, &r), 0);
		c->samples++;
	}
	leaf_self[k % 8] += 2;
	exit_proc(c->m, pid);
	for (int i = 0; i < 2; i++)
		stack3(c, 100, "app", r.sample.time_ns, 1, 2, 3);
}

static const struct kp_row *flat_row_named(const struct kp_view *v, const char *name)
{
	for (size_t r = 0; r < v->nr_rows; r++)
		if (!strcmp(v->rows[r].name, name))
			return &v->rows[r];
	return NULL;
}

/* Under a budget that folds, a cold path keeps its leaf function (root
 * -> [other] -> leaf): every function's Self stays exact and [other]'s
 * own Self stays small; the merged command counts its processes. */
static void test_fold_keeps_leaves(void **state)
{
	const size_t budget = 3u << 20;
	struct churn *c = churn_new_opts(0, budget);
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT, .sort = KP_SORT_SELF };
	struct kp_model_summary s;
	struct kp_view *v = NULL;
	uint64_t leaf_self[8] = { 0 };
	const struct kp_row *r;
	size_t most = 0;
	char name[16];

	(void)state;
	for (uint32_t k = 0; k < 64000; k++) {
		deep_process(c, k, leaf_self);
		if (k % 500 == 499) {
			view_kind(c->m, k % 1000 == 999 ? KP_VIEW_TOPDOWN : KP_VIEW_FLAT);
			if (model_bytes(c->m) > most)
				most = model_bytes(c->m);
		}
	}
	kp_model__summary(c->m, &s);
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	r = flat_row_named(v, "[other]");
	print_message("budget %zu: at most %zu bytes; %llu nodes; path cut for %llu of "
		      "%llu samples, [other] self %.0f\n", budget, most,
		      (unsigned long long)s.nodes, (unsigned long long)s.folded_samples,
		      (unsigned long long)s.samples, r ? r->self : 0.0);
	assert_true(most <= budget + budget / 8);
	assert_int_equal(s.samples, c->samples);
	assert_true(s.folded_samples > 0);	/* the budget did fold */
	assert_true(v->total == (double)c->samples);
	assert_true(!r || r->self * 50 < v->total);	/* [other]'s Self under 2% */
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "fn_%x", 0x500 + i);
		r = flat_row_named(v, name);
		assert_non_null(r);
		assert_true(r->self == (double)leaf_self[i]);
	}
	r = flat_row_named(v, "fn_10");	/* every sh process's first frame */
	assert_non_null(r);
	assert_true(r->nr_procs >= s.merged_procs);
	kp_view__free(v);
	churn_free(c);
}

/* A batch run (deferred stacks, no view until the end) tidies rarely:
 * the budget still brings the model under it once its stacks are hung,
 * with as many folds as that takes, and no more. */
static void test_budget_batch(void **state)
{
	const size_t budget = 3u << 20;
	struct churn *c = churn_new_defer(0, budget, 1);
	struct kp_model_summary s;

	(void)state;
	for (uint32_t k = 0; k < 60000; k++)
		wide_process(c, k);
	kp_model__summary(c->m, &s);
	print_message("batch, budget %zu: %llu bytes; %llu nodes, [other] %llu of %llu\n",
		      budget, (unsigned long long)s.model_bytes, (unsigned long long)s.nodes,
		      (unsigned long long)s.folded_samples, (unsigned long long)s.samples);
	assert_int_equal(s.samples, c->samples);
	/* the budget folded the trie, as often as it took (the waiting
	 * stacks' buffer was given back once they were hung) */
	assert_true(s.folded_samples > 0);
	assert_true(s.model_bytes <= budget + budget / 8);	/* as test_budget */
	/* and no lower than a fold needs: each round sees the bytes the
	 * one before freed (arrays sized for the trie before it, counted,
	 * made four rounds cut to 2.72 of 3 MiB, 13,768 nodes, not 21,274) */
	assert_true(s.model_bytes >= budget - budget / 16);
	churn_free(c);
}

static void merged_counts(int defer)
{
	struct churn *c = churn_new_defer(0, 0, defer);
	struct kp_view_opts o = { .kind = KP_VIEW_PROCESS, .sort = KP_SORT_TOTAL };
	struct kp_model_summary s;
	struct kp_view *v = NULL;
	uint64_t merged = 0, comm_total[3] = { 0 };
	char name[16];
	int i;

	run(c, 0, 30000);
	kp_model__summary(c->m, &s);
	assert_true(s.merged_procs >= 30000 - 1024);
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	for (size_t r = 0; r < v->nr_rows; r++) {
		for (i = 0; i < 3; i++)
			if (!strcmp(v->rows[r].comm, comms[i]))
				comm_total[i] += (uint64_t)v->rows[r].total;
		if (v->rows[r].nr_procs) {
			assert_int_equal(v->rows[r].pid, 0);
			snprintf(name, sizeof(name), "%s x%u", v->rows[r].comm,
				 v->rows[r].nr_procs);
			assert_string_equal(v->rows[r].name, name);
			merged += v->rows[r].nr_procs;
		}
	}
	kp_model__summary(c->m, &s);
	assert_int_equal(merged, s.merged_procs);
	/* one merged row per command, and no count lost */
	assert_true(v->nr_rows <= 1 + 3 + (30000 - s.merged_procs));
	for (i = 0; i < 3; i++)
		assert_int_equal(comm_total[i], c->per_comm[i]);
	kp_view__free(v);

	o.kind = KP_VIEW_FLAT;
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	for (i = 0; i < 5; i++) {	/* one function per command's binary */
		double t = 0;

		snprintf(name, sizeof(name), "fn_%x", 0x11 + i);
		for (size_t r = 0; r < v->nr_rows; r++)
			if (!strcmp(v->rows[r].name, name))
				t += v->rows[r].total;
		assert_true(t == (double)c->f_total[i]);
	}
	assert_true(v->total == (double)c->samples);
	kp_view__free(v);

	o.kind = KP_VIEW_TOPDOWN;
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	for (size_t r = 0; r < v->nr_rows; r++)
		if (v->rows[r].depth == 0 && !strcmp(v->rows[r].comm, "sh") &&
		    v->rows[r].nr_procs) {
			const struct kp_row *main_row = &v->rows[r + 1];

			assert_int_equal(main_row->depth, 1);
			assert_string_equal(main_row->name, "fn_10");
			assert_true(main_row->total == v->rows[r].total);
		}
	kp_view__free(v);
	churn_free(c);
}

static void test_merged_counts(void **state)
{
	(void)state;
	merged_counts(0);
}

/* The same as the live view runs the model (deferred stacks): the
 * stacks of processes that exited before they were hung go straight
 * into their command's merged tree, and every count is the same. */
static void test_merged_counts_defer(void **state)
{
	(void)state;
	merged_counts(1);
}

/* Samples of "sh" per CPU as kp_stack_visit.cpu gives them: [0], [1],
 * and [2] for -1 (not keyed by CPU). */
static int sh_by_cpu(void *ctx, const struct kp_stack_visit *v)
{
	uint64_t *n = ctx;

	if (!strcmp(v->comm, "sh"))
		n[v->cpu < 0 ? 2 : v->cpu > 1 ? 3 : v->cpu] += v->samples;
	return 0;
}

/* by_cpu: a stack per CPU, also once the processes are merged by
 * command (merged stacks keep their CPU); without it, cpu is -1. */
static void test_by_cpu_merged(void **state)
{
	for (int by = 0; by <= 1; by++) {
		struct kp_model_opts o = { .resolver = { .ops = &fake_ops },
					   .merge_at = 16, .by_cpu = by };
		struct fake f = { 0 };
		struct kp_model_summary s;
		uint64_t n[4] = { 0 };
		struct kp_model *m;

		(void)state;
		o.resolver.ctx = &f;
		m = kp_model__new(&o);
		assert_non_null(m);
		for (uint32_t k = 0; k < 100; k++) {
			uint64_t pcs[2] = { U(0x11), U(0x10) };
			struct kp_record r = { .type = KP_REC_SAMPLE };

			assert_int_equal(feed_process(m, 5000 + k, 10 + k, "sh"), 0);
			assert_int_equal(feed_mmap(m, 5000 + k, APP, 0x1000000, 0, "/bin/sh", 2), 0);
			r.sample.pid = r.sample.tid = 5000 + k;
			snprintf(r.sample.comm, sizeof(r.sample.comm), "sh");
			r.sample.uframes = pcs;
			r.sample.nr_uframes = 2;
			for (uint32_t i = 0; i < 3; i++) {	/* CPU 0, 0, 1 */
				r.sample.time_ns = k * 10 + i;
				r.sample.cpu = i / 2;
				assert_int_equal(kp_model__feed(m, &r), 0);
			}
			exit_proc(m, 5000 + k);
		}
		view_kind(m, KP_VIEW_FLAT);
		kp_model__summary(m, &s);
		assert_true(s.merged_procs >= 16);
		assert_int_equal(kp_model__foreach_stack(m, sh_by_cpu, n), 0);
		if (by) {
			assert_int_equal(n[0], 200);
			assert_int_equal(n[1], 100);
			assert_int_equal(n[2] + n[3], 0);
		} else {
			assert_int_equal(n[2], 300);
			assert_int_equal(n[0] + n[1] + n[3], 0);
		}
		kp_model__free(m);
	}
}

/* Deferred: a stack hung after its process exited makes no tree of its
 * own (only the process's root waits for the merge): 200 short "sh"
 * processes of one stack are one path under the merged "sh" root, which
 * the tree view shows before any merge, with every sample. */
static void test_exited_hang_merged(void **state)
{
	struct churn *c = churn_new_defer(0, 0, 1);
	struct kp_view_opts o = { .kind = KP_VIEW_TOPDOWN, .sort = KP_SORT_TOTAL };
	struct kp_model_summary s;
	struct kp_view *v = NULL;
	uint32_t k, roots = 0;

	(void)state;
	for (k = 0; k < 200; k++) {
		assert_int_equal(feed_process(c->m, 5000 + k, 10 + k, "sh"), 0);
		assert_int_equal(feed_mmap(c->m, 5000 + k, APP, 0x1000000, 0, "/bin/sh", 2), 0);
		stack3(c, 5000 + k, "sh", k, 0x10, 0x11, 0x20);
		exit_proc(c->m, 5000 + k);
	}
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	kp_model__summary(c->m, &s);
	assert_int_equal(s.merged_procs, 0);	/* fewer than merge_at */
	/* app's root, 200 roots, the merged root and its path of 3 */
	assert_true(s.nodes <= 1 + 200 + 1 + 3);
	for (size_t r = 0; r < v->nr_rows; r++) {
		if (v->rows[r].depth)
			continue;
		roots++;
		assert_int_equal(v->rows[r].pid, 0);
		assert_string_equal(v->rows[r].name, "sh");
		assert_true(v->rows[r].total == 200);
		assert_string_equal(v->rows[r + 3].name, "fn_20");
		assert_true(v->rows[r + 3].total == 200);
	}
	assert_int_equal(roots, 1);
	kp_view__free(v);
	churn_free(c);
}

/* Processes whose stacks end at a pc in no mapping (each process's own
 * address: ASLR, or the pc of the image an exec dropped): the leaf is
 * the one [unknown] frame from the start, and with it every frame
 * outside it, so neither the interned frames nor the trees grow with
 * each process's address; [unknown]'s Total counts each stack once. */
static void test_unknown_merged(void **state)
{
	struct churn *c = churn_new(0);
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT, .sort = KP_SORT_TOTAL };
	struct kp_model_summary s;
	struct kp_view *v = NULL;
	const struct kp_row *r;
	const uint32_t n = 3000;

	(void)state;
	for (uint32_t k = 0; k < n; k++) {
		uint64_t base = 0x7f0000000000ull + (uint64_t)k * 0x100000;
		/* innermost first: [unknown], fn_20, [unknown], [unknown], fn_10 */
		uint64_t pcs[5] = { base + 0x40, U(0x20), base + 0x30, base + 0x20, U(0x10) };
		struct kp_record rec = { .type = KP_REC_SAMPLE };

		assert_int_equal(feed_process(c->m, 1000 + k, 10 + k, "sh"), 0);
		assert_int_equal(feed_mmap(c->m, 1000 + k, APP, 0x1000000, 0, "/bin/sh", 2), 0);
		rec.sample.pid = rec.sample.tid = 1000 + k;
		rec.sample.time_ns = (uint64_t)k * NS / 1000;
		snprintf(rec.sample.comm, sizeof(rec.sample.comm), "sh");
		rec.sample.uframes = pcs;
		rec.sample.nr_uframes = 5;
		assert_int_equal(kp_model__feed(c->m, &rec), 0);
		exit_proc(c->m, 1000 + k);
	}
	kp_model__summary(c->m, &s);
	assert_true(s.merged_procs >= n - 1024);
	assert_true(s.frames < 16);	/* not one per process */
	/* the merged tree: root, [unknown]; the processes not merged yet:
	 * 2 nodes each; app's root */
	assert_true(s.nodes <= 2 + 2 * (n - s.merged_procs) + 1);
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	r = flat_row_named(v, "[unknown]");
	assert_non_null(r);
	assert_true(r->self == (double)n);
	assert_true(r->total == (double)n);
	assert_true(v->total == (double)n);
	assert_null(flat_row_named(v, "fn_20"));
	kp_view__free(v);
	churn_free(c);
}

/* Exited processes whose leaf pcs are all different (every instruction
 * of a hot loop) but in the same functions and lines: in their merged
 * tree each function and line is one node, whatever the pc, so the
 * tree's size is that of the command's paths, not of its samples. */
static void test_merged_by_line(void **state)
{
	struct churn *c = churn_new(0);
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT, .sort = KP_SORT_TOTAL };
	struct kp_model_summary s;
	struct kp_view *v = NULL;
	const uint32_t n = 3000;

	(void)state;
	for (uint32_t k = 0; k < n; k++) {
		/* innermost first: fn_20 (or inl_inner in fn_77) at a pc of its
		 * own, fn_10 */
		uint64_t leaf = k & 1 ? APP + 0x2000 + k % 0x100 : APP + 0x7700 + k % 0x100;
		uint64_t pcs[2] = { leaf, U(0x10) };
		struct kp_record rec = { .type = KP_REC_SAMPLE };

		assert_int_equal(feed_process(c->m, 1000 + k, 10 + k, "sh"), 0);
		assert_int_equal(feed_mmap(c->m, 1000 + k, APP, 0x1000000, 0, "/bin/sh", 2), 0);
		rec.sample.pid = rec.sample.tid = 1000 + k;
		rec.sample.time_ns = (uint64_t)k * NS / 1000;
		snprintf(rec.sample.comm, sizeof(rec.sample.comm), "sh");
		rec.sample.uframes = pcs;
		rec.sample.nr_uframes = 2;
		assert_int_equal(kp_model__feed(c->m, &rec), 0);
		exit_proc(c->m, 1000 + k);
	}
	kp_model__summary(c->m, &s);
	assert_true(s.merged_procs >= n - 1024);
	/* the merged tree: root, fn_10, fn_20, fn_77, inl_inner (by pc: 385
	 * nodes); the rest are the processes not merged yet (the last ones:
	 * 3 or 4 nodes each) and app's root */
	size_t rest = 1;
	for (uint32_t k = (uint32_t)s.merged_procs; k < n; k++)
		rest += k & 1 ? 3 : 4;
	print_message("merged %" PRIu64 ", nodes %" PRIu64 ", not merged %zu\n",
		      (uint64_t)s.merged_procs, (uint64_t)s.nodes, rest);
	assert_true(s.nodes == 5 + rest);
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	assert_true(flat_row_named(v, "fn_20")->self == (double)(n / 2));
	assert_true(flat_row_named(v, "inl_inner")->self == (double)(n / 2));
	assert_true(flat_row_named(v, "fn_10")->total == (double)n);
	kp_view__free(v);
	churn_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_levels_off),
		cmocka_unit_test(test_other_stays_small),
		cmocka_unit_test(test_merged_counts),
		cmocka_unit_test(test_merged_counts_defer),
		cmocka_unit_test(test_exited_hang_merged),
		cmocka_unit_test(test_by_cpu_merged),
		cmocka_unit_test(test_unknown_merged),
		cmocka_unit_test(test_merged_by_line),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_fold_keeps_leaves),
		cmocka_unit_test(test_budget_batch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
