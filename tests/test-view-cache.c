// SPDX-License-Identifier: GPL-2.0-only
/* test-view-cache.c — the views' kept counts (src/model/view-cache.c)
 * against counts summed from scratch.
 *
 * A random run feeds one model (A) a stream of samples, refreshes, time
 * mode switches, zeros, baselines, filters, renames, execs and late
 * SYMTABs, and builds a view of a random kind after most steps, so A's
 * counts are mostly updated from the stacks changed since its last view.
 * At checkpoints the same steps are replayed into a fresh model (B), whose
 * first view sums everything from scratch, and every view of both must be
 * identical, row by row and bit for bit. Views flush the batched samples,
 * so B flushes (kp_model__summary) wherever A built a view. A third
 * replay (C) flushes there without a summary and asks for one only at
 * the end: A's summary, kept as samples came, must equal C's, summed
 * from every stack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"
#include "model-fake.h"

#define APP 0x400000ull
#define U(x) (APP + (uint64_t)(x) * 0x100 + 0x10)
#define K(x) (0xffffffff81000000ull + (uint64_t)(x) * 0x100 + 0x8)
#define NS 1000000000ull
#define MAX_OPS 400

enum op_kind {
	OP_SAMPLES, OP_REFRESH, OP_MODE, OP_ZERO, OP_MARK, OP_CLEAR, OP_FILTER,
	OP_RENAME, OP_EXEC, OP_SYMTAB, OP_VIEW, OP_KINDS,
};

struct op {
	enum op_kind kind;
	uint64_t seed;		/* the op's own randomness */
	uint64_t t;		/* time of its samples or refresh */
};

