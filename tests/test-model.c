// SPDX-License-Identifier: GPL-2.0-only
/* test-model.c — cmocka tests of the model (model.h) on hand-built
 * record sequences with a fake resolver (model-fake.h). */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"
#include "model-fake.h"

#define APP 0x400000ull
#define U(x) (APP + (uint64_t)(x) * 0x100 + 0x10)	/* pc in fn_<x> */
#define K(x) (0xffffffff81000000ull + (uint64_t)(x) * 0x100 + 0x8)
#define S(x) ((uint64_t)(x) * KP_NS_TEST)
#define KP_NS_TEST 1000000000ull

struct ctx {
	struct fake f;
	struct kp_model *m;
};

/* A model with node limit max_nodes (0: default) and process 100 "app"
 * mapping /bin/app at APP, as setup() makes for the shared fixture. */
static struct kp_model *app_model(struct fake *f, size_t max_nodes)
{
	struct kp_model *m = fake_model(f, max_nodes);

	assert_non_null(m);
	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x1000000, 0, "/bin/app", 1), 0);
	return m;
}

/* The sum of Self over a view's rows. */
static double rows_self(const struct kp_view *v)
{
	double self = 0;

	for (size_t i = 0; i < v->nr_rows; i++)
		self += v->rows[i].self;
	return self;
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->m = app_model(&c->f, 0);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	kp_model__free(c->m);
	free(c);
	return 0;
}

/* Feed a user stack given outermost first (as one reads it). */
static void ustack(struct kp_model *m, uint32_t pid, uint32_t tid, uint64_t t,
		   int n, const int *fns)
{
	uint64_t pcs[64];
	int i;

	for (i = 0; i < n; i++)
		pcs[n - 1 - i] = U(fns[i]);
	assert_int_equal(feed_sample(m, pid, tid, t, 0, 0, NULL, 0, pcs, n), 0);
}

/* Samples are counted (and new frames named) in batches: make the model
 * count them before looking at the fake resolver's counters. */
static void settle(struct kp_model *m)
{
	struct kp_model_summary sum;

	kp_model__summary(m, &sum);
}

static struct kp_view *view(struct kp_model *m, enum kp_view_kind kind,
			    enum kp_sort sort, uint64_t root_fn)
{
	struct kp_view_opts o = { .kind = kind, .sort = sort, .root_fn = root_fn };
	struct kp_view *v = NULL;

	assert_int_equal(kp_model__view(m, &o, &v), 0);
	assert_non_null(v);
	return v;
}

static const struct kp_row *row(const struct kp_view *v, const char *name, int depth)
{
	size_t i;

	for (i = 0; i < v->nr_rows; i++)
		if (!strcmp(v->rows[i].name, name) && v->rows[i].depth == depth)
			return &v->rows[i];
	return NULL;
}

static const struct kp_row *must(const struct kp_view *v, const char *name, int depth)
{
	const struct kp_row *r = row(v, name, depth);

	if (!r)
		fail_msg("no row %s at depth %d", name, depth);
	return r;
}

/* main(1) -> a(2) -> b(3) x3, main -> a -> c(4) x1, main -> d(5) x2 */
static void shared_prefix(struct kp_model *m)
{
	const int s1[] = { 1, 2, 3 }, s2[] = { 1, 2, 4 }, s3[] = { 1, 5 };
	int i;

	for (i = 0; i < 3; i++)
		ustack(m, 100, 100, S(1), 3, s1);
	ustack(m, 100, 100, S(1), 3, s2);
	for (i = 0; i < 2; i++)
		ustack(m, 100, 100, S(1), 2, s3);
}

static void test_shared_prefix(void **state)
{
	struct ctx *c = *state;
	struct kp_view *v;

	shared_prefix(c->m);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, 0);
	assert_true(v->total == 6);
	assert_true(must(v, "app", 0)->total == 6);
	assert_true(must(v, "fn_1", 1)->total == 6);
	assert_true(must(v, "fn_1", 1)->self == 0);
	assert_true(must(v, "fn_2", 2)->total == 4);
	assert_true(must(v, "fn_3", 3)->self == 3);
	assert_true(must(v, "fn_4", 3)->self == 1);
	assert_true(must(v, "fn_5", 2)->self == 2);
	/* sorted by total among siblings: fn_2 (4) before fn_5 (2) */
	assert_true(must(v, "fn_2", 2) < must(v, "fn_5", 2));
	kp_view__free(v);

	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_int_equal(v->nr_rows, 5);
	assert_string_equal(v->rows[0].name, "fn_3");
	assert_true(must(v, "fn_1", 0)->total == 6);
	assert_true(must(v, "fn_2", 0)->total == 4);
	assert_true(must(v, "fn_3", 0)->self == 3);
	assert_int_equal(must(v, "fn_3", 0)->nr_procs, 1);
	assert_string_equal(must(v, "fn_3", 0)->module, "app");
	assert_int_equal(must(v, "fn_3", 0)->samples, 3);
	kp_view__free(v);
}

static void test_recursion(void **state)
{
	struct ctx *c = *state;
	const int s[] = { 1, 9, 9, 9 }, t[] = { 1, 9, 2 };
	struct kp_view *v;
	uint64_t fn9;

	ustack(c->m, 100, 100, S(1), 4, s);
	ustack(c->m, 100, 100, S(1), 4, s);
	ustack(c->m, 100, 100, S(1), 3, t);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_TOTAL, 0);
	assert_true(must(v, "fn_9", 0)->total == 3);
	assert_true(must(v, "fn_9", 0)->self == 2);
	assert_true(must(v, "fn_1", 0)->total == 3);
	kp_view__free(v);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, 0);
	assert_true(must(v, "fn_9", 2)->total == 3);
	assert_true(must(v, "fn_9", 3)->total == 2);
	assert_true(must(v, "fn_9", 4)->self == 2);
	fn9 = must(v, "fn_9", 2)->fn;
	kp_view__free(v);
	/* callers of a recursive function: each stack once, from its
	 * outermost call (fn_1 calls it 3 times, not 3 + 2 + 2) */
	v = view(c->m, KP_VIEW_BOTTOMUP, KP_SORT_TOTAL, fn9);
	assert_true(must(v, "fn_9", 0)->total == 3);
	assert_true(must(v, "fn_9", 0)->self == 2);
	assert_true(must(v, "fn_1", 1)->total == 3);
	assert_null(row(v, "fn_9", 1));
	kp_view__free(v);
}

static void test_bottomup(void **state)
{
	struct ctx *c = *state;
	struct kp_view *v;
	const struct kp_row *r;
	uint64_t fn_a;

	shared_prefix(c->m);
	v = view(c->m, KP_VIEW_BOTTOMUP, KP_SORT_TOTAL, 0);
	assert_true(must(v, "fn_3", 0)->self == 3);
	assert_true(must(v, "fn_3", 0)->total == 3);
	assert_true(must(v, "fn_5", 0)->total == 2);
	assert_true(must(v, "fn_4", 0)->total == 1);
	assert_null(row(v, "fn_1", 0));
	assert_null(row(v, "fn_2", 0));
	/* fn_3's caller is fn_2, whose caller is fn_1, then the process */
	r = must(v, "fn_3", 0);
	assert_string_equal(r[1].name, "fn_2");
	assert_int_equal(r[1].depth, 1);
	assert_string_equal(r[2].name, "fn_1");
	assert_string_equal(r[3].name, "app");
	assert_int_equal(r[3].depth, 3);
	fn_a = r[1].fn;
	kp_view__free(v);

	v = view(c->m, KP_VIEW_BOTTOMUP, KP_SORT_TOTAL, fn_a);
	assert_int_equal(v->rows[0].depth, 0);
	assert_string_equal(v->rows[0].name, "fn_2");
	assert_true(v->rows[0].total == 4);
	assert_string_equal(v->rows[1].name, "fn_1");
	assert_true(v->rows[1].total == 4);
	assert_null(row(v, "fn_5", 0));
	kp_view__free(v);
}

static void test_threads_cgroups(void **state)
{
	struct ctx *c = *state;
	struct kp_record r = { .type = KP_REC_THREAD };
	const int s[] = { 1, 2 };
	uint64_t pc = U(3);
	struct kp_view *v;

	r.thread.pid = 100;
	r.thread.tid = 101;
	r.thread.comm = "worker";
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	r.type = KP_REC_CGROUP;
	r.cgroup.id = 77;
	r.cgroup.path = "/system.slice/app.service";
	assert_int_equal(kp_model__feed(c->m, &r), 0);

	ustack(c->m, 100, 100, S(1), 2, s);
	ustack(c->m, 100, 101, S(1), 2, s);
	ustack(c->m, 100, 101, S(1), 2, s);
	assert_int_equal(feed_sample(c->m, 100, 101, S(1), 77, 0, NULL, 0, &pc, 1), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 88, 0, NULL, 0, &pc, 1), 0);

	v = view(c->m, KP_VIEW_THREAD, KP_SORT_TOTAL, 0);
	assert_int_equal(v->nr_rows, 2);
	assert_string_equal(v->rows[0].name, "worker");
	assert_int_equal(v->rows[0].tid, 101);
	assert_true(v->rows[0].total == 3);
	assert_string_equal(v->rows[1].name, "t100");
	assert_true(v->rows[1].total == 2);
	kp_view__free(v);

	v = view(c->m, KP_VIEW_CGROUP, KP_SORT_TOTAL, 0);
	assert_int_equal(v->nr_rows, 3);
	assert_true(must(v, "/system.slice/app.service", 0)->total == 1);
	assert_int_equal(must(v, "/system.slice/app.service", 0)->id, 77);
	assert_true(must(v, "88", 0)->total == 1);
	assert_true(must(v, "0", 0)->total == 3);
	kp_view__free(v);
}

