// SPDX-License-Identifier: GPL-2.0-only
/* test-flame.c — cmocka tests of the flame view (KP_VIEW_FLAME,
 * src/model/view-flame.c): boxes per command, their widths and offsets,
 * the zoom path, min_share, filters, hidden frames, kinds, the baseline
 * and boxes merged from several processes, on hand-built records with
 * the fake resolver. */
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
#define U(x) (APP + (uint64_t)(x) * 0x100 + 0x10)	/* pc in fn_<x> */
#define K(x) (0xffffffff81000000ull + (uint64_t)(x) * 0x100 + 0x8)
#define NS 1000000000ull

struct ctx {
	struct fake f;
	struct kp_model *m;
};

static void proc(struct kp_model *m, uint32_t pid, const char *comm)
{
	assert_int_equal(feed_process(m, pid, pid, comm), 0);
	assert_int_equal(feed_mmap(m, pid, APP, 0x1000000, 0, "/bin/app", 1), 0);
}

/* n samples of a user stack given outermost first, kernel pcs innermost
 * first. */
static void stack(struct kp_model *m, uint32_t pid, int n, int nu, const int *fns,
		  int nk, const int *kfns)
{
	uint64_t u[16], k[16];

	for (int i = 0; i < nu; i++)
		u[nu - 1 - i] = U(fns[i]);
	for (int i = 0; i < nk; i++)
		k[i] = K(kfns[i]);
	for (int i = 0; i < n; i++)
		assert_int_equal(feed_sample(m, pid, pid, NS, 0, 0, k, nk, u, nu), 0);
}

/* app 100: fn_1 -> fn_2 -> fn_3 x3, fn_1 -> fn_2 -> fn_4 x1, fn_1 -> fn_5
 * x2; app 200 (the same comm): fn_1 -> fn_5 x2; zed 300: fn_6 x2. */
static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	const int a[] = { 1, 2, 3 }, b[] = { 1, 2, 4 }, d[] = { 1, 5 }, z[] = { 6 };

	assert_non_null(c);
	c->m = fake_model(&c->f, 0);
	assert_non_null(c->m);
	proc(c->m, 100, "app");
	proc(c->m, 200, "app");
	proc(c->m, 300, "zed");
	stack(c->m, 100, 3, 3, a, 0, NULL);
	stack(c->m, 100, 1, 3, b, 0, NULL);
	stack(c->m, 100, 2, 2, d, 0, NULL);
	stack(c->m, 200, 2, 2, d, 0, NULL);
	stack(c->m, 300, 2, 1, z, 0, NULL);
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

static struct kp_view *flame(struct kp_model *m, const uint64_t *zoom, size_t n,
			     double min_share)
{
	struct kp_view_opts o = { .kind = KP_VIEW_FLAME, .zoom = zoom, .zoom_len = n,
				  .min_share = min_share };
	struct kp_view *v = NULL;

	assert_int_equal(kp_model__view(m, &o, &v), 0);
	assert_non_null(v);
	return v;
}

static const struct kp_row *box(const struct kp_view *v, const char *name, int depth)
{
	for (size_t i = 0; i < v->nr_rows; i++)
		if (!strcmp(v->rows[i].name, name) && v->rows[i].depth == depth)
			return &v->rows[i];
	fail_msg("no box %s at depth %d", name, depth);
	return NULL;
}

static int has_box(const struct kp_view *v, const char *name)
{
	for (size_t i = 0; i < v->nr_rows; i++)
		if (!strcmp(v->rows[i].name, name))
			return 1;
	return 0;
}

#define near(a, b) assert_true((a) > (b) - 1e-9 && (a) < (b) + 1e-9)

static void place(const struct kp_row *r, double x, double w)
{
	if (r->x < x - 1e-9 || r->x > x + 1e-9 || r->w < w - 1e-9 || r->w > w + 1e-9)
		fail_msg("%s at depth %d: x %.4f w %.4f, want %.4f %.4f", r->name, r->depth,
			 r->x, r->w, x, w);
}

