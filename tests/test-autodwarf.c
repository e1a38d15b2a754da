// SPDX-License-Identifier: GPL-2.0-only
/* test-autodwarf.c — the auto unwind glue over a fake resolver and a
 * link-time fake of kp_collector__mark_dwarf: a process whose
 * frame-pointer stacks reach _start (or __libc_start_call_main one frame
 * in) is never marked; one whose stacks stop short is marked once;
 * samples with only the leaf words keep their fp stack (-ENOTSUP) or get
 * a frameless leaf's caller back (link-time fakes of the symbols layer);
 * full stack copies go to the real unwinder; names pass straight through. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pump/autodwarf.h"
#include "unwind/unwind.h"

static uint32_t marked[16];
static int nr_marked, inner_unwinds, fixes;
static int symbolize_calls, function_calls;

/* Link-time fake of the unwinder: the leaf fix puts 0x2222 after fp[0]. */
int kp_unwinder__fix_leaf(struct kp_unwinder *u, uint32_t pid,
			  const struct kp_unwind_map *maps, size_t nr_maps,
			  const uint64_t *regs, int nr_regs,
			  const uint8_t *stack, size_t len,
			  uint64_t *fp, int n, int max)
{
	(void)u; (void)pid; (void)regs; (void)nr_regs; (void)stack; (void)len;
	assert_int_equal(nr_maps, 1);
	/* no path made up front: the mapping rides along for the path fn */
	assert_null(maps[0].path);
	assert_non_null(maps[0].src);
	fixes++;
	if (fp[0] != 0x3010 || n >= max)
		return n;
	memmove(fp + 2, fp + 1, (size_t)(n - 1) * sizeof(*fp));
	fp[1] = 0x2222;
	return n + 1;
}

/* Link-time fake of the unwinder's verdict, by the fake resolver's
 * layout (below): reached when the outermost pc, or the one before it,
 * is in _start (0x1000) or __libc_start_call_main (0x4000). */
static int unwinder_judged;

int kp_unwinder__reaches_entry(struct kp_unwinder *u, uint32_t pid,
			       const struct kp_unwind_map *maps, size_t nr_maps,
			       const uint64_t *pcs, int n)
{
	(void)u; (void)pid;
	assert_true(nr_maps >= 1 && nr_maps <= 2);
	assert_non_null(maps[0].src);
	assert_int_equal(maps[0].start, 0);
	assert_int_equal(maps[0].end, 0x10000);
	unwinder_judged++;
	for (int i = n >= 2 ? n - 2 : 0; i < n; i++) {
		uint64_t page = (pcs[i] - (i > 0)) >> 12;

		if (page == 1 || page == 4 || page == 15)
			return 1;
	}
	return 0;
}

/* Link-time fake of the unwinder's frame-pointer verdict on a module:
 * what fake_keeps_fp says (-1: cannot tell, as for most tests). */
static int fake_keeps_fp = -1, keeps_fp_calls;

int kp_unwinder__keeps_fp(struct kp_unwinder *u, const struct kp_unwind_map *m)
{
	(void)u;
	assert_non_null(m->src);
	keeps_fp_calls++;
	return fake_keeps_fp;
}

static uint32_t unmarked[16];
static int nr_unmarked;

int kp_collector__mark_dwarf(struct kp_collector *c, uint32_t pid, int on)
{
	(void)c;
	if (!on) {
		assert_true(nr_unmarked < 16);
		unmarked[nr_unmarked++] = pid;
		return 0;
	}
	assert_true(nr_marked < 16);
	marked[nr_marked++] = pid;
	return 0;
}

/* Names by address: 0x1000 _start, 0x2000 main, 0x3000 hot,
 * 0x4000 __libc_start_call_main, else unknown. */
static int fake_symbolize(void *ctx, const struct kp_map_info *map,
			  uint64_t addr, struct kp_frame_info *out, int max)
{
	static const char *const names[] = { NULL, "_start", "main", "hot",
					     "__libc_start_call_main" };
	uint64_t i = (addr - map->addr) >> 12;

	(void)ctx;
	symbolize_calls++;
	memset(out, 0, sizeof(*out) * (size_t)max);
	if (i == 0 || i >= sizeof(names) / sizeof(names[0]))
		return 0;
	out[0].name = names[i];
	return 1;
}