static void test_exec_pid_reuse(void **state)
{
	struct ctx *c = *state;
	struct kp_record r = { .type = KP_REC_EXEC };
	const int s[] = { 1 };
	struct kp_view *v;
	struct kp_model_summary sum;

	ustack(c->m, 100, 100, S(1), 1, s);
	r.exec.pid = r.exec.tid = 100;
	r.exec.comm = "ls";
	r.exec.exe = "/bin/ls";
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	assert_int_equal(c->f.gone_calls, 1);
	assert_int_equal(feed_mmap(c->m, 100, APP, 0x100000, 0, "/bin/ls", 2), 0);
	ustack(c->m, 100, 100, S(1), 1, s);
	ustack(c->m, 100, 100, S(1), 1, s);
	/* pid reuse: a new start time */
	assert_int_equal(feed_process(c->m, 100, 999, "cat"), 0);
	assert_int_equal(c->f.gone_calls, 2);
	assert_int_equal(feed_mmap(c->m, 100, APP, 0x100000, 0, "/bin/cat", 3), 0);
	ustack(c->m, 100, 100, S(1), 1, s);

	v = view(c->m, KP_VIEW_PROCESS, KP_SORT_TOTAL, 0);
	assert_int_equal(v->nr_rows, 3);
	assert_true(must(v, "app", 0)->total == 1);
	assert_true(must(v, "ls", 0)->total == 2);
	assert_true(must(v, "cat", 0)->total == 1);
	assert_int_equal(must(v, "cat", 0)->pid, 100);
	assert_true(must(v, "ls", 0)->id != must(v, "app", 0)->id);
	kp_view__free(v);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_TOTAL, 0);
	/* same offset in three different files: three functions */
	assert_int_equal(v->nr_rows, 3);
	assert_string_equal(v->rows[0].module, "ls");
	kp_view__free(v);
	kp_model__summary(c->m, &sum);
	assert_int_equal(sum.processes, 3);

	/* the exit of the main thread ends the identity; counts stay */
	r.type = KP_REC_EXIT;
	r.exit.pid = r.exit.tid = 100;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	assert_int_equal(c->f.gone_calls, 3);
	v = view(c->m, KP_VIEW_PROCESS, KP_SORT_TOTAL, 0);
	assert_int_equal(v->nr_rows, 3);
	kp_view__free(v);
}

static double flat_total(struct kp_model *m)
{
	struct kp_view *v = view(m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	double t = v->total;

	kp_view__free(v);
	return t;
}

static void test_decay(void **state)
{
	struct ctx *c = *state;
	const int s[] = { 1 };
	int i;

	for (i = 0; i < 8; i++)
		ustack(c->m, 100, 100, S(1), 1, s);
	kp_model__set_time_mode(c->m, KP_TIME_DECAY, 0);
	kp_model__refresh(c->m, S(2));
	assert_true(flat_total(c->m) == 7);
	kp_model__refresh(c->m, S(3));
	assert_true(flat_total(c->m) == 7.0 * 7 / 8);
	for (i = 0; i < 60; i++)	/* 8 * (7/8)^62 < 0.01: gone */
		kp_model__refresh(c->m, S(4));
	assert_true(flat_total(c->m) == 0);
	{
		struct kp_view *v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);

		assert_int_equal(v->nr_rows, 0);
		kp_view__free(v);
	}
	kp_model__set_time_mode(c->m, KP_TIME_CUMULATIVE, 0);
	assert_true(flat_total(c->m) == 8);
	kp_model__refresh(c->m, S(4));
	assert_true(flat_total(c->m) == 8);
}

static void test_window(void **state)
{
	struct ctx *c = *state;
	const int s[] = { 1 }, t[] = { 2 };
	struct kp_view *v;

	kp_model__set_time_mode(c->m, KP_TIME_WINDOW, 3);
	ustack(c->m, 100, 100, S(1) + 100, 1, s);
	ustack(c->m, 100, 100, S(1) + 200, 1, s);
	ustack(c->m, 100, 100, S(5), 1, t);
	kp_model__refresh(c->m, S(5) + 1);
	assert_true(flat_total(c->m) == 1);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_int_equal(v->nr_rows, 1);
	assert_string_equal(v->rows[0].name, "fn_2");
	kp_view__free(v);
	/* a sample older than the window is not counted */
	ustack(c->m, 100, 100, S(1), 1, s);
	assert_true(flat_total(c->m) == 1);
	ustack(c->m, 100, 100, S(6), 1, s);
	assert_true(flat_total(c->m) == 2);
	kp_model__refresh(c->m, S(9) + 1);
	assert_true(flat_total(c->m) == 1);
	kp_model__refresh(c->m, S(10) + 1);
	assert_true(flat_total(c->m) == 0);
	/* back to cumulative: every sample since the zero */
	kp_model__set_time_mode(c->m, KP_TIME_CUMULATIVE, 0);
	assert_true(flat_total(c->m) == 5);
}

/* More than 255 samples of a stack in one second (a window entry counts
 * up to 255), interleaved with another stack's. */
static void test_window_many(void **state)
{
	struct ctx *c = *state;
	const int s[] = { 1 }, t[] = { 2 };
	int i;

	kp_model__set_time_mode(c->m, KP_TIME_WINDOW, 2);
	for (i = 0; i < 600; i++) {
		ustack(c->m, 100, 100, S(1) + (uint64_t)i * 1000, 1, s);
		if (i % 3 == 0)
			ustack(c->m, 100, 100, S(1) + (uint64_t)i * 1000 + 1, 1, t);
	}
	ustack(c->m, 100, 100, S(2), 1, s);
	kp_model__refresh(c->m, S(2) + 1);
	assert_true(flat_total(c->m) == 801);
	kp_model__refresh(c->m, S(4));
	assert_true(flat_total(c->m) == 1);
	kp_model__refresh(c->m, S(5));
	assert_true(flat_total(c->m) == 0);
	kp_model__set_time_mode(c->m, KP_TIME_CUMULATIVE, 0);
	assert_true(flat_total(c->m) == 801);
}

/* A sample record of weight w (a run of idle samples from the collector,
 * or any record of a file): counted w times. */
static void weighted(struct kp_model *m, uint32_t pid, uint64_t t, uint32_t flags,
		     const uint64_t *k, int nk, const uint64_t *u, int nu, uint32_t w)
{
	struct kp_record r = { .type = KP_REC_SAMPLE };

	r.sample.pid = r.sample.tid = pid;
	r.sample.time_ns = t;
	r.sample.flags = flags;
	strcpy(r.sample.comm, pid ? "app" : "swapper/0");
	r.sample.kframes = k;
	r.sample.nr_kframes = (uint16_t)nk;
	r.sample.uframes = u;
	r.sample.nr_uframes = (uint16_t)nu;
	r.sample.weight = w;
	assert_int_equal(kp_model__feed(m, &r), 0);
}

/* Weights count everywhere a sample counts: the summary, the rows, the
 * window (also past 255 and 2^32 in one second), the baseline. */
static void test_weights(void **state)
{
	struct ctx *c = *state;
	const uint64_t k[] = { K(7) }, u1[] = { U(1) }, u2[] = { U(2) };
	struct kp_model_summary sum;
	struct kp_view *v;

	weighted(c->m, 0, S(1), KP_SAMPLE_IDLE, k, 1, NULL, 0, 250);
	weighted(c->m, 100, S(1), 0, NULL, 0, u1, 1, 3);
	weighted(c->m, 100, S(1), 0, NULL, 0, u1, 1, 0);	/* zeroed: 1 */
	kp_model__summary(c->m, &sum);
	assert_int_equal(sum.samples, 254);
	assert_true(sum.idle == 250);
	assert_true(sum.total == 4);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "fn_1", 0)->self == 4);
	assert_int_equal(must(v, "fn_1", 0)->samples, 4);
	kp_view__free(v);
	kp_model__baseline_mark(c->m);
	weighted(c->m, 100, S(2), 0, NULL, 0, u1, 1, 6);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(v->base_total == 4);
	assert_true(v->total == 6);
	kp_view__free(v);
	kp_model__baseline_clear(c->m);

	kp_model__set_time_mode(c->m, KP_TIME_WINDOW, 2);
	weighted(c->m, 0, S(5), KP_SAMPLE_IDLE, k, 1, NULL, 0, 250);
	weighted(c->m, 0, S(5) + 1, KP_SAMPLE_IDLE, k, 1, NULL, 0, 250);
	weighted(c->m, 100, S(5), 0, NULL, 0, u1, 1, 3);
	weighted(c->m, 100, S(5), 0, NULL, 0, u2, 1, UINT32_MAX - 1);
	weighted(c->m, 100, S(5), 0, NULL, 0, u2, 1, 5);	/* a second entry */
	weighted(c->m, 100, S(1), 0, NULL, 0, u1, 1, 9);	/* older than the window */
	kp_model__refresh(c->m, S(5) + 2);
	kp_model__summary(c->m, &sum);
	assert_true(sum.idle == 500);
	assert_true(sum.total == 3.0 + UINT32_MAX - 1 + 5);
	kp_model__refresh(c->m, S(8));
	kp_model__summary(c->m, &sum);
	assert_true(sum.idle == 0);
	assert_true(sum.total == 0);
	kp_model__set_time_mode(c->m, KP_TIME_CUMULATIVE, 0);
	kp_model__summary(c->m, &sum);
	assert_int_equal(sum.samples, 254 + 6 + 500 + 3 + (uint64_t)UINT32_MAX - 1 + 5 + 9);
	assert_true(sum.idle == 500);		/* since the mark */
	assert_true(sum.total == 6 + 3 + (double)UINT32_MAX - 1 + 5 + 9);
}

