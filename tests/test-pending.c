// SPDX-License-Identifier: GPL-2.0-only
/* test-pending.c — cmocka tests of the deferred mode of the model
 * (kp_model_opts.defer_stacks, src/model/pending.c): new stacks are
 * counted at once and named late, with the mappings they were sampled
 * in, and every answer is the one the eager model gives. */
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
#define U(x) (APP + (uint64_t)(x) * 0x100 + 0x10)	/* pc in fn_<x> (pgoff 0) */
#define K(x) (0xffffffff81000000ull + (uint64_t)(x) * 0x100 + 0x8)

static struct kp_model *new_model(struct fake *f, int defer, size_t max_nodes)
{
	struct kp_model_opts o = { .max_nodes = max_nodes, .defer_stacks = defer,
				   .resolver = { .ops = &fake_ops, .ctx = f } };
	struct kp_model *m = kp_model__new(&o);

	assert_non_null(m);
	return m;
}

static void feed_exit(struct kp_model *m, uint32_t pid)
{
	struct kp_record r = { .type = KP_REC_EXIT };

	r.exit.pid = r.exit.tid = pid;
	assert_int_equal(kp_model__feed(m, &r), 0);
}

/* The self count of function name in the flat view, -1 if absent. */
static double self_of(struct kp_model *m, const char *name)
{
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT, .sort = KP_SORT_SELF };
	struct kp_view *v;
	double self = -1;

	assert_int_equal(kp_model__view(m, &o, &v), 0);
	for (size_t i = 0; i < v->nr_rows; i++)
		if (!strcmp(v->rows[i].name, name))
			self = v->rows[i].self;
	kp_view__free(v);
	return self;
}

static size_t waiting_bytes(const struct kp_model *m)
{
	struct kp_model_mem mem[64];
	size_t n = kp_model__mem(m, mem, 64), i;

	for (i = 0; i < n && i < 64; i++)
		if (!strcmp(mem[i].name, "waiting stacks"))
			return mem[i].used;
	fail_msg("no \"waiting stacks\" in kp_model__mem");
	return 0;
}

/* Samples are counted as they come; names only when a reader asks. */
static void test_named_late(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = new_model(&f, 1, 0);
	uint64_t a[] = { U(1), U(2) }, b[] = { U(3), U(2) }, k[] = { K(4) };
	struct kp_model_summary sum;
	int i;

	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x100000, 0, "/bin/app", 1), 0);
	for (i = 0; i < 300; i++) {
		assert_int_equal(feed_sample(m, 100, 100, (uint64_t)i, 0, 0, NULL, 0,
					     i % 3 ? a : b, 2), 0);
		assert_int_equal(feed_sample(m, 100, 100, (uint64_t)i, 0, 0, k, 1,
					     a, 2), 0);
	}
	assert_int_equal(f.symbolize_calls, 0);
	assert_true(waiting_bytes(m) > 0);
	kp_model__summary(m, &sum);
	assert_int_equal(sum.samples, 600);
	assert_true(f.symbolize_calls > 0);
	assert_int_equal(waiting_bytes(m), 0);
	assert_true(self_of(m, "fn_1") == 200);
	assert_true(self_of(m, "fn_3") == 100);
	assert_true(self_of(m, "k_ffffffff810004") == 300);
	kp_model__free(m);
}

/* The waiting stacks' room (what the memory budget counts) is given back
 * once a big batch of them is hung; a small one keeps its room. */
static size_t waiting_room(const struct kp_model *m)
{
	struct kp_model_mem mem[64];
	size_t n = kp_model__mem(m, mem, 64), i;

	for (i = 0; i < n && i < 64; i++)
		if (!strcmp(mem[i].name, "waiting stacks"))
			return mem[i].bytes;
	fail_msg("no \"waiting stacks\" in kp_model__mem");
	return 0;
}

static void test_room_given_back(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = new_model(&f, 1, 0);
	struct kp_model_summary sum;
	uint64_t u[8];
	int i, j;

	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x100000, 0, "/bin/app", 1), 0);
	for (i = 0; i < 20000; i++) {	/* 20,000 new stacks of 8 pcs */
		for (j = 0; j < 8; j++)	/* every (leaf, caller) distinct */
			u[j] = U(j == 0 ? i % 4000 : j == 1 ? 4001 + i / 4000 : 4010 + j);
		assert_int_equal(feed_sample(m, 100, 100, (uint64_t)i, 0, 0, NULL, 0,
					     u, 8), 0);
	}
	assert_true(waiting_room(m) > (1u << 20));
	kp_model__summary(m, &sum);
	assert_int_equal(sum.samples, 20000);
	assert_int_equal(waiting_bytes(m), 0);
	assert_true(waiting_room(m) <= (256u << 10));
	kp_model__free(m);
}