/* The cheap op: the same names, counted apart. */
static int fake_function(void *ctx, const struct kp_map_info *m, uint64_t addr,
			 const char **name, uint64_t span[2])
{
	struct kp_frame_info fi;
	int n;

	n = fake_symbolize(ctx, m, addr, &fi, 1);
	symbolize_calls--;
	function_calls++;
	*name = fi.name;
	if (span)
		span[0] = span[1] = 0;
	return n;
}

static int fake_unwind(void *ctx, const struct kp_rec_sample *s,
		       const struct kp_map_info *maps, size_t nr_maps,
		       uint64_t *pcs, int max, int *truncated)
{
	(void)ctx; (void)s; (void)maps; (void)nr_maps; (void)max;
	inner_unwinds++;
	pcs[0] = 0x3010;
	*truncated = 0;
	return 1;
}

static const struct kp_resolver_ops fake_ops = {
	.symbolize = fake_symbolize, .unwind = fake_unwind,
};
static const struct kp_resolver_ops fake_ops_fn = {
	.symbolize = fake_symbolize, .unwind = fake_unwind,
	.function = fake_function,
};

static const struct kp_map_info map = { .addr = 0, .len = 0x10000, .path = "/bin/x" };

static uint64_t now_ns = 1000000000ull;	/* sample times, 10 ms apart */

static int run(struct kp_resolver r, uint32_t pid, const uint64_t *uf,
	       uint16_t nu, uint32_t stack_len)
{
	static const uint8_t stack[8192];
	struct kp_rec_sample s = { .time_ns = now_ns += 10000000ull,
		.pid = pid, .tid = pid, .uframes = uf,
		.nr_uframes = nu, .flags = KP_SAMPLE_REGS, .nr_regs = 17,
		.stack = stack, .stack_len = stack_len };
	uint64_t pcs[KP_MAX_FRAMES];
	int trunc = 0;

	return r.ops->unwind(r.ctx, &s, &map, 1, pcs, KP_MAX_FRAMES, &trunc);
}

/* Stacks, innermost first: hot main _start; hot and an unknown caller. */
static const uint64_t whole[] = { 0x3010, 0x2010, 0x1010 };
static const uint64_t cut[] = { 0x3010, 0x5010 };
static int dummy_collector;

/* The glue over the fake resolver; *r is its resolver. */
static struct kp_autodwarf *glue(struct kp_resolver *r)
{
	struct kp_resolver inner = { &fake_ops, NULL };
	struct kp_autodwarf *a = kp_autodwarf__new(inner);

	assert_non_null(a);
	*r = kp_autodwarf__resolver(a);
	return a;
}

static void test_marking(void **state)
{
	static const uint64_t junk[] = { 0x3010, 0x2010, 0x4010, 0x9999 };
	struct kp_resolver r;
	struct kp_autodwarf *a = glue(&r);

	(void)state;
	nr_marked = inner_unwinds = 0;
	/* before the collector exists nothing is marked */
	assert_int_equal(run(r, 7, cut, 2, 64), -ENOTSUP);
	assert_int_equal(nr_marked, 0);
	kp_autodwarf__set_collector(a, (struct kp_collector *)&dummy_collector);
	for (int i = 0; i < 50; i++) {
		assert_int_equal(run(r, 5, whole, 3, KP_UNWIND_LEAF_BYTES), -ENOTSUP);
		assert_int_equal(run(r, 6, junk, 4, KP_UNWIND_LEAF_BYTES), -ENOTSUP);
		assert_int_equal(run(r, 7, cut, 2, KP_UNWIND_LEAF_BYTES), -ENOTSUP);
	}
	assert_int_equal(nr_marked, 1);		/* pid 7, once */
	assert_int_equal(marked[0], 7);
	/* short stacks in a process's first 50 ms (the dynamic loader) and
	 * a few among many that reach the entry mark nothing */
	for (int i = 0; i < 4; i++) {
		now_ns -= 9000000ull;	/* 1 ms apart */
		assert_int_equal(run(r, 8, cut, 2, KP_UNWIND_LEAF_BYTES), -ENOTSUP);
	}
	for (int i = 0; i < 20; i++) {
		assert_int_equal(run(r, 9, whole, 3, KP_UNWIND_LEAF_BYTES), -ENOTSUP);
		if (i % 4 == 0)
			assert_int_equal(run(r, 9, cut, 2, KP_UNWIND_LEAF_BYTES), -ENOTSUP);
	}
	assert_int_equal(nr_marked, 1);
	assert_int_equal(kp_autodwarf__marked(a), 1);
	assert_int_equal(inner_unwinds, 0);
	/* a marked process's full copies are unwound with CFI */
	assert_int_equal(run(r, 7, cut, 2, 8192), 1);
	assert_int_equal(inner_unwinds, 1);
	kp_autodwarf__free(a);
}