static void test_zero(void **state)
{
	struct ctx *c = *state;
	const int s[] = { 1, 2 };
	struct kp_model_summary sum;
	struct kp_view *v;
	int calls;

	ustack(c->m, 100, 100, S(1), 2, s);
	settle(c->m);
	calls = c->f.symbolize_calls;
	kp_model__zero(c->m);
	assert_true(flat_total(c->m) == 0);
	kp_model__summary(c->m, &sum);
	assert_int_equal(sum.samples, 0);
	assert_int_equal(sum.processes, 1);
	assert_int_equal(sum.mappings, 1);
	ustack(c->m, 100, 100, S(2), 2, s);
	settle(c->m);
	assert_int_equal(c->f.symbolize_calls, calls);	/* names kept */
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "fn_2", 0)->self == 1);
	kp_view__free(v);
}

static void test_baseline(void **state)
{
	struct ctx *c = *state;
	const int a[] = { 1 }, b[] = { 2 };
	struct kp_view *v;
	int i;

	for (i = 0; i < 4; i++)
		ustack(c->m, 100, 100, S(1), 1, a);
	assert_false(kp_model__has_baseline(c->m));
	kp_model__baseline_mark(c->m);
	assert_true(kp_model__has_baseline(c->m));
	ustack(c->m, 100, 100, S(2), 1, a);
	for (i = 0; i < 3; i++)
		ustack(c->m, 100, 100, S(2), 1, b);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_DELTA, 0);
	assert_true(v->total == 4);
	assert_true(v->base_total == 4);
	assert_int_equal(v->nr_rows, 2);
	/* both moved by 75% of the share; ties break by id: fn_1 first */
	assert_true(must(v, "fn_1", 0)->base_self == 4);
	assert_true(must(v, "fn_1", 0)->self == 1);
	assert_true(must(v, "fn_2", 0)->base_self == 0);
	assert_true(must(v, "fn_2", 0)->self == 3);
	kp_view__free(v);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_DELTA, 0);
	assert_true(must(v, "fn_1", 1)->base_total == 4);
	assert_true(must(v, "app", 0)->base_total == 4);
	kp_view__free(v);
	kp_model__baseline_clear(c->m);
	assert_false(kp_model__has_baseline(c->m));
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(v->base_total == 0);
	assert_string_equal(v->rows[0].name, "fn_2");
	kp_view__free(v);
}

static void test_delta_sort(void **state)
{
	struct ctx *c = *state;
	const int a[] = { 1 }, b[] = { 2 }, d[] = { 3 };
	struct kp_view *v;
	int i;

	for (i = 0; i < 5; i++)
		ustack(c->m, 100, 100, S(1), 1, a);
	for (i = 0; i < 5; i++)
		ustack(c->m, 100, 100, S(1), 1, d);
	kp_model__baseline_mark(c->m);
	for (i = 0; i < 5; i++)
		ustack(c->m, 100, 100, S(1), 1, a);
	for (i = 0; i < 4; i++)
		ustack(c->m, 100, 100, S(1), 1, d);
	ustack(c->m, 100, 100, S(1), 1, b);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_DELTA, 0);
	/* fn_3 50% -> 40%, fn_2 0% -> 10%, fn_1 unchanged: last */
	assert_string_equal(v->rows[2].name, "fn_1");
	kp_view__free(v);
}

static int filtered_rows(struct kp_model *m, const struct kp_filter *f,
			 enum kp_view_kind kind, double *total)
{
	struct kp_view *v;
	int n;

	assert_int_equal(kp_model__set_filter(m, f), 0);
	v = view(m, kind, KP_SORT_SELF, 0);
	n = (int)v->nr_rows;
	*total = v->total;
	kp_view__free(v);
	return n;
}

static void test_filters(void **state)
{
	struct ctx *c = *state;
	const int s1[] = { 1, 2, 3 }, s2[] = { 1, 5 };
	struct kp_filter f = { 0 };
	uint64_t pc = U(3);
	double t;

	assert_int_equal(feed_process(c->m, 200, 1, "other"), 0);
	assert_int_equal(feed_mmap(c->m, 200, APP, 0x100000, 0, "/lib/other.so", 9), 0);
	ustack(c->m, 100, 100, S(1), 3, s1);
	ustack(c->m, 100, 100, S(1), 2, s2);
	ustack(c->m, 200, 200, S(1), 2, s2);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 55, 0, NULL, 0, &pc, 1), 0);

	f.pid = 200;
	assert_int_equal(filtered_rows(c->m, &f, KP_VIEW_FLAT, &t), 2);
	assert_true(t == 1);
	memset(&f, 0, sizeof(f));
	f.comm = "app";
	filtered_rows(c->m, &f, KP_VIEW_FLAT, &t);
	assert_true(t == 3);
	memset(&f, 0, sizeof(f));
	f.cgroup_id = 55;
	assert_int_equal(filtered_rows(c->m, &f, KP_VIEW_FLAT, &t), 1);
	assert_true(t == 1);
	memset(&f, 0, sizeof(f));
	f.module = "other.so";
	filtered_rows(c->m, &f, KP_VIEW_PROCESS, &t);
	assert_true(t == 1);
	memset(&f, 0, sizeof(f));
	f.name = "fn_3";
	filtered_rows(c->m, &f, KP_VIEW_FLAT, &t);
	assert_true(t == 2);
	f.name = "^fn_[25]$";
	f.name_is_regex = 1;
	filtered_rows(c->m, &f, KP_VIEW_FLAT, &t);
	assert_true(t == 3);
	f.name = "fn_(";
	assert_int_equal(kp_model__set_filter(c->m, &f), -EINVAL);
	/* the old filter stays in force */
	assert_true(flat_total(c->m) == 3);
	memset(&f, 0, sizeof(f));
	assert_int_equal(kp_model__set_filter(c->m, &f), 0);
	assert_true(flat_total(c->m) == 4);
}

static void test_focus(void **state)
{
	struct ctx *c = *state;
	const int s1[] = { 1, 2, 3 }, s2[] = { 1, 5 };
	struct kp_filter f = { 0 };
	struct kp_view *v;
	uint64_t fn2;
	double t;

	ustack(c->m, 100, 100, S(1), 3, s1);
	ustack(c->m, 100, 100, S(1), 3, s1);
	ustack(c->m, 100, 100, S(1), 2, s2);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	fn2 = must(v, "fn_2", 0)->fn;
	kp_view__free(v);
	f.focus_fn = fn2;
	assert_int_equal(filtered_rows(c->m, &f, KP_VIEW_FLAT, &t), 3);
	assert_true(t == 2);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	assert_null(row(v, "fn_5", 2));
	kp_view__free(v);
}

static void test_node_limit(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = app_model(&f, 64);
	struct kp_model_summary sum;
	struct kp_view *v;
	int j;

	for (j = 0; j < 50; j++) {	/* one hot stack */
		const int hot[] = { 1, 2, 3 };

		ustack(m, 100, 100, S(1), 3, hot);
	}
	for (j = 0; j < 500; j++) {	/* many cold ones */
		const int cold[] = { 1, 10 + j, 2000 + j };

		ustack(m, 100, 100, S(1), 3, cold);
	}
	kp_model__summary(m, &sum);
	assert_true(sum.nodes <= 64);
	assert_true(sum.other_nodes >= 1);
	assert_true(sum.folded_samples > 0);
	assert_int_equal(sum.samples, 550);
	v = view(m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(rows_self(v) == 550);
	assert_true(must(v, "fn_3", 0)->self == 50);
	assert_non_null(row(v, "[other]", 0));
	kp_view__free(v);
	v = view(m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, 0);
	assert_true(must(v, "app", 0)->total == 550);
	/* a cut path goes under its root's [other]; its function's counts
	 * stay whole: a cold leaf's self, and the hot path's full depth */
	assert_true(must(v, "fn_1", 1)->total + must(v, "[other]", 1)->total == 550);
	assert_true(must(v, "fn_3", 3)->total == 50);
	kp_view__free(v);
	v = view(m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "fn_7d0", 0)->self == 1 && must(v, "fn_7d0", 0)->total == 1);
	assert_true(must(v, "[other]", 0)->self == 0);
	kp_view__free(v);
	kp_model__free(m);
}