/* A stack sampled before its mapping was replaced is named with the old
 * mapping (fake names come from the file offset: pgoff differs). */
static void test_old_mappings(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = new_model(&f, 1, 0);
	uint64_t pc = U(5);

	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x100000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_sample(m, 100, 100, 1, 0, 0, NULL, 0, &pc, 1), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x100000, 0x10000, "/lib/b.so", 2), 0);
	/* another thread: the same raw stack would be counted as the first */
	assert_int_equal(feed_sample(m, 100, 101, 2, 0, 0, NULL, 0, &pc, 1), 0);
	assert_true(self_of(m, "fn_5") == 1);		/* /bin/app at offset 0x500 */
	assert_true(self_of(m, "fn_105") == 1);		/* b.so at offset 0x10500 */
	kp_model__free(m);
}

/* An exiting process's user pcs become pc keys before the resolver
 * forgets it, their modules held; names, its kernel pcs (and the other
 * process's stack) wait. A resolver that holds nothing (no_hold) names
 * those user pcs then. */
static void named_before_gone(int no_hold)
{
	struct fake f = { .no_hold = no_hold };
	struct kp_model *m = new_model(&f, 1, 0);
	uint64_t pc = U(6), k = K(9);

	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_process(m, 200, 1, "other"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x100000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_mmap(m, 200, APP, 0x100000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_sample(m, 100, 100, 1, 0, 0, &k, 1, &pc, 1), 0);
	assert_int_equal(feed_sample(m, 200, 200, 1, 0, 0, NULL, 0, &pc, 1), 0);
	feed_exit(m, 100);
	assert_int_equal(f.gone_calls, 1);
	/* 100's user pc, not 200's */
	assert_int_equal(f.calls_at_gone, no_hold ? 1 : 0);
	assert_int_equal(f.holds, no_hold ? 0 : 1);
	assert_int_equal(f.kernel_calls, 0);	/* kernel names need no process */
	assert_true(self_of(m, "fn_6") == 1);
	assert_true(self_of(m, "k_ffffffff810009") == 1);
	assert_int_equal(f.kernel_calls, 1);
	assert_int_equal(f.held_calls, no_hold ? 0 : 1);
	assert_int_equal(f.releases, f.holds);	/* all released once named */
	kp_model__free(m);
}

static void test_named_before_gone(void **state)
{
	named_before_gone(0);
	named_before_gone(1);
}

/* A process's waiting stacks are looked for from its first one: those of
 * another process before and between them do not hide any, nor do they
 * after its mappings changed (its first one is then a later one). Every
 * user pc of 100 is named before it is gone, none of 200's. */
static void test_named_from_first(void **state)
{
	struct fake f = { .no_hold = 1 };
	struct kp_model *m = new_model(&f, 1, 0);
	uint64_t a = U(6), b = U(7), c = U(8), o[] = { U(9), U(10), U(11) };

	(void)state;
	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_process(m, 200, 1, "other"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x100000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_mmap(m, 200, APP, 0x100000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_sample(m, 200, 200, 1, 0, 0, NULL, 0, &o[0], 1), 0);
	assert_int_equal(feed_sample(m, 100, 100, 2, 0, 0, NULL, 0, &a, 1), 0);
	assert_int_equal(feed_sample(m, 200, 200, 3, 0, 0, NULL, 0, &o[1], 1), 0);
	assert_int_equal(feed_sample(m, 100, 100, 4, 0, 0, NULL, 0, &b, 1), 0);
	assert_int_equal(f.symbolize_calls, 0);
	/* a new mapping: 100's stacks so far are named with the old ones */
	assert_int_equal(feed_mmap(m, 100, APP + 0x200000, 0x100000, 0, "/lib/b.so", 5), 0);
	assert_int_equal(f.symbolize_calls, 2);
	assert_int_equal(feed_sample(m, 200, 200, 6, 0, 0, NULL, 0, &o[2], 1), 0);
	assert_int_equal(feed_sample(m, 100, 100, 7, 0, 0, NULL, 0, &c, 1), 0);
	feed_exit(m, 100);
	assert_int_equal(f.calls_at_gone, 3);
	assert_true(self_of(m, "fn_6") == 1);
	assert_true(self_of(m, "fn_7") == 1);
	assert_true(self_of(m, "fn_8") == 1);
	assert_true(self_of(m, "fn_9") == 1);	/* 200's, named late */
	kp_model__free(m);
}

/* A sample that comes after its process's exit is named with the gone
 * identity's mappings; the resolver, which takes the process up again to
 * name it, hears process_gone again after (else it keeps it for ever: a
 * live kptop under churn kept thousands). Not once the pid has a newer
 * identity (an exec: the same pid and start time; a reuse). */
static void test_late_sample_gone_again(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = new_model(&f, 1, 0);
	uint64_t a = U(6), b = U(7), c = U(8);
	struct kp_record r = { .type = KP_REC_EXEC };

	(void)state;
	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x100000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_sample(m, 100, 100, 2, 0, 0, NULL, 0, &a, 1), 0);
	feed_exit(m, 100);
	assert_int_equal(f.gone_calls, 1);
	assert_int_equal(feed_sample(m, 100, 100, 3, 0, 0, NULL, 0, &b, 1), 0);
	assert_true(self_of(m, "fn_7") == 1);
	assert_int_equal(f.gone_calls, 2);
	assert_int_equal(f.gone_pid, 100);
	/* an exec: the old identity is gone, the new one is not */
	assert_int_equal(feed_process(m, 200, 1, "sh"), 0);
	assert_int_equal(feed_mmap(m, 200, APP, 0x100000, 0, "/bin/app", 1), 0);
	r.exec.pid = r.exec.tid = 200;
	r.exec.comm = "app";
	assert_int_equal(kp_model__feed(m, &r), 0);
	assert_int_equal(f.gone_calls, 3);
	assert_int_equal(feed_mmap(m, 200, APP, 0x100000, 0, "/bin/app", 2), 0);
	assert_int_equal(feed_sample(m, 200, 200, 4, 0, 0, NULL, 0, &c, 1), 0);
	assert_true(self_of(m, "fn_8") == 1);
	assert_int_equal(f.gone_calls, 3);
	/* a late sample of a gone 300, named after its pid was reused: the
	 * resolver's process 300 is the new one now, left alone */
	assert_int_equal(feed_process(m, 300, 1, "app"), 0);
	assert_int_equal(feed_mmap(m, 300, APP, 0x100000, 0, "/bin/app", 1), 0);
	feed_exit(m, 300);
	assert_int_equal(f.gone_calls, 4);
	assert_int_equal(feed_sample(m, 300, 300, 5, 0, 0, NULL, 0, &a, 1), 0);
	assert_int_equal(feed_process(m, 300, 9, "other"), 0);
	assert_true(self_of(m, "fn_6") == 2);
	assert_int_equal(f.gone_calls, 4);
	kp_model__free(m);
}

/* Keys held for late names: one hold per module, released once named or
 * when the model is freed unread; anonymous code is named at once; a
 * key made late and met again in another process's stack is named once. */
static void test_held_modules(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = new_model(&f, 1, 0);
	uint64_t a[] = { U(1), U(2) }, jit = 0x7f0000000010ull;

	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_process(m, 200, 1, "app2"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x100000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_mmap(m, 100, 0x7f0000000000ull, 0x1000, 0, "//anon", 0), 0);
	assert_int_equal(feed_mmap(m, 200, APP, 0x100000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_sample(m, 100, 100, 1, 0, 0, NULL, 0, a, 2), 0);
	assert_int_equal(feed_sample(m, 100, 100, 2, 0, 0, NULL, 0, &jit, 1), 0);
	feed_exit(m, 100);
	assert_int_equal(f.holds, 1);		/* /bin/app once, not //anon */
	assert_int_equal(f.calls_at_gone, 1);	/* the anonymous pc */
	assert_int_equal(f.symbolize_calls, 1);
	assert_int_equal(feed_sample(m, 200, 200, 3, 0, 0, NULL, 0, a, 2), 0);
	assert_true(self_of(m, "fn_1") == 2);
	assert_int_equal(f.held_calls, 2);	/* fn_1, fn_2: named once */
	assert_int_equal(f.releases, 1);
	kp_model__free(m);

	memset(&f, 0, sizeof(f));
	m = new_model(&f, 1, 0);
	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x100000, 0, "/bin/app", 1), 0);
	assert_int_equal(feed_sample(m, 100, 100, 1, 0, 0, NULL, 0, a, 2), 0);
	feed_exit(m, 100);
	assert_int_equal(f.holds, 1);
	kp_model__free(m);			/* never read */
	assert_int_equal(f.releases, 1);
	assert_int_equal(f.held_calls, 0);
}