struct run {
	struct op ops[MAX_OPS];
	size_t nr;
	uint64_t t;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct kp_model *new_model(struct fake *f, size_t max_nodes, int eager)
{
	struct kp_model *m;

	memset(f, 0, sizeof(*f));
	f->eager_views = eager;
	m = fake_model(f, max_nodes);
	assert_non_null(m);
	for (uint32_t p = 0; p < 3; p++) {
		assert_int_equal(feed_process(m, 100 + p, 1, p == 2 ? "other" : "app"), 0);
		assert_int_equal(feed_mmap(m, 100 + p, APP, 0x1000000, 0, "/bin/app", 1), 0);
	}
	return m;
}

static void op_samples(struct kp_model *m, const struct op *o)
{
	uint64_t s = o->seed, k[3], u[6];
	int n = 1 + (int)(rnd(&s) % 40);

	for (int i = 0; i < n; i++) {
		int nk = (int)(rnd(&s) % 3), nu = 1 + (int)(rnd(&s) % 6);
		uint32_t pid = 100 + (uint32_t)(rnd(&s) % 3);
		uint32_t flags = rnd(&s) % 16 == 0 ? KP_SAMPLE_IDLE : 0;

		for (int j = 0; j < nk; j++)
			k[j] = K(1 + rnd(&s) % 4);
		/* a few fns: recursion happens; 0x77: an inlined frame, 0xdead none */
	for (int j = 0; j < nu; j++)
			u[j] = rnd(&s) % 32 == 0 ? U(0xdead) : rnd(&s) % 16 == 0 ?
			       U(0x77) : U(1 + rnd(&s) % 10);
		u[nu - 1] = U(1);		/* main */
		assert_int_equal(feed_sample(m, pid, pid + (uint32_t)(rnd(&s) % 2),
					     o->t + (uint64_t)i * 1000, rnd(&s) % 4 ? 0 : 7,
					     flags, k, nk, u, nu), 0);
	}
}

static void op_filter(struct kp_model *m, const struct op *o)
{
	static const char *const names[] = { "fn_3", "k_", "^fn_[2-4]$", "late" };
	uint64_t s = o->seed;
	struct kp_filter f = { 0 };

	if (rnd(&s) % 3 == 0) {		/* often back to no filter */
		assert_int_equal(kp_model__set_filter(m, &f), 0);
		return;
	}
	f.pid = rnd(&s) % 4 == 0 ? 101 : 0;
	f.comm = rnd(&s) % 4 == 0 ? "app" : NULL;
	f.cgroup_id = rnd(&s) % 6 == 0 ? 7 : 0;
	f.module = rnd(&s) % 6 == 0 ? "app" : NULL;
	if (rnd(&s) % 4 == 0) {
		int i = (int)(rnd(&s) % 4);

		f.name = names[i];
		f.name_is_regex = i == 2;
	}
	f.focus_fn = rnd(&s) % 6 == 0 ? 1 + rnd(&s) % 12 : 0;
	f.hide_kernel = rnd(&s) % 3 == 0;
	f.hide_user = !f.hide_kernel && rnd(&s) % 6 == 0;
	f.show_idle = rnd(&s) % 2;
	assert_int_equal(kp_model__set_filter(m, &f), 0);
}

static void op_symtab(struct kp_model *m)
{
	struct kp_symbol syms[] = { { 0xdead00, 0x100, "late" } };
	struct kp_record r = { .type = KP_REC_SYMTAB };

	r.symtab.path = "/bin/app";
	r.symtab.nr_syms = 1;
	r.symtab.syms = syms;
	assert_int_equal(kp_model__feed(m, &r), 0);
}

static void op_exec(struct kp_model *m, const struct op *o)
{
	struct kp_record r = { .type = KP_REC_EXEC };

	r.exec.pid = 102;
	r.exec.tid = 102;
	r.exec.comm = o->seed % 2 ? "app" : "other";
	r.exec.exe = "";
	assert_int_equal(kp_model__feed(m, &r), 0);
	assert_int_equal(feed_mmap(m, 102, APP, 0x1000000, 0, "/bin/app", 1), 0);
}

static int no_symbol(void *ctx, const char *path, const uint8_t *build_id,
		     uint8_t build_id_len, uint64_t addr, uint64_t size, const char *name,
		     const struct kp_jit_owner *owner)
{
	return 0;
}

/* Apply one op; a view op builds a view of a random kind in A (view
 * > 0) or only flushes the batched samples: with a summary (B, view 0)
 * or without one (C, view < 0). */
static void apply(struct kp_model *m, const struct op *o, int view)
{
	uint64_t s = o->seed;
	struct kp_view_opts vo = { 0 };
	struct kp_model_summary sum;
	struct kp_view *v = NULL;

	switch (o->kind) {
	case OP_SAMPLES:
		op_samples(m, o);
		break;
	case OP_REFRESH:
		kp_model__refresh(m, o->t);
		break;
	case OP_MODE:
		kp_model__set_time_mode(m, (enum kp_time_mode)(rnd(&s) % 3),
					2 + (unsigned)(rnd(&s) % 3));
		break;
	case OP_ZERO:
		kp_model__zero(m);
		break;
	case OP_MARK:
		kp_model__baseline_mark(m);
		break;
	case OP_CLEAR:
		kp_model__baseline_clear(m);
		break;
	case OP_FILTER:
		op_filter(m, o);
		break;
	case OP_RENAME:	/* same identity, new comm */
		assert_int_equal(feed_process(m, 100 + (uint32_t)(rnd(&s) % 2), 1,
					      rnd(&s) % 2 ? "app" : "renamed"), 0);
		break;
	case OP_EXEC:
		op_exec(m, o);
		break;
	case OP_SYMTAB:
		op_symtab(m);
		break;
	default:
		if (!view) {
			kp_model__summary(m, &sum);
			break;
		}
		if (view < 0) {
			assert_int_equal(kp_model__foreach_symbol(m, no_symbol, NULL), 0);
			break;
		}
		vo.kind = (enum kp_view_kind)(rnd(&s) % KP_VIEW_KIND_MAX);
		vo.sort = (enum kp_sort)(rnd(&s) % 4);
		vo.root_fn = rnd(&s) % 2 ? 1 + rnd(&s) % 14 : 0;
		assert_int_equal(kp_model__view(m, &vo, &v), 0);
		kp_view__free(v);
		break;
	}
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void same_view(struct kp_model *a, struct kp_model *b,
		      const struct kp_view_opts *o, uint64_t seed, size_t step)
{
	struct kp_view *va, *vb;

	assert_int_equal(kp_model__view(a, o, &va), 0);
	assert_int_equal(kp_model__view(b, o, &vb), 0);
	if (va->nr_rows != vb->nr_rows || va->total != vb->total ||
	    va->base_total != vb->base_total || va->zoom_depth != vb->zoom_depth)
		fail_msg("seed %llx step %zu kind %d: %zu rows, total %.17g/%.17g vs "
			 "%zu rows, %.17g/%.17g", (unsigned long long)seed, step, o->kind,
			 va->nr_rows, va->total, va->base_total, vb->nr_rows, vb->total,
			 vb->base_total);
	for (size_t i = 0; i < va->nr_rows; i++) {
		const struct kp_row *x = &va->rows[i], *y = &vb->rows[i];

		if (x->id != y->id || x->fn != y->fn || x->depth != y->depth ||
		    x->has_children != y->has_children || x->self != y->self ||
		    x->total != y->total || x->base_self != y->base_self ||
		    x->base_total != y->base_total || x->samples != y->samples ||
		    !str_eq(x->name, y->name) || !str_eq(x->module, y->module) ||
		    !str_eq(x->source, y->source) || !str_eq(x->comm, y->comm) ||
		    x->pid != y->pid || x->tid != y->tid || x->nr_procs != y->nr_procs ||
		    x->inlined != y->inlined || x->kernel != y->kernel ||
		    x->x != y->x || x->w != y->w || x->kind != y->kind)
			fail_msg("seed %llx step %zu kind %d sort %d root %llu row %zu: "
				 "%s self %.17g total %.17g samples %llu procs %u vs "
				 "%s self %.17g total %.17g samples %llu procs %u",
				 (unsigned long long)seed, step, o->kind, o->sort,
				 (unsigned long long)o->root_fn, i, x->name, x->self,
				 x->total, (unsigned long long)x->samples, x->nr_procs,
				 y->name, y->self, y->total, (unsigned long long)y->samples,
				 y->nr_procs);
	}
	kp_view__free(va);
	kp_view__free(vb);
}

/* A view cut at max_rows (the flat view keeps its top rows in a heap)
 * is the first rows of the whole view, and counts every row. */
static void same_top(struct kp_model *a, const struct kp_view_opts *o, uint64_t seed)
{
	struct kp_view_opts c = *o;
	struct kp_view *all, *top;

	assert_int_equal(kp_model__view(a, o, &all), 0);
	for (c.max_rows = 1; c.max_rows <= 9; c.max_rows += 4) {
		assert_int_equal(kp_model__view(a, &c, &top), 0);
		assert_int_equal(top->nr_all, all->nr_rows);
		assert_int_equal(top->nr_rows, all->nr_rows < c.max_rows ? all->nr_rows
									  : c.max_rows);
		for (size_t i = 0; i < top->nr_rows; i++)
			if (top->rows[i].id != all->rows[i].id ||
			    top->rows[i].self != all->rows[i].self)
				fail_msg("seed %llx kind %d sort %d max %zu row %zu: %s vs %s",
					 (unsigned long long)seed, o->kind, o->sort,
					 c.max_rows, i, top->rows[i].name, all->rows[i].name);
		kp_view__free(top);
	}
	kp_view__free(all);
}

/* A's summary (its sums kept as samples came) against one summed at the
 * end of a replay that asked for none before. */
static void same_summary(struct kp_model *a, const struct run *r, size_t max_nodes,
			 uint64_t seed, struct fake *fc)
{
	struct kp_model_summary x, y;
	struct kp_model *c;

	c = new_model(fc, max_nodes, 0);
	for (size_t i = 0; i < r->nr; i++)
		apply(c, &r->ops[i], -1);
	kp_model__summary(a, &x);
	kp_model__summary(c, &y);
	if (x.total != y.total || x.idle != y.idle || x.folded_samples != y.folded_samples)
		fail_msg("seed %llx step %zu: summary total %.17g idle %.17g folded %llu "
			 "vs summed %.17g %.17g %llu", (unsigned long long)seed, r->nr,
			 x.total, x.idle, (unsigned long long)x.folded_samples, y.total,
			 y.idle, (unsigned long long)y.folded_samples);
	kp_model__free(c);
}

/* Every kind and sort of view of a and of a fresh replay of the run. */
static void check(struct kp_model *a, const struct run *r, size_t max_nodes,
		  uint64_t seed)
{
	struct fake *fb = calloc(1, sizeof(*fb));
	struct kp_model *b;
	struct kp_view_opts o = { 0 };

	assert_non_null(fb);
	b = new_model(fb, max_nodes, 0);
	for (size_t i = 0; i < r->nr; i++)
		apply(b, &r->ops[i], 0);
	for (int k = 0; k < KP_VIEW_KIND_MAX; k++) {
		o.kind = (enum kp_view_kind)k;
		for (int s = 0; s < 4; s++) {
			o.sort = (enum kp_sort)s;
			o.root_fn = 0;
			same_view(a, b, &o, seed, r->nr);
			if (k == KP_VIEW_FLAT)
				same_top(a, &o, seed);
			if (k != KP_VIEW_BOTTOMUP || s != KP_SORT_TOTAL)
				continue;
			for (o.root_fn = 1; o.root_fn < 16; o.root_fn++)
				same_view(a, b, &o, seed, r->nr);
		}
	}
	kp_model__free(b);
	same_summary(a, r, max_nodes, seed, fb);
	free(fb);
}

/* eager: A keeps the views' structure as stacks are hung */
static void random_run(uint64_t seed, size_t max_nodes, int eager)
{
	struct fake *fa = calloc(1, sizeof(*fa));
	struct run *r = calloc(1, sizeof(*r));
	struct kp_model *a;
	uint64_t s = seed;

	assert_non_null(fa);
	assert_non_null(r);
	a = new_model(fa, max_nodes, eager);
	r->t = NS;
	while (r->nr < MAX_OPS) {
		struct op *o = &r->ops[r->nr++];
		uint64_t x = rnd(&s) % 100;

		/* mostly samples and views: the cache's update path */
		o->kind = x < 45 ? OP_SAMPLES : x < 80 ? OP_VIEW : x < 86 ? OP_REFRESH :
			  x < 89 ? OP_MODE : x < 91 ? OP_ZERO : x < 93 ? OP_MARK :
			  x < 94 ? OP_CLEAR : x < 97 ? OP_FILTER : x < 98 ? OP_RENAME :
			  x < 99 ? OP_EXEC : OP_SYMTAB;
		o->seed = rnd(&s) | 1;
		r->t += (rnd(&s) % 1500) * 1000000ull;
		o->t = r->t;
		apply(a, o, 1);
		if (r->nr % 50 && r->nr < MAX_OPS - 1)
			continue;
		check(a, r, max_nodes, seed);
		o = &r->ops[r->nr++];	/* the check flushed A: B must too */
		o->kind = OP_VIEW;
		o->seed = 1;
		o->t = r->t;
		apply(a, o, 1);
	}
	kp_model__free(a);
	free(r);
	free(fa);
}

static void test_cache_equals_rebuild(void **state)
{
	for (uint64_t seed = 1; seed <= 12; seed++)
		random_run(seed * 0x9e3779b97f4a7c15ull, 0, (int)(seed & 1));
}

/* A small node limit: folds renumber nodes and stacks under the cache. */
static void test_cache_with_folds(void **state)
{
	for (uint64_t seed = 1; seed <= 8; seed++)
		random_run(seed * 0xc2b2ae3d27d4eb4full, 40 + seed * 8, (int)(seed & 1));
}

/* A comm filter's verdict follows a renamed process: counts are redone. */
static void test_comm_filter_rename(void **state)
{
	struct fake *f = calloc(2, sizeof(*f));
	struct kp_filter flt = { .comm = "app" };
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT };
	struct op op = { OP_SAMPLES, 777, NS };
	struct kp_model *m[2];
	struct kp_view *v;

	assert_non_null(f);
	for (int i = 0; i < 2; i++) {	/* m[0] views before the rename */
		m[i] = new_model(&f[i], 0, (int)i);
		assert_int_equal(kp_model__set_filter(m[i], &flt), 0);
		op.seed = 777;
		op_samples(m[i], &op);
		if (i == 0) {
			assert_int_equal(kp_model__view(m[i], &o, &v), 0);
			assert_true(v->total > 0);
			kp_view__free(v);
		}
		assert_int_equal(feed_process(m[i], 100, 1, "renamed"), 0);
		op.seed = 778;
		op_samples(m[i], &op);
	}
	for (int k = 0; k < KP_VIEW_KIND_MAX; k++) {
		o.kind = (enum kp_view_kind)k;
		same_view(m[0], m[1], &o, 0, 0);
	}
	kp_model__free(m[0]);
	kp_model__free(m[1]);
	free(f);
}

/* The view reused: same rows as a new one, the old one consumed. */
static void test_view_reuse(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct kp_model *m;
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT };
	struct kp_view *v = NULL, *w = NULL;
	struct op op = { OP_SAMPLES, 12345, NS };