/* A node with hundreds of children (frame-pointer stacks ending in junk
 * give a process root that many) finds each of them again, also after a
 * fold renumbered the nodes. */
static void test_wide_node(void **state)
{
	for (int limited = 0; limited < 2; limited++) {
		struct fake f = { 0 };
		struct kp_model *m = app_model(&f, limited ? 400 : 0);
		struct kp_model_summary sum, sum2;
		struct kp_view *v;
		int j, pass;

		for (pass = 0; pass < 3; pass++) {
			for (j = 0; j < 300; j++) {
				const int fns[] = { 10 + j, 5000 + j };

				ustack(m, 100, 100 + (uint32_t)pass, S(1), 2, fns);
			}
			if (pass == 0)
				kp_model__summary(m, &sum);
		}
		kp_model__summary(m, &sum2);
		assert_int_equal(sum2.samples, 900);
		if (!limited) {	/* the same nodes, found again */
			assert_true(sum.nodes >= 601);
			assert_int_equal(sum2.nodes, sum.nodes);
		} else {
			assert_true(sum2.nodes <= 400);
		}
		v = view(m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
		assert_true(rows_self(v) == 900);
		if (!limited)
			assert_true(must(v, "fn_1403", 0)->self == 3);	/* 5123 */
		kp_view__free(v);
		v = view(m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, 0);
		assert_true(must(v, "app", 0)->total == 900);
		if (!limited)
			assert_true(must(v, "fn_7b", 1)->total == 3);	/* 123 */
		kp_view__free(v);
		kp_model__free(m);
	}
	(void)state;
}

/* The bytes in use of the model's structure name (kp_model__mem). */
static size_t mem_used(const struct kp_model *m, const char *name)
{
	struct kp_model_mem mem[64];
	size_t n = kp_model__mem(m, mem, 64);

	for (size_t i = 0; i < n; i++)
		if (strcmp(mem[i].name, name) == 0)
			return mem[i].used;
	fail_msg("no \"%s\" in kp_model__mem", name);
	return 0;
}

/* A fold renumbers the nodes: the parents with many children are wide
 * again at once, not only after a lookup that misses (a lookup that
 * finds a child walks the list: a merged command's root has thousands
 * of children, and its lookups nearly always find). */
static void test_wide_after_fold(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = app_model(&f, 400);
	struct kp_model_summary sum;

	for (int j = 0; j < 300; j++) {
		const int fns[] = { 10 + j, 5000 + j };

		ustack(m, 100, 100, S(1), 2, fns);
	}
	kp_model__summary(m, &sum);	/* hangs the stacks; folds to the limit */
	assert_true(sum.nodes <= 400);
	assert_true(sum.other_nodes > 0);	/* a fold ran */
	assert_true(mem_used(m, "wide node table") > 0);
	kp_model__free(m);
	(void)state;
}

/* Folding keeps the baseline and the window's buckets with their stacks. */
static void test_fold_base_window(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = app_model(&f, 64);
	struct kp_model_summary sum;
	struct kp_view *v;
	int j;

	kp_model__set_time_mode(m, KP_TIME_WINDOW, 5);
	for (j = 0; j < 40; j++) {
		const int st[] = { 1, 2, 100 + j };

		ustack(m, 100, 100, S(1), 3, st);
	}
	kp_model__baseline_mark(m);
	for (j = 0; j < 300; j++) {	/* folds while a baseline exists */
		const int st[] = { 1, 3 + j % 2, 1000 + j };

		ustack(m, 100, 100, S(2) + (uint64_t)j, 3, st);
	}
	kp_model__summary(m, &sum);
	assert_true(sum.nodes <= 64);
	assert_true(sum.other_nodes >= 1);
	v = view(m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(v->total == 300);
	assert_true(v->base_total == 40);
	kp_view__free(v);
	v = view(m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, 0);
	assert_true(must(v, "app", 0)->total == 300);
	assert_true(must(v, "app", 0)->base_total == 40);
	kp_view__free(v);
	/* the window still expires the folded samples */
	kp_model__refresh(m, S(7) + 1);
	kp_model__summary(m, &sum);
	assert_true(sum.total == 300);
	kp_model__refresh(m, S(8) + 1);
	kp_model__summary(m, &sum);
	assert_true(sum.total == 0);
	kp_model__free(m);
}

/* Folding merges cold stacks away: the window's buckets follow the ids. */
static void test_fold_window_remap(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = app_model(&f, 64);
	struct kp_model_summary sum;
	struct kp_view *v;
	int j;

	kp_model__set_time_mode(m, KP_TIME_WINDOW, 5);
	for (j = 0; j < 40; j++) {
		const int st[] = { 1, 2, 100 + j };

		ustack(m, 100, 100, S(1), 3, st);
	}
	kp_model__zero(m);	/* these become cold: merged by the folds */
	for (j = 0; j < 300; j++) {
		const int st[] = { 1, 3, 1000 + j };

		ustack(m, 100, 100, S(2) + (uint64_t)j, 3, st);
		if (j < 100)	/* hot ones, counted in two seconds */
			ustack(m, 100, 100, S(4) + (uint64_t)j, 3, st);
	}
	kp_model__refresh(m, S(8) + 1);	/* second 2 is out, second 4 in */
	kp_model__summary(m, &sum);
	assert_true(sum.other_nodes >= 1);
	assert_true(sum.total == 100);
	v = view(m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, 0);
	assert_true(must(v, "app", 0)->total == 100);
	kp_view__free(v);
	kp_model__refresh(m, S(10) + 1);
	kp_model__summary(m, &sum);
	assert_true(sum.total == 0);
	kp_model__free(m);
}

static void test_mmap_overlap(void **state)
{
	struct ctx *c = *state;
	uint64_t a = U(0x10), b = U(0x20), d = U(0x30);
	struct kp_model_summary sum;
	struct kp_view *v;

	/* a library mapped over the middle of app's mapping: app keeps both
	 * ends (the right one with its file offset moved along) */
	assert_int_equal(feed_mmap(c->m, 100, APP + 0x2000, 0x1000, 0x5000, "/lib/b.so", 7), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, &a, 1), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, &b, 1), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, &d, 1), 0);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_string_equal(must(v, "fn_10", 0)->module, "app");
	assert_string_equal(must(v, "fn_50", 0)->module, "b.so");
	assert_string_equal(must(v, "fn_30", 0)->module, "app");
	kp_view__free(v);
	kp_model__summary(c->m, &sum);
	assert_int_equal(sum.mappings, 3);
}

/* Random mappings over one another: every page is named in the module of
 * the last mapping that covered it, at its offset in that file (checked
 * against an array of pages). */
static void test_mmap_random(void **state)
{
	enum { PAGES = 48, MAPS = 150 };
	const uint64_t base = 0x10000000;
	struct fake f = { 0 };
	struct kp_model *m = fake_model(&f, 0);
	uint64_t start[MAPS], pgoff[MAPS], seed = 12345;
	struct kp_model_summary sum;
	struct kp_view *v;
	int owner[PAGES], i, p, nr = 0;
	char path[32], name[32];

	(void)state;
	assert_non_null(m);
	feed_process(m, 200, 1, "mm");
	for (p = 0; p < PAGES; p++)
		owner[p] = -1;
	for (i = 0; i < MAPS; i++) {
		int p0, len;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		p0 = (int)((seed >> 33) % PAGES);
		len = 1 + (int)((seed >> 45) % 8);
		if (p0 + len > PAGES)
			len = PAGES - p0;
		start[i] = base + (uint64_t)p0 * 0x1000;
		pgoff[i] = (uint64_t)i << 20;
		snprintf(path, sizeof(path), "/lib/m%d.so", i);
		assert_int_equal(feed_mmap(m, 200, start[i], (uint64_t)len * 0x1000,
					   pgoff[i], path, 1000 + (uint64_t)i), 0);
		for (p = p0; p < p0 + len; p++)
			owner[p] = i;
	}
	for (p = 0; p < PAGES; p++) {
		uint64_t pc = base + (uint64_t)p * 0x1000 + 0x10;

		assert_int_equal(feed_sample(m, 200, 200, S(1), 0, 0, NULL, 0, &pc, 1), 0);
	}
	v = view(m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	for (p = 0; p < PAGES; p++) {
		const struct kp_row *r;
		uint64_t off;
		int o = owner[p];

		if (o < 0)
			continue;
		off = base + (uint64_t)p * 0x1000 + 0x10 - start[o] + pgoff[o];
		snprintf(name, sizeof(name), "fn_%llx", (unsigned long long)(off / 0x100));
		snprintf(path, sizeof(path), "m%d.so", o);
		r = must(v, name, 0);
		assert_string_equal(r->module, path);
		assert_true(r->self == 1);
		nr++;
	}
	assert_true(nr > PAGES / 2);
	kp_view__free(v);
	kp_model__summary(m, &sum);
	assert_true(sum.mappings >= 1 && sum.mappings <= PAGES);
	kp_model__free(m);
}

static void test_sort_name_max_rows(void **state)
{
	struct ctx *c = *state;
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT, .sort = KP_SORT_NAME,
				  .max_rows = 2 };
	struct kp_view *v;

	shared_prefix(c->m);
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	assert_int_equal(v->nr_rows, 2);
	assert_string_equal(v->rows[0].name, "fn_1");
	assert_string_equal(v->rows[1].name, "fn_2");
	assert_true(v->total == 6);
	kp_view__free(v);
	o.kind = KP_VIEW_TOPDOWN;
	o.max_rows = 3;
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	assert_int_equal(v->nr_rows, 3);
	kp_view__free(v);
}