static void test_layout(void **state)
{
	struct ctx *c = *state;
	struct kp_view *v = flame(c->m, NULL, 0, 0);
	const struct kp_row *app;

	assert_int_equal(v->nr_rows, 9);
	assert_string_equal(v->rows[0].name, "all");
	assert_int_equal(v->rows[0].depth, 0);
	assert_int_equal(v->zoom_depth, 0);
	near(v->rows[0].total, 10);
	place(&v->rows[0], 0, 1);
	/* the two processes of app are one box, before zed (by name) */
	app = box(v, "app", 1);
	place(app, 0, 0.8);
	assert_int_equal(app->nr_procs, 2);
	assert_int_equal(app->pid, 0);
	assert_int_equal(app->kind, KP_KIND_PROCESS);
	assert_true(app < box(v, "zed", 1));
	place(box(v, "zed", 1), 0.8, 0.2);
	assert_int_equal(box(v, "zed", 1)->pid, 300);
	assert_int_equal(box(v, "fn_6", 2)->pid, 300);
	place(box(v, "fn_1", 2), 0, 0.8);
	/* siblings by name, call sites of one function merged */
	place(box(v, "fn_2", 3), 0, 0.4);
	place(box(v, "fn_5", 3), 0.4, 0.4);
	near(box(v, "fn_5", 3)->self, 4);
	place(box(v, "fn_3", 4), 0, 0.3);
	place(box(v, "fn_4", 4), 0.3, 0.1);
	assert_int_equal(box(v, "fn_4", 4)->kind, KP_KIND_USER);
	assert_string_equal(box(v, "fn_4", 4)->module, "app");
	assert_true(box(v, "fn_2", 3)->has_children);
	assert_false(box(v, "fn_4", 4)->has_children);
	/* depth first: a box's children follow it */
	assert_true(box(v, "fn_2", 3) + 1 == box(v, "fn_3", 4));
	kp_view__free(v);
}

static void test_zoom(void **state)
{
	struct ctx *c = *state;
	struct kp_view *v = flame(c->m, NULL, 0, 0);
	uint64_t path[4] = { box(v, "app", 1)->id, box(v, "fn_1", 2)->id,
			     box(v, "fn_2", 3)->id, 0 };

	kp_view__free(v);
	v = flame(c->m, path, 3, 0);
	assert_int_equal(v->zoom_depth, 3);
	assert_int_equal(v->nr_rows, 6);	/* all, app, fn_1, fn_2, fn_3, fn_4 */
	place(box(v, "all", 0), 0, 1);
	place(box(v, "app", 1), 0, 1);
	place(box(v, "fn_2", 3), 0, 1);
	place(box(v, "fn_3", 4), 0, 0.75);
	place(box(v, "fn_4", 4), 0.75, 0.25);
	assert_false(has_box(v, "zed"));
	assert_false(has_box(v, "fn_5"));
	assert_int_equal(box(v, "fn_2", 3)->id, path[2]);
	kp_view__free(v);

	/* a path that leaves the view: the deepest box found is the zoom */
	path[1] = 12345;
	v = flame(c->m, path, 3, 0);
	assert_int_equal(v->zoom_depth, 1);
	place(box(v, "fn_1", 2), 0, 1);
	place(box(v, "fn_5", 3), 0.5, 0.5);
	kp_view__free(v);
}

static void test_min_share(void **state)
{
	struct ctx *c = *state;
	struct kp_view *v = flame(c->m, NULL, 0, 0.15);

	/* fn_4 (0.1) is not made; its room stays empty at fn_2's end */
	assert_false(has_box(v, "fn_4"));
	place(box(v, "fn_3", 4), 0, 0.3);
	place(box(v, "fn_5", 3), 0.4, 0.4);
	assert_int_equal(v->nr_rows, 8);
	kp_view__free(v);
}