	assert_non_null(f);
	m = new_model(f, 0, 0);
	op_samples(m, &op);
	assert_int_equal(kp_model__view_reuse(m, &o, NULL, &v), 0);
	o.kind = KP_VIEW_TOPDOWN;
	assert_int_equal(kp_model__view_reuse(m, &o, v, &v), 0);
	assert_int_equal(kp_model__view(m, &o, &w), 0);
	assert_int_equal(v->nr_rows, w->nr_rows);
	for (size_t i = 0; i < v->nr_rows; i++)
		assert_true(v->rows[i].id == w->rows[i].id &&
			    v->rows[i].total == w->rows[i].total);
	o.kind = KP_VIEW_KIND_MAX;	/* an error consumes the old view */
	assert_int_equal(kp_model__view_reuse(m, &o, v, &v), -EINVAL);
	assert_null(v);
	kp_view__free(w);
	kp_model__free(m);
	free(f);
}

/* The view cache's pairs (function, process) are far fewer than its
 * nodes when a process's many paths share a few functions (a command's
 * merged tree): what a first view reserved, a pair per node, goes back.
 * 20,000-odd nodes of one process over 16 functions: the cache stays
 * near its per-node entry (40 bytes) instead of adding a pair and two
 * table slots per node. */
static void test_pairs_fit(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct kp_model *m;
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT };
	struct kp_view *v = NULL;
	struct kp_model_mem it[48];
	struct kp_model_summary su;
	uint64_t s = 99, u[8];
	size_t vc = 0, n;

	(void)state;
	assert_non_null(f);
	m = new_model(f, 0, 0);	/* the first view takes every node at once */
	for (int i = 0; i < 6000; i++) {
		for (int j = 0; j < 8; j++)
			u[j] = U(1 + rnd(&s) % 16);
		assert_int_equal(feed_sample(m, 100, 100, NS + (uint64_t)i, 0, 0, NULL, 0, u, 8), 0);
	}
	assert_int_equal(kp_model__view(m, &o, &v), 0);
	kp_model__summary(m, &su);
	n = kp_model__mem(m, it, 48);
	for (size_t i = 0; i < n && i < 48; i++)
		if (!strcmp(it[i].name, "view cache"))
			vc = it[i].bytes;
	print_message("nodes %llu, view cache %zu bytes (%.1f a node)\n",
		      (unsigned long long)su.nodes, vc, (double)vc / (double)su.nodes);
	assert_true(su.nodes > 20000);
	assert_true(vc < su.nodes * 56);
	kp_view__free(v);
	kp_model__free(m);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache_equals_rebuild),
		cmocka_unit_test(test_cache_with_folds),
		cmocka_unit_test(test_comm_filter_rename),
		cmocka_unit_test(test_view_reuse),
		cmocka_unit_test(test_pairs_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