static void test_placeholder_adopted(void **state)
{
	struct ctx *c = *state;
	uint64_t pc = U(1);
	struct kp_view *v;

	assert_int_equal(feed_sample(c->m, 500, 500, S(1), 0, 0, NULL, 0, &pc, 1), 0);
	assert_int_equal(feed_process(c->m, 500, 42, "late"), 0);
	assert_int_equal(feed_sample(c->m, 500, 500, S(1), 0, 0, NULL, 0, &pc, 1), 0);
	v = view(c->m, KP_VIEW_PROCESS, KP_SORT_SELF, 0);
	assert_true(must(v, "late", 0)->total == 2);
	assert_null(row(v, "t500", 0));
	kp_view__free(v);
}

/* A child process pid, forked from app (100) or found by the snapshot. */
static void child(struct kp_model *m, uint32_t pid, uint32_t flags)
{
	struct kp_record r = { .type = KP_REC_PROCESS };

	r.process.pid = r.process.gpid = pid;
	r.process.ppid = 100;
	r.process.start_ns = S(2);
	r.process.time_ns = S(2);
	r.process.flags = flags;
	r.process.comm = "app";
	r.process.exe = "";
	assert_int_equal(kp_model__feed(m, &r), 0);
}

/* A forked child has its parent's mappings (no MMAP record says so: the
 * kernel copied them); one found by the snapshot has only its own. */
static void test_fork_inherits_maps(void **state)
{
	struct ctx *c = *state;
	const int s[] = { 1 };
	struct kp_view *v;
	struct kp_model_summary sum;

	child(c->m, 200, 0);
	child(c->m, 300, KP_PROC_SNAPSHOT);
	ustack(c->m, 200, 200, S(3), 1, s);
	ustack(c->m, 300, 300, S(3), 1, s);
	/* a mapping the parent makes after the fork is not the child's */
	assert_int_equal(feed_mmap(c->m, 100, APP + 0x1000000, 0x1000, 0, "/bin/late", 5), 0);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_int_equal(v->nr_rows, 2);
	assert_non_null(row(v, "fn_1", 0));
	assert_string_equal(row(v, "fn_1", 0)->module, "app");
	assert_true(row(v, "fn_1", 0)->self == 1);
	kp_view__free(v);
	kp_model__summary(c->m, &sum);
	assert_int_equal(sum.mappings, 3);	/* app's two, the child's copy of one */

	/* its exec: the old image's mappings go at once, not at a merge */
	struct kp_record r = { .type = KP_REC_EXEC };

	r.exec.pid = r.exec.tid = 200;
	r.exec.comm = "ls";
	r.exec.exe = "/bin/ls";
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	kp_model__summary(c->m, &sum);
	assert_int_equal(sum.mappings, 2);
}

static int hidden_visit(void *ctx, const struct kp_stack_visit *v)
{
	size_t i;

	for (i = 0; i < v->depth; i++)
		assert_false(v->frames[i]->kernel);
	assert_int_equal(v->tid, 101);
	assert_int_equal(v->cgroup_id, 9);
	assert_string_equal(v->comm, "app");
	assert_string_equal(v->frames[0]->path, "/bin/app");
	assert_int_equal(v->frames[0]->map_start, APP);
	(*(int *)ctx)++;
	return 0;
}

static void test_foreach_filtered(void **state)
{
	struct ctx *c = *state;
	uint64_t k[] = { K(1) }, u[] = { U(2), U(1) };
	struct kp_filter f = { .hide_kernel = 1, .pid = 100 };
	int n = 0;

	assert_int_equal(feed_sample(c->m, 100, 101, S(1), 9, 0, k, 1, u, 2), 0);
	assert_int_equal(feed_process(c->m, 200, 1, "other"), 0);
	assert_int_equal(feed_sample(c->m, 200, 200, S(1), 9, 0, k, 1, u, 2), 0);
	assert_int_equal(kp_model__set_filter(c->m, &f), 0);
	assert_int_equal(kp_model__foreach_stack(c->m, hidden_visit, &n), 0);
	assert_int_equal(n, 1);
}

static void test_hiding(void **state)
{
	struct ctx *c = *state;
	uint64_t k[] = { K(2), K(1) }, u[] = { U(3), U(1) };
	struct kp_filter f = { 0 };
	struct kp_view *v;
	double t;

	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, k, 2, u, 2), 0);
	assert_int_equal(feed_sample(c->m, 0, 0, S(1), 0, KP_SAMPLE_IDLE, k, 1, NULL, 0), 0);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	/* kernel on top of user */
	assert_true(must(v, "fn_1", 1)->total == 1);
	assert_true(must(v, "fn_3", 2)->total == 1);
	assert_true(must(v, "k_ffffffff810001", 3)->kernel);
	assert_true(must(v, "k_ffffffff810002", 4)->self == 1);
	assert_true(v->total == 1);
	kp_view__free(v);

	f.hide_kernel = 1;
	assert_int_equal(filtered_rows(c->m, &f, KP_VIEW_FLAT, &t), 2);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "fn_3", 0)->self == 1);
	kp_view__free(v);
	f.hide_kernel = 0;
	f.hide_user = 1;
	assert_int_equal(filtered_rows(c->m, &f, KP_VIEW_FLAT, &t), 2);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	assert_true(must(v, "k_ffffffff810001", 1)->total == 1);
	kp_view__free(v);
	f.hide_user = 0;
	f.show_idle = 1;
	filtered_rows(c->m, &f, KP_VIEW_FLAT, &t);
	assert_true(t == 2);
	{
		struct kp_model_summary sum;

		kp_model__summary(c->m, &sum);
		assert_true(sum.idle == 1);
		assert_true(sum.total == 1);
	}
}

static void test_unknown_pid(void **state)
{
	struct ctx *c = *state;
	uint64_t pc = 0x1234;
	struct kp_model_summary sum;
	struct kp_view *v;

	assert_int_equal(feed_sample(c->m, 999, 999, S(1), 0, 0, NULL, 0, &pc, 1), 0);
	kp_model__summary(c->m, &sum);
	assert_int_equal(sum.unknown_pid, 1);
	v = view(c->m, KP_VIEW_PROCESS, KP_SORT_SELF, 0);
	assert_int_equal(must(v, "t999", 0)->pid, 999);
	kp_view__free(v);
	/* a pc in no mapping: the one [unknown] frame, no address */
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_non_null(row(v, "[unknown]", 0));
	assert_null(row(v, "[unknown]+0x1234", 0));
	kp_view__free(v);
}

/* Callers in no mapping (a frame-pointer walk through code without frame
 * pointers) become one "[unknown]" frame: junk makes no new nodes. */
static void test_junk_callers(void **state)
{
	struct ctx *c = *state;
	struct kp_model_summary s1, s2;
	struct kp_view *v;

	for (int i = 0; i < 50; i++) {
		/* leaf, then a caller in app, then junk (innermost first) */
		uint64_t pcs[4] = { U(3), U(2), 0x1234 + (uint64_t)i * 8, 0x99990000 + (uint64_t)i };

		assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs, 4), 0);
		if (i == 0)
			kp_model__summary(c->m, &s1);
	}
	kp_model__summary(c->m, &s2);
	assert_int_equal(s2.nodes, s1.nodes);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, 0);
	assert_true(must(v, "[unknown]", 1)->total == 50);
	assert_true(must(v, "fn_2", 2)->total == 50);
	assert_true(must(v, "fn_3", 3)->self == 50);
	assert_null(row(v, "[unknown]+0x1234", 1));
	kp_view__free(v);
}

static void test_symtab_and_unknown(void **state)
{
	struct ctx *c = *state;
	struct kp_symbol syms[] = { { 0x500, 0x100, "from_symtab" } };
	struct kp_record r = { .type = KP_REC_SYMTAB };
	uint64_t pcs[] = { U(5), U(0xdead) };
	struct kp_view *v;
	int calls;

	r.symtab.path = "/bin/app";
	r.symtab.nr_syms = 1;
	r.symtab.syms = syms;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	calls = c->f.symbolize_calls;
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs, 2), 0);
	settle(c->m);
	/* both asked; the resolver's "fn_5" is not the table's function */
	assert_int_equal(c->f.symbolize_calls, calls + 2);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "from_symtab", 0)->self == 1);
	assert_null(row(v, "fn_5", 0));
	/* the return address is named at pc - 1 */
	assert_non_null(row(v, "app+0xdead0f", 0));
	kp_view__free(v);
}

/* A replay names a frame as the live run did when the file read now
 * agrees with the stream's table (the resolver's frames end in the
 * table's function): inlined frames and lines, which a table cannot
 * hold, come back; where it does not agree, the table's name stands. */