/* Waiting stacks are bounded: past 8 MiB they are hung without a reader. */
static void test_bounded(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = new_model(&f, 1, 0);
	uint64_t pcs[127];
	size_t most = 0, w;
	int i, j;

	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x1000000, 0, "/bin/app", 1), 0);
	for (i = 0; i < 12000; i++) {
		for (j = 0; j < 127; j++)
			pcs[j] = U((i * 7 + j) % 4000);
		pcs[0] = U(4000 + i);	/* every stack a new one */
		assert_int_equal(feed_sample(m, 100, 100, (uint64_t)i, 0, 0, NULL, 0,
					     pcs, 127), 0);
		w = waiting_bytes(m);
		most = w > most ? w : most;
	}
	assert_true(f.symbolize_calls > 0);
	assert_true(most <= (8u << 20) + 64 * 128 * 8);	/* a batch past the bound */
	assert_true(most >= (7u << 20));
	kp_model__free(m);
}

/* ---- the same answers as the eager model ---- */

struct folded {
	char **lines;
	size_t n, cap;
};

static int collect_line(void *ctx, const struct kp_stack_visit *v)
{
	struct folded *fo = ctx;
	char buf[4096];
	size_t len = 0, i;

	len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%u/%u", v->pid, v->tid);
	for (i = 0; i < v->depth && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, ";%s",
					v->frames[i]->name);
	if (len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, " %.0f", v->count);
	if (fo->n == fo->cap) {
		fo->cap = fo->cap ? fo->cap * 2 : 64;
		fo->lines = realloc(fo->lines, fo->cap * sizeof(*fo->lines));
		assert_non_null(fo->lines);
	}
	fo->lines[fo->n] = strdup(buf);
	assert_non_null(fo->lines[fo->n]);
	fo->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void folded_of(struct kp_model *m, struct folded *fo)
{
	memset(fo, 0, sizeof(*fo));
	assert_int_equal(kp_model__foreach_stack(m, collect_line, fo), 0);
	qsort(fo->lines, fo->n, sizeof(*fo->lines), cmp_str);
}

static void folded_free(struct folded *fo)
{
	for (size_t i = 0; i < fo->n; i++)
		free(fo->lines[i]);
	free(fo->lines);
}

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

/* One random record into both models. Mappings come and go (replaced at
 * random offsets), processes exit and are reborn with the same pid. */
static void random_record(struct kp_model *const *ms, uint64_t *seed, uint64_t t)
{
	uint32_t r = rnd(seed) % 100, pid = 100 + rnd(seed) % 4;
	uint64_t pcs[8], k[2] = { K(1), K(2 + rnd(seed) % 3) };
	int i, n = 1 + (int)(rnd(seed) % 8), nk = (int)(rnd(seed) % 3);

	for (i = 0; i < n; i++)
		pcs[i] = U(rnd(seed) % 12);
	for (i = 0; i < 2; i++) {
		struct kp_model *m = ms[i];

		if (r < 4) {
			assert_int_equal(feed_mmap(m, pid, APP, 0x100000,
						   (uint64_t)(r + 1) * 0x1000, "/bin/app",
						   r + 1), 0);
		} else if (r < 6) {
			feed_exit(m, pid);
			assert_int_equal(feed_process(m, pid, t, "reborn"), 0);
			assert_int_equal(feed_mmap(m, pid, APP, 0x100000, 0, "/bin/app",
						   1), 0);
		} else {
			assert_int_equal(feed_sample(m, pid, pid, t, 0, 0, nk ? k : NULL,
						     nk, pcs, n), 0);
		}
	}
}

static void test_same_answers(void **state)
{
	struct fake fe = { 0 }, fd = { 0 };
	struct kp_model *ms[2] = { new_model(&fe, 0, 0), new_model(&fd, 1, 0) };
	struct folded a, b;
	uint64_t seed = 42;
	uint32_t pid;
	int i, round;

	for (i = 0; i < 2; i++)
		for (pid = 100; pid < 104; pid++) {
			assert_int_equal(feed_process(ms[i], pid, 1, "app"), 0);
			assert_int_equal(feed_mmap(ms[i], pid, APP, 0x100000, 0,
						   "/bin/app", 1), 0);
		}
	for (round = 0; round < 4; round++) {
		for (i = 0; i < 3000; i++)
			random_record(ms, &seed, (uint64_t)(round * 3000 + i));
		folded_of(ms[0], &a);
		folded_of(ms[1], &b);
		assert_true(a.n > 20);
		assert_int_equal(a.n, b.n);
		for (size_t j = 0; j < a.n; j++)
			assert_string_equal(a.lines[j], b.lines[j]);
		folded_free(&a);
		folded_free(&b);
	}
	kp_model__free(ms[0]);
	kp_model__free(ms[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_late),
		cmocka_unit_test(test_room_given_back),
		cmocka_unit_test(test_old_mappings),
		cmocka_unit_test(test_named_before_gone),
		cmocka_unit_test(test_named_from_first),
		cmocka_unit_test(test_late_sample_gone_again),
		cmocka_unit_test(test_held_modules),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_same_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