/* With the inner resolver's cheap function op, the stacks are judged by
 * it alone: full names are never asked for as samples come. */
static void test_function_op(void **state)
{
	struct kp_resolver inner = { &fake_ops_fn, NULL }, r;
	struct kp_autodwarf *a = kp_autodwarf__new(inner);

	(void)state;
	assert_non_null(a);
	r = kp_autodwarf__resolver(a);
	kp_autodwarf__set_collector(a, (struct kp_collector *)&dummy_collector);
	nr_marked = symbolize_calls = function_calls = 0;
	for (int i = 0; i < 50; i++) {
		assert_int_equal(run(r, 15, whole, 3, KP_UNWIND_LEAF_BYTES), -ENOTSUP);
		assert_int_equal(run(r, 17, cut, 2, KP_UNWIND_LEAF_BYTES), -ENOTSUP);
	}
	assert_int_equal(nr_marked, 1);
	assert_int_equal(marked[0], 17);
	assert_true(function_calls > 0);
	assert_int_equal(symbolize_calls, 0);
	kp_autodwarf__free(a);
}

/* With the unwinder, the stacks are judged by its rule (entry ranges and
 * CFI): no name is asked of the resolver as samples come. */
static void test_unwinder_judges(void **state)
{
	static const uint64_t junk[] = { 0x3010, 0x2010, 0x4010, 0x9999 };
	/* calls in the mapping's last bytes: the return addresses are its
	 * end, and their map is found by pc - 1 */
	static const uint64_t at_end[] = { 0x3010, 0x10000, 0x10000 };
	struct kp_resolver inner = { &fake_ops_fn, NULL }, r;
	struct kp_autodwarf *a = kp_autodwarf__new(inner);
	int dummy;

	(void)state;
	assert_non_null(a);
	r = kp_autodwarf__resolver(a);
	kp_autodwarf__set_collector(a, (struct kp_collector *)&dummy_collector);
	kp_autodwarf__set_unwinder(a, (struct kp_unwinder *)&dummy);
	nr_marked = symbolize_calls = function_calls = unwinder_judged = 0;
	for (int i = 0; i < 50; i++) {
		run(r, 21, whole, 3, KP_UNWIND_LEAF_BYTES);
		run(r, 22, junk, 4, KP_UNWIND_LEAF_BYTES);
		run(r, 23, cut, 2, KP_UNWIND_LEAF_BYTES);
		run(r, 24, at_end, 3, KP_UNWIND_LEAF_BYTES);
	}
	assert_int_equal(nr_marked, 1);
	assert_int_equal(marked[0], 23);
	assert_true(unwinder_judged > 0);
	assert_int_equal(function_calls, 0);
	assert_int_equal(symbolize_calls, 0);
	kp_autodwarf__free(a);
}

/* A process whose sampled code's file is built without frame pointers
 * (the unwinder's verdict on its CFI) is marked at its first short stack,
 * in its first 50 ms; one with frame pointers, or a whole stack, is not. */