static void test_symtab_agrees(void **state)
{
	struct ctx *c = *state;
	struct kp_symbol syms[] = { { 0x7700, 0x100, "fn_77" }, { 0x7800, 0x100, "not_fn_78" } };
	struct kp_record r = { .type = KP_REC_SYMTAB };
	uint64_t pcs[] = { U(0x77), U(1) }, pc2 = U(0x78);
	const struct kp_row *row77;
	struct kp_view *v;

	r.symtab.path = "/bin/app";
	r.symtab.nr_syms = 2;
	r.symtab.syms = syms;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs, 2), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, &pc2, 1), 0);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	assert_false(must(v, "fn_77", 2)->inlined);
	row77 = must(v, "inl_inner", 3);
	assert_true(row77->inlined);
	assert_string_equal(row77->source, "inl.h:7");
	assert_true(must(v, "not_fn_78", 1)->self == 1);
	assert_null(row(v, "fn_78", 1));
	kp_view__free(v);
}

static void test_late_symtab(void **state)
{
	struct ctx *c = *state;
	struct kp_symbol syms[] = { { 0xdead10, 0, "late" } };
	struct kp_record r = { .type = KP_REC_SYMTAB };
	uint64_t pc = U(0xdead);
	struct kp_view *v;

	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, &pc, 1), 0);
	r.symtab.path = "/bin/app";
	r.symtab.nr_syms = 1;
	r.symtab.syms = syms;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_non_null(row(v, "late", 0));
	kp_view__free(v);
}

/* The symbols a save would write: "ADDR/SIZE/NAME " each, in ctx. */
static int fde_sym_visit(void *ctx, const char *path, const uint8_t *bid, uint8_t bl,
			 uint64_t addr, uint64_t size, const char *name,
			 const struct kp_jit_owner *owner)
{
	char *out = ctx;

	snprintf(out + strlen(out), 256 - strlen(out), "%#" PRIx64 "/%#" PRIx64 "/%s ",
		 addr, size, name);
	return 0;
}

/* Code without a name whose function's start is known (stripped code,
 * the resolver gives its FDE's start): all its pcs are one function,
 * "module @0xSTART", one row; a save's SYMTAB gives it as a symbol
 * without a name at its start, as long as each pc needs; a SYMTAB that
 * names it comes first. */
static void test_fde_start(void **state)
{
	struct ctx *c = *state;
	struct kp_symbol syms[] = { { 0xbeef90, 0, "late_fde" } };
	struct kp_record r = { .type = KP_REC_SYMTAB };
	uint64_t pcs[] = { APP + 0xbeef10, APP + 0xbeef40, APP + 0xbeef7f, APP + 0xbeef90 };
	struct kp_view *v;
	char syms_out[256] = "";

	for (int i = 0; i < 4; i++)
		assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, &pcs[i], 1), 0);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "app @0xbeef00", 0)->self == 3);
	assert_string_equal(must(v, "app @0xbeef00", 0)->module, "app");
	assert_true(must(v, "app @0xbeef80", 0)->self == 1);
	assert_null(row(v, "app+0xbeef10", 0));
	assert_int_equal(v->nr_rows, 2);
	kp_view__free(v);
	assert_int_equal(kp_model__foreach_symbol(c->m, fde_sym_visit, syms_out), 0);
	assert_string_equal(syms_out, "0xbeef00/0x11/ 0xbeef00/0x41/ 0xbeef00/0x80/ 0xbeef80/0x11/ ");
	r.symtab.path = "/bin/app";
	r.symtab.nr_syms = 1;
	r.symtab.syms = syms;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "late_fde", 0)->self == 1);
	assert_true(must(v, "app @0xbeef00", 0)->self == 3);
	assert_null(row(v, "app @0xbeef80", 0));
	kp_view__free(v);
}

/* A replay: code the resolver can say nothing of (0xdead..: no name, no
 * start) that the stream's SYMTAB gives as a function without a name at
 * 0xdead00, up to 0xdead4f: its pcs are "app @0xdead00", one row, the
 * SYMTAB come before the samples (as a replay feeds it) or after; a pc
 * past the symbol stays an address; a save gives the symbol again. */
static void symtab_unnamed(struct ctx *c, int table_first)
{
	struct kp_symbol syms[] = { { 0xdead00, 0x50, "" } };
	struct kp_record r = { .type = KP_REC_SYMTAB };
	uint64_t pcs[] = { APP + 0xdead10, APP + 0xdead4f, APP + 0xdead50 };
	char syms_out[256] = "";
	struct kp_view *v;

	r.symtab.path = "/bin/app";
	r.symtab.nr_syms = 1;
	r.symtab.syms = syms;
	if (table_first)
		assert_int_equal(kp_model__feed(c->m, &r), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, &pcs[i], 1), 0);
	if (!table_first)
		assert_int_equal(kp_model__feed(c->m, &r), 0);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "app @0xdead00", 0)->self == 2);
	assert_true(must(v, "app+0xdead50", 0)->self == 1);
	assert_int_equal(v->nr_rows, 2);
	kp_view__free(v);
	assert_int_equal(kp_model__foreach_symbol(c->m, fde_sym_visit, syms_out), 0);
	assert_string_equal(syms_out, "0xdead00/0x11/ 0xdead00/0x50/ ");
}

static void test_symtab_unnamed_first(void **state)
{
	symtab_unnamed(*state, 1);
}

static void test_symtab_unnamed_late(void **state)
{
	symtab_unnamed(*state, 0);
}

/* A debug file came (the resolver's names_epoch grew): at the next
 * refresh, frames named "module+0xoffset" before are named again, their
 * source line too, in the modules that got better; nothing is asked
 * again while the epoch stays. */
static void test_renamed(void **state)
{
	struct ctx *c = *state;
	uint64_t pcs[] = { U(0xdead), U(0xdead), U(2) }, same = 0x90000000 + 0xdead10;
	const struct kp_row *r;
	struct kp_view *v;
	int calls;

	assert_int_equal(feed_mmap(c->m, 100, 0x90000000, 0x1000000, 0, "/bin/same", 9), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, &same, 1), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs, 1), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs + 1, 2), 0);
	kp_model__refresh(c->m, S(1));
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "app+0xdead10", 0)->self == 2);
	kp_view__free(v);
	calls = c->f.symbolize_calls;
	kp_model__refresh(c->m, S(2));	/* the same epoch: nothing asked */
	assert_int_equal(c->f.symbolize_calls, calls);
	c->f.better = 1;
	c->f.epoch++;
	kp_model__refresh(c->m, S(3));
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "late_fn", 0)->self == 2);
	assert_null(row(v, "app+0xdead10", 0));
	assert_true(must(v, "fn_2", 0)->total == 1);	/* strong: kept */
	assert_non_null(row(v, "same+0xdead10", 0));	/* not better: not asked */
	kp_view__free(v);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	r = must(v, "late_fn", 2);	/* under fn_2 */
	assert_true(r->self == 1);
	assert_non_null(r->source);
	assert_string_equal(r->source, "late.c:42");
	kp_view__free(v);
}

/* JIT code sampled before its runtime wrote its map entry (V8 buffers
 * its jitdump): when the JIT epoch grows (a JIT map was read), a
 * JIT frame that named no function is asked again through its live
 * process's mapping; a named one is not; a gone process's is not. */
static void test_jit_renamed(void **state)
{
	struct ctx *c = *state;
	uint64_t jit = 0x70000000, pcs[] = { jit + 0xdead10, jit + 0x1210 };
	struct kp_record r = { .type = KP_REC_EXIT };
	struct kp_view *v;
	int calls;

	assert_int_equal(feed_mmap(c->m, 100, jit, 0x1000000, 0, "//anon", 0), 0);
	assert_int_equal(feed_mmap(c->m, 101, jit, 0x1000000, 0, "//anon", 0), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs, 2), 0);
	assert_int_equal(feed_sample(c->m, 101, 101, S(1), 0, 0, NULL, 0, pcs, 1), 0);
	kp_model__refresh(c->m, S(1));
	r.exit.pid = r.exit.tid = 101;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	calls = c->f.symbolize_calls;
	c->f.better = 1;
	c->f.jit_epoch++;
	kp_model__refresh(c->m, S(2));
	/* one ask: 100's unnamed key; not fn_12's, not gone 101's */
	assert_int_equal(c->f.symbolize_calls, calls + 1);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	assert_true(must(v, "late_fn", 2)->self == 1);	/* under fn_12 */
	kp_view__free(v);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "anon+0xdead10", 0)->self == 1);	/* 101's */
	kp_view__free(v);
}

/* The symbols a save would write of pid 100's JIT code: "GEN/NAME "
 * each, in ctx. */
static int jit_sym_visit(void *ctx, const char *path, const uint8_t *bid, uint8_t bl,
			 uint64_t addr, uint64_t size, const char *name,
			 const struct kp_jit_owner *owner)
{
	char *out = ctx;

	(void)bid, (void)bl, (void)addr, (void)size;
	if (!strcmp(path, "//anon") && owner && owner->pid == 100 && owner->start_ns == 77)
		snprintf(out + strlen(out), 256 - strlen(out), "%u/%s ", owner->gen, name);
	return 0;
}