static void test_filters_and_kinds(void **state)
{
	struct ctx *c = *state;
	struct kp_filter flt = { .pid = 300 };
	const int u[] = { 7 }, k[] = { 9 };
	struct kp_view *v;

	assert_int_equal(kp_model__set_filter(c->m, &flt), 0);
	v = flame(c->m, NULL, 0, 0);
	assert_int_equal(v->nr_rows, 3);
	place(box(v, "zed", 1), 0, 1);
	kp_view__free(v);

	/* a kernel frame under user fn_7: hidden, its self goes to fn_7 */
	stack(c->m, 300, 2, 1, u, 1, k);
	v = flame(c->m, NULL, 0, 0);
	assert_int_equal(box(v, "k_ffffffff810009", 3)->kind, KP_KIND_KERNEL);
	place(box(v, "fn_7", 2), 0.5, 0.5);
	kp_view__free(v);
	flt.hide_kernel = 1;
	assert_int_equal(kp_model__set_filter(c->m, &flt), 0);
	v = flame(c->m, NULL, 0, 0);
	assert_false(has_box(v, "k_ffffffff810009"));
	near(box(v, "fn_7", 2)->self, 2);
	kp_view__free(v);
	/* hidden user frames: the kernel frame hangs from the command, the
	 * user-only stacks are the command's self */
	flt.hide_kernel = 0;
	flt.hide_user = 1;
	assert_int_equal(kp_model__set_filter(c->m, &flt), 0);
	v = flame(c->m, NULL, 0, 0);
	assert_int_equal(v->nr_rows, 3);
	place(box(v, "k_ffffffff810009", 2), 0, 0.5);
	near(box(v, "zed", 1)->self, 2);
	kp_view__free(v);
}

static void test_baseline(void **state)
{
	struct ctx *c = *state;
	const int a[] = { 1, 2, 3 };
	struct kp_view *v;

	kp_model__baseline_mark(c->m);
	stack(c->m, 100, 5, 3, a, 0, NULL);
	v = flame(c->m, NULL, 0, 0);
	near(v->total, 5);
	near(v->base_total, 10);
	near(box(v, "fn_3", 4)->base_total, 3);
	near(box(v, "fn_3", 4)->total, 5);
	place(box(v, "fn_3", 4), 0, 1);
	/* only in the baseline: no width, no box */
	assert_false(has_box(v, "zed"));
	kp_view__free(v);
}

/* Boxes made of several trie nodes (three processes of one comm), whose
 * children are gathered from all of them, at several levels. */
static void test_merged_children(void **state)
{
	struct ctx *c = *state;
	const int a[] = { 8, 9, 10 }, b[] = { 8, 11 }, d[] = { 8, 9, 12 }, e[] = { 8, 9 };
	struct kp_filter flt = { .comm = "multi" };
	struct kp_view *v;

	for (uint32_t p = 500; p <= 502; p++)
		proc(c->m, p, "multi");
	stack(c->m, 500, 1, 3, a, 0, NULL);
	stack(c->m, 500, 2, 2, b, 0, NULL);
	stack(c->m, 501, 3, 3, a, 0, NULL);
	stack(c->m, 501, 1, 3, d, 0, NULL);
	stack(c->m, 502, 4, 2, b, 0, NULL);
	stack(c->m, 502, 5, 2, e, 0, NULL);
	assert_int_equal(kp_model__set_filter(c->m, &flt), 0);
	v = flame(c->m, NULL, 0, 0);
	assert_int_equal(v->nr_rows, 7);	/* all, multi, 8, 9, 10, 12, 11 */
	assert_int_equal(box(v, "multi", 1)->nr_procs, 3);
	near(box(v, "fn_8", 2)->total, 16);
	near(box(v, "fn_9", 3)->total, 10);
	near(box(v, "fn_9", 3)->self, 5);
	near(box(v, "fn_a", 4)->total, 4);
	near(box(v, "fn_c", 4)->total, 1);
	near(box(v, "fn_b", 3)->total, 6);
	place(box(v, "fn_a", 4), 0, 0.25);
	place(box(v, "fn_c", 4), 0.25, 0.0625);
	place(box(v, "fn_b", 3), 0.625, 0.375);
	kp_view__free(v);
	/* the same with fn_c (1 of 16) too narrow: the others stay put */
	v = flame(c->m, NULL, 0, 0.07);
	assert_int_equal(v->nr_rows, 6);
	place(box(v, "fn_b", 3), 0.625, 0.375);
	near(box(v, "fn_a", 4)->total, 4);
	kp_view__free(v);
}

static void test_empty(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = fake_model(&f, 0);
	struct kp_view *v = flame(m, NULL, 0, 0);

	assert_int_equal(v->nr_rows, 0);
	kp_view__free(v);
	kp_model__free(m);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_layout), T(test_zoom), T(test_min_share),
		T(test_filters_and_kinds), T(test_baseline), T(test_merged_children),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