static void test_mark_early(void **state)
{
	struct kp_resolver inner = { &fake_ops_fn, NULL }, r;
	struct kp_autodwarf *a = kp_autodwarf__new(inner);
	int dummy;

	(void)state;
	assert_non_null(a);
	r = kp_autodwarf__resolver(a);
	kp_autodwarf__set_collector(a, (struct kp_collector *)&dummy_collector);
	kp_autodwarf__set_unwinder(a, (struct kp_unwinder *)&dummy);
	nr_marked = keeps_fp_calls = 0;
	fake_keeps_fp = 1;		/* built with frame pointers */
	run(r, 41, cut, 2, KP_UNWIND_LEAF_BYTES);
	assert_int_equal(nr_marked, 0);
	assert_true(keeps_fp_calls > 0);
	fake_keeps_fp = 0;		/* without */
	run(r, 42, whole, 3, KP_UNWIND_LEAF_BYTES);	/* reaches the entry */
	assert_int_equal(nr_marked, 0);
	run(r, 43, cut, 2, KP_UNWIND_LEAF_BYTES);	/* the first sample */
	assert_int_equal(nr_marked, 1);
	assert_int_equal(marked[0], 43);
	run(r, 43, cut, 2, KP_UNWIND_LEAF_BYTES);
	assert_int_equal(nr_marked, 1);			/* once */
	fake_keeps_fp = -1;
	kp_autodwarf__free(a);
}

/* Exit or exec: the pid is unmarked, and what runs under it next is
 * judged from scratch (its own settle time, its own counts). */
static void test_pid_reuse(void **state)
{
	struct kp_resolver r;
	struct kp_autodwarf *a = glue(&r);

	(void)state;
	kp_autodwarf__set_collector(a, (struct kp_collector *)&dummy_collector);
	nr_marked = nr_unmarked = 0;
	for (int i = 0; i < 10; i++)
		run(r, 11, cut, 2, KP_UNWIND_LEAF_BYTES);
	assert_int_equal(nr_marked, 1);
	r.ops->process_gone(r.ctx, 11, 1);
	assert_int_equal(nr_unmarked, 1);
	assert_int_equal(unmarked[0], 11);
	/* the new process's first 50 ms are not judged, then it is
	 * judged by its own stacks: short ones mark it again */
	for (int i = 0; i < 4; i++) {
		now_ns -= 9000000ull;	/* 1 ms apart */
		run(r, 11, cut, 2, KP_UNWIND_LEAF_BYTES);
	}
	assert_int_equal(nr_marked, 1);
	for (int i = 0; i < 10; i++)
		run(r, 11, cut, 2, KP_UNWIND_LEAF_BYTES);
	assert_int_equal(nr_marked, 2);
	/* a pid whose stacks reached the entry is checked again after it
	 * is gone (it stopped checking after 32 good stacks) */
	for (int i = 0; i < 40; i++)
		run(r, 12, whole, 3, KP_UNWIND_LEAF_BYTES);
	r.ops->process_gone(r.ctx, 12, 1);
	assert_int_equal(nr_unmarked, 1);	/* it was never marked */
	for (int i = 0; i < 10; i++)
		run(r, 12, cut, 2, KP_UNWIND_LEAF_BYTES);
	assert_int_equal(nr_marked, 3);
	kp_autodwarf__free(a);
}

/* Under churn: more pids come and go than the table has slots (4096);
 * an exited pid's slot is freed, so a new process is still judged and
 * marked (it was not once the table had filled: every new pid probed
 * the whole table and got no state). */
static void test_churn_pids(void **state)
{
	struct kp_resolver r;
	struct kp_autodwarf *a = glue(&r);

	(void)state;
	kp_autodwarf__set_collector(a, (struct kp_collector *)&dummy_collector);
	nr_marked = nr_unmarked = 0;
	for (uint32_t pid = 1000; pid < 21000; pid++) {
		run(r, pid, whole, 3, KP_UNWIND_LEAF_BYTES);
		r.ops->process_gone(r.ctx, pid, 1);
	}
	assert_int_equal(nr_marked, 0);
	for (int i = 0; i < 10; i++)
		run(r, 30000, cut, 2, KP_UNWIND_LEAF_BYTES);
	assert_int_equal(nr_marked, 1);
	assert_int_equal(marked[0], 30000);
	kp_autodwarf__free(a);
}

/* Under churn, with samples that come after their process's exit (the
 * exit was handled first): those pids get slots no exit frees; the ones
 * not sampled for a second are freed, so the table does not fill and a
 * new process is still judged and marked. A marked process idle for a
 * minute is unmarked and judged afresh. */