/* JIT code replaced at the same address (jitgen.c): the check finds the
 * process (the key at 0x1210 named fn_12 is fn_12_new now), the JITGEN
 * record fed back starts its next generation: the samples before keep
 * fn_12, those after are fn_12_new; the waiting stacks were named before
 * the map was read again; a save's symbols carry each generation's
 * owner; nothing more is found until the map changes again. */
static void test_jit_generation(void **state)
{
	struct ctx *c = *state;
	uint64_t jit = 0x70000000, pcs[] = { jit + 0x1210 }, same[] = { jit + 0x1310 };
	struct kp_rec_jitgen g[4];
	struct kp_record r = { .type = KP_REC_JITGEN };
	char syms[256] = "";
	struct kp_view *v;

	assert_int_equal(feed_process(c->m, 100, 77, "node"), 0);
	assert_int_equal(feed_mmap(c->m, 100, jit, 0x1000000, 0, "//anon", 0), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs, 1), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, same, 1), 0);
	assert_int_equal(kp_model__jit_check(c->m, g, 4), 0);	/* nothing changed */
	c->f.jit_change = 100;
	c->f.jit_start = 77;
	assert_int_equal(kp_model__jit_check(c->m, g, 4), 1);
	assert_int_equal(c->f.befores, 1);
	assert_int_equal(g[0].owner.pid, 100);
	assert_int_equal(g[0].owner.start_ns, 77);
	assert_int_equal(g[0].owner.gen, 1);
	r.jitgen = g[0];
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(feed_sample(c->m, 100, 100, S(2), 0, 0, NULL, 0, pcs, 1), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(2), 0, 0, NULL, 0, same, 1), 0);
	assert_int_equal(kp_model__jit_check(c->m, g, 4), 0);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "fn_12", 0)->self == 2);
	assert_true(must(v, "fn_12_new", 0)->self == 3);
	assert_true(must(v, "fn_13", 0)->self == 2);	/* in both: one function */
	kp_view__free(v);
	v = view(c->m, KP_VIEW_MODULE, KP_SORT_SELF, 0);
	assert_true(must(v, "anon", 0)->self == 7);	/* and one module row */
	kp_view__free(v);
	assert_int_equal(kp_model__foreach_symbol(c->m, jit_sym_visit, syms), 0);
	assert_non_null(strstr(syms, "0/fn_12 "));
	assert_non_null(strstr(syms, "1/fn_12_new "));
	assert_null(strstr(syms, "0/fn_12_new"));
}

/* A replay: SYMTABs of one process's JIT code per generation name its
 * samples on each side of its JITGEN record; another process's anonymous
 * code at the same address is named by neither. */
static void test_jit_generation_replay(void **state)
{
	struct ctx *c = *state;
	static const struct kp_symbol old[] = { { 0x1200, 0x100, "gen0_fn" } };
	static const struct kp_symbol new[] = { { 0x1200, 0x100, "gen1_fn" } };
	uint64_t jit = 0x70000000, pcs[] = { jit + 0x1210 };
	struct kp_record t = { .type = KP_REC_SYMTAB }, r = { .type = KP_REC_JITGEN };
	struct kp_view *v;

	t.symtab = (struct kp_rec_symtab){ .path = "//anon", .nr_syms = 1, .syms = old,
					   .owner = { 100, 77, 0 } };
	assert_int_equal(kp_model__feed(c->m, &t), 0);
	t.symtab.syms = new;
	t.symtab.owner.gen = 1;
	assert_int_equal(kp_model__feed(c->m, &t), 0);
	assert_int_equal(feed_process(c->m, 100, 77, "node"), 0);
	assert_int_equal(feed_process(c->m, 101, 78, "node"), 0);
	assert_int_equal(feed_mmap(c->m, 100, jit, 0x1000000, 0, "//anon", 0), 0);
	assert_int_equal(feed_mmap(c->m, 101, jit, 0x1000000, 0, "//anon", 0), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs, 1), 0);
	r.jitgen = (struct kp_rec_jitgen){ S(1), { 100, 77, 1 } };
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	r.jitgen.owner.start_ns = 1;	/* another identity: ignored */
	r.jitgen.owner.gen = 2;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(feed_sample(c->m, 100, 100, S(2), 0, 0, NULL, 0, pcs, 1), 0);
	assert_int_equal(feed_sample(c->m, 101, 101, S(2), 0, 0, NULL, 0, pcs, 1), 0);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_true(must(v, "gen0_fn", 0)->self == 1);
	assert_true(must(v, "gen1_fn", 0)->self == 2);
	assert_true(must(v, "fn_12", 0)->self == 1);	/* 101's, by the resolver */
	kp_view__free(v);
}

static void test_return_address(void **state)
{
	struct ctx *c = *state;
	uint64_t pcs[] = { APP + 0x1200, APP + 0x1200 };
	struct kp_view *v;

	/* leaf at 0x1200 is in fn_12; as a return address it is a call
	 * from fn_11 (named at 0x11ff) */
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs, 2), 0);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	assert_non_null(row(v, "fn_11", 1));
	assert_non_null(row(v, "fn_12", 2));
	kp_view__free(v);
}

static void test_shared_frames(void **state)
{
	struct ctx *c = *state;
	uint64_t pc1 = U(7), pc2 = 0x7000000 + 0x710;
	struct kp_view *v;
	int calls;

	assert_int_equal(feed_process(c->m, 300, 1, "twin"), 0);
	assert_int_equal(feed_mmap(c->m, 300, 0x7000000, 0x1000000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, &pc1, 1), 0);
	settle(c->m);
	calls = c->f.symbolize_calls;
	assert_true(calls > 0);
	assert_int_equal(feed_sample(c->m, 300, 300, S(1), 0, 0, NULL, 0, &pc2, 1), 0);
	settle(c->m);
	assert_int_equal(c->f.symbolize_calls, calls);
	v = view(c->m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	assert_int_equal(v->nr_rows, 1);
	assert_int_equal(v->rows[0].nr_procs, 2);
	assert_true(v->rows[0].self == 2);
	assert_null(v->rows[0].comm);
	kp_view__free(v);
}

static void test_inlined(void **state)
{
	struct ctx *c = *state;
	uint64_t pcs[] = { U(0x77), U(1) };
	struct kp_view *v;
	const struct kp_row *r;

	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, pcs, 2), 0);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	assert_false(must(v, "fn_77", 2)->inlined);
	r = must(v, "inl_inner", 3);
	assert_true(r->inlined);
	assert_true(r->self == 1);
	assert_string_equal(r->source, "inl.h:7");
	kp_view__free(v);
}

/* A sample of pid 100 with registers and the frame-pointer stack *fp;
 * the fake resolver unwinds it to fn_4, fn_3. */
static struct kp_record regs_sample(struct ctx *c, const uint64_t *fp)
{
	struct kp_record r = { .type = KP_REC_SAMPLE };

	c->f.unwind_pcs[0] = U(4);
	c->f.unwind_pcs[1] = U(3);
	c->f.nr_unwind = 2;
	r.sample.pid = r.sample.tid = 100;
	r.sample.flags = KP_SAMPLE_REGS;
	r.sample.nr_regs = 17;
	r.sample.uframes = fp;
	r.sample.nr_uframes = 1;
	return r;
}

static void test_unwind(void **state)
{
	struct ctx *c = *state;
	uint64_t fp = U(1);
	struct kp_record r = regs_sample(c, &fp);
	struct kp_model_summary sum;
	struct kp_view *v;

	assert_int_equal(kp_model__feed(c->m, &r), 0);
	r.sample.flags = 0;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	assert_int_equal(c->f.unwind_calls, 1);
	kp_model__summary(c->m, &sum);
	assert_int_equal(sum.unwound_dwarf, 1);
	assert_int_equal(sum.unwound_fp, 1);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	assert_true(must(v, "fn_3", 1)->total == 1);
	assert_true(must(v, "fn_4", 2)->self == 1);
	assert_true(must(v, "fn_1", 1)->self == 1);
	kp_view__free(v);
}

/* A DWARF unwind that stops early is a drop counted in samples (an
 * off-CPU record: its intervals), as every drop, whatever the weight:
 * not in the microseconds a record weighs in off or wall weight. */
static void test_unwind_drops_count(void **state)
{
	struct ctx *c = *state;
	uint64_t fp = U(1);
	struct kp_record r = regs_sample(c, &fp), o = { .type = KP_REC_OFFCPU };
	struct kp_model_summary sum;

	c->f.unwind_trunc = 1;
	r.sample.weight = 3;		/* three samples coalesced */
	o.offcpu.s = r.sample;
	o.offcpu.s.weight = 0;
	o.offcpu.off_ns = 5000000;	/* 5 ms: 5000 us of weight */
	o.offcpu.count = 2;
	o.offcpu.state = KP_OFF_SLEEP;
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	kp_model__summary(c->m, &sum);
	assert_true(sum.lost[KP_LOST_UNWIND] == 3);
	kp_model__set_weight(c->m, KP_WEIGHT_WALL);
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	assert_int_equal(kp_model__feed(c->m, &o), 0);
	kp_model__summary(c->m, &sum);
	assert_true(sum.lost[KP_LOST_UNWIND] == 3 + 3 + 2);
	kp_model__set_weight(c->m, KP_WEIGHT_OFF);
	assert_int_equal(kp_model__feed(c->m, &o), 0);
	kp_model__summary(c->m, &sum);
	assert_true(sum.lost[KP_LOST_UNWIND] == 3 + 3 + 2 + 2);
	assert_true(sum.unwound_dwarf > 5000);	/* weighed: the unwound share */
}