static void test_late_samples(void **state)
{
	struct kp_resolver r;
	struct kp_autodwarf *a = glue(&r);

	(void)state;
	kp_autodwarf__set_collector(a, (struct kp_collector *)&dummy_collector);
	nr_marked = nr_unmarked = 0;
	for (int i = 0; i < 10; i++)
		run(r, 40, cut, 2, KP_UNWIND_LEAF_BYTES);
	assert_int_equal(nr_marked, 1);
	for (uint32_t pid = 1000; pid < 21000; pid++) {
		run(r, pid, whole, 3, KP_UNWIND_LEAF_BYTES);
		r.ops->process_gone(r.ctx, pid, 1);
		run(r, pid, whole, 3, KP_UNWIND_LEAF_BYTES);	/* late */
	}
	assert_int_equal(nr_unmarked, 1);
	assert_int_equal(unmarked[0], 40);
	for (int i = 0; i < 10; i++)
		run(r, 30000, cut, 2, KP_UNWIND_LEAF_BYTES);
	assert_int_equal(nr_marked, 2);
	assert_int_equal(marked[1], 30000);
	kp_autodwarf__free(a);
}

static void test_leaf_fix(void **state)
{
	static const uint64_t leaf[] = { 0x3010, 0x1010 };	/* hot _start */
	static const uint64_t other[] = { 0x2010, 0x1010 };	/* main _start */
	static const uint8_t stack[64];
	struct kp_resolver r;
	struct kp_autodwarf *a = glue(&r);
	struct kp_rec_sample s = { .pid = 9, .tid = 9, .uframes = leaf,
		.nr_uframes = 2, .flags = KP_SAMPLE_REGS, .nr_regs = 17,
		.stack = stack, .stack_len = sizeof(stack) };
	uint64_t pcs[KP_MAX_FRAMES];
	int trunc = 1, dummy;

	(void)state;
	fixes = 0;
	/* without an unwinder: the fp stack as it came */
	assert_int_equal(r.ops->unwind(r.ctx, &s, &map, 1, pcs, KP_MAX_FRAMES, &trunc), -ENOTSUP);
	kp_autodwarf__set_unwinder(a, (struct kp_unwinder *)&dummy);
	assert_int_equal(r.ops->unwind(r.ctx, &s, &map, 1, pcs, KP_MAX_FRAMES, &trunc), 3);
	assert_true(pcs[0] == 0x3010 && pcs[1] == 0x2222 && pcs[2] == 0x1010);
	assert_int_equal(trunc, 0);
	/* a second sample in the same mapping */
	assert_int_equal(r.ops->unwind(r.ctx, &s, &map, 1, pcs, KP_MAX_FRAMES, &trunc), 3);
	/* nothing to put back: the model keeps the fp stack */
	s.uframes = other;
	assert_int_equal(r.ops->unwind(r.ctx, &s, &map, 1, pcs, KP_MAX_FRAMES, &trunc), -ENOTSUP);
	assert_int_equal(fixes, 3);
	assert_int_equal(kp_autodwarf__leaf_fixed(a), 2);
	kp_autodwarf__free(a);
}

static void test_names_pass_through(void **state)
{
	struct kp_resolver r;
	struct kp_autodwarf *a = glue(&r);
	struct kp_frame_info fi[4];

	(void)state;
	assert_int_equal(r.ops->symbolize(r.ctx, &map, 0x2004, fi, 4), 1);
	assert_string_equal(fi[0].name, "main");
	assert_null(r.ops->module_name(r.ctx, &map, 0x2004));	/* inner has none */
	r.ops->process_gone(r.ctx, 5, 1);
	kp_autodwarf__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function_op),
		cmocka_unit_test(test_unwinder_judges),
		cmocka_unit_test(test_marking),
		cmocka_unit_test(test_mark_early),
		cmocka_unit_test(test_pid_reuse),
		cmocka_unit_test(test_churn_pids),
		cmocka_unit_test(test_late_samples),
		cmocka_unit_test(test_leaf_fix),
		cmocka_unit_test(test_names_pass_through),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