struct visit_ctx {
	int stacks;
	double count;
	char last[256];
};

static int visit(void *ctx, const struct kp_stack_visit *v)
{
	struct visit_ctx *x = ctx;
	size_t i;

	x->stacks++;
	x->count += v->count;
	x->last[0] = 0;
	for (i = 0; i < v->depth; i++) {
		strcat(x->last, v->frames[i]->name);
		strcat(x->last, ";");
	}
	return 0;
}

static int sym_visit(void *ctx, const char *path, const uint8_t *bid, uint8_t bl,
		     uint64_t addr, uint64_t size, const char *name,
		     const struct kp_jit_owner *owner)
{
	int *n = ctx;

	if (!strcmp(path, "/bin/app") && addr == 0x310 && !strcmp(name, "fn_3"))
		n[0]++;
	n[1]++;
	return 0;
}

static void test_foreach(void **state)
{
	struct ctx *c = *state;
	struct visit_ctx x = { 0 };
	int n[2] = { 0, 0 };

	shared_prefix(c->m);
	assert_int_equal(kp_model__foreach_stack(c->m, visit, &x), 0);
	assert_int_equal(x.stacks, 3);
	assert_true(x.count == 6);
	assert_string_equal(x.last, "fn_1;fn_5;");
	assert_int_equal(kp_model__foreach_symbol(c->m, sym_visit, n), 0);
	assert_int_equal(n[0], 1);	/* fn_3 is a leaf: named at 0x310 */
	assert_int_equal(n[1], 5);	/* 0x10f, 0x20f (calls), 0x310, 0x410, 0x510 */
}

/* ---- properties over random streams ---- */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_tree(const struct kp_view *v)
{
	double root = 0;
	size_t i;

	for (i = 0; i < v->nr_rows; i++) {
		const struct kp_row *r = &v->rows[i];

		if (r->depth == 0)
			root = r->total;
		assert_true(r->total + 1e-9 >= r->self);
		assert_true(r->total <= root + 1e-9);
	}
}

static void random_run(uint64_t seed, size_t max_nodes, int decay)
{
	struct fake f = { 0 };
	struct kp_model *m = fake_model(&f, max_nodes);
	struct kp_view *v;
	double self = 0, expect = 0;
	size_t i;
	int n;

	assert_non_null(m);
	if (decay)
		kp_model__set_time_mode(m, KP_TIME_DECAY, 0);
	feed_process(m, 1, 1, "a");
	feed_process(m, 2, 1, "b");
	feed_mmap(m, 1, APP, 0x1000000, 0, "/bin/app", 1);
	feed_mmap(m, 2, APP, 0x1000000, 0, "/bin/app", 1);
	for (n = 0; n < 3000; n++) {
		uint64_t pcs[12];
		int d = 1 + (int)(rnd(&seed) % 12), j;

		for (j = 0; j < d; j++)
			pcs[j] = U(rnd(&seed) % 6);
		assert_int_equal(feed_sample(m, 1 + (uint32_t)(rnd(&seed) % 2), 7, S(1), 0,
					     0, NULL, 0, pcs, d), 0);
		expect += 1;
		if (decay && n % 500 == 499) {
			kp_model__refresh(m, S(2));
			expect *= 7.0 / 8.0;
		}
	}
	v = view(m, KP_VIEW_FLAT, KP_SORT_SELF, 0);
	for (i = 0; i < v->nr_rows; i++) {
		self += v->rows[i].self;
		assert_true(v->rows[i].total + 1e-9 >= v->rows[i].self);
		assert_true(v->rows[i].total <= v->total + 1e-9);
	}
	if (!(self > expect - 1e-6 && self < expect + 1e-6))
		fail_msg("seed %llu max_nodes %zu decay %d: self %f expected %f",
			 (unsigned long long)seed, max_nodes, decay, self, expect);
	kp_view__free(v);
	v = view(m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, 0);
	check_tree(v);
	kp_view__free(v);
	v = view(m, KP_VIEW_BOTTOMUP, KP_SORT_TOTAL, 0);
	check_tree(v);
	kp_view__free(v);
	kp_model__free(m);
}

static void test_properties(void **state)
{
	uint64_t seed;

	for (seed = 1; seed < 6; seed++) {
		random_run(seed * 0x9e3779b97f4a7c15ull, 0, 0);
		random_run(seed * 0x9e3779b97f4a7c15ull, 100, 0);
		random_run(seed * 0x9e3779b97f4a7c15ull, 0, 1);
	}
}

static void test_view_ids_stable(void **state)
{
	struct ctx *c = *state;
	const int s[] = { 1, 2, 3 }, t[] = { 1, 4 };
	struct kp_view *v1, *v2;
	uint64_t id3;

	ustack(c->m, 100, 100, S(1), 3, s);
	v1 = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	id3 = must(v1, "fn_3", 3)->id;
	ustack(c->m, 100, 100, S(1), 2, t);
	ustack(c->m, 100, 100, S(1), 2, t);
	v2 = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	assert_int_equal(must(v2, "fn_3", 3)->id, id3);
	assert_true(must(v2, "fn_4", 2)->id != must(v2, "fn_2", 2)->id);
	kp_view__free(v1);
	kp_view__free(v2);
}

static int collapse_fn2(void *ctx, uint64_t id)
{
	return id != *(uint64_t *)ctx;
}

static void test_expanded(void **state)
{
	struct ctx *c = *state;
	const int s[] = { 1, 2, 3 };
	struct kp_view_opts o = { .kind = KP_VIEW_TOPDOWN, .expanded = collapse_fn2 };
	struct kp_view *v;
	uint64_t id;

	ustack(c->m, 100, 100, S(1), 3, s);
	v = view(c->m, KP_VIEW_TOPDOWN, KP_SORT_SELF, 0);
	id = must(v, "fn_2", 2)->id;
	kp_view__free(v);
	o.expanded_ctx = &id;
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	assert_true(must(v, "fn_2", 2)->has_children);
	assert_null(row(v, "fn_3", 3));
	assert_int_equal(v->nr_rows, 3);
	kp_view__free(v);

	/* bottom-up: collapse fn_3's callers */
	o.kind = KP_VIEW_BOTTOMUP;
	o.expanded = NULL;
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	id = must(v, "fn_3", 0)->id;
	assert_non_null(row(v, "fn_2", 1));
	kp_view__free(v);
	o.expanded = collapse_fn2;
	assert_int_equal(kp_model__view(c->m, &o, &v), 0);
	assert_true(must(v, "fn_3", 0)->has_children);
	assert_null(row(v, "fn_2", 1));
	kp_view__free(v);
}

static void test_module_view(void **state)
{
	struct ctx *c = *state;
	uint64_t k[] = { K(1) }, u[] = { U(2), U(1) };
	struct kp_view *v;

	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, k, 1, u, 2), 0);
	assert_int_equal(feed_sample(c->m, 100, 100, S(1), 0, 0, NULL, 0, u, 2), 0);
	v = view(c->m, KP_VIEW_MODULE, KP_SORT_SELF, 0);
	assert_int_equal(v->nr_rows, 2);
	assert_true(must(v, "app", 0)->total == 2);
	assert_true(must(v, "app", 0)->self == 1);
	assert_true(must(v, "[kernel]", 0)->self == 1);
	kp_view__free(v);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_shared_prefix), T(test_recursion), T(test_bottomup),
		T(test_threads_cgroups), T(test_exec_pid_reuse), T(test_decay),
		T(test_window), T(test_window_many), T(test_weights), T(test_zero), T(test_baseline), T(test_delta_sort),
		T(test_filters), T(test_focus), cmocka_unit_test(test_node_limit),
		cmocka_unit_test(test_wide_node),
		cmocka_unit_test(test_wide_after_fold),
		T(test_hiding), T(test_unknown_pid), T(test_junk_callers), T(test_symtab_and_unknown),
		T(test_late_symtab), T(test_fde_start), T(test_symtab_unnamed_first),
		T(test_symtab_unnamed_late), T(test_renamed),
		T(test_jit_renamed), T(test_jit_generation), T(test_jit_generation_replay),
		T(test_return_address),
		T(test_shared_frames),
		T(test_symtab_agrees), T(test_inlined), T(test_unwind), T(test_unwind_drops_count),
		T(test_foreach),
		cmocka_unit_test(test_properties), T(test_view_ids_stable),
		T(test_expanded), T(test_module_view),
		cmocka_unit_test(test_fold_base_window),
		cmocka_unit_test(test_fold_window_remap), T(test_sort_name_max_rows),
		T(test_mmap_overlap), cmocka_unit_test(test_mmap_random),
		T(test_placeholder_adopted), T(test_foreach_filtered),
		T(test_fork_inherits_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
