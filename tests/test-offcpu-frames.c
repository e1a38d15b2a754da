// SPDX-License-Identifier: GPL-2.0-only
/* test-offcpu-frames.c — the state and waker frames of off-CPU intervals
 * (src/model/offcpu.c), with new stacks hung at once and deferred.
 *
 * A thread blocked in read (user fn_1 → fn_2, kernel k_1 → k_2) is
 * counted, in off-CPU weight, under its stacks and then "[S sleeping]"
 * and "[woken by feeder 42]"; a preempted one under "[R preempted]"
 * with no waker; the kernel's other state bits by value. Intervals
 * that differ only in their waker are two stacks; CPU samples get none
 * of these frames; every frame the names make is counted once. A wakeup
 * in interrupt context is the interrupt's, whatever task it interrupted.
 * Past KP_WAKER_PIDS_MAX wakers with a pid, one is named by its command.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../tests/model-fake.h"

#define APP 0x400000ull
#define KA 0xffffffff81000000ull

struct find {
	const char *tail;	/* the end of the stack's text looked for */
	double count;		/* its count, -1 while not found */
	int found;		/* stacks that end so */
};

static int visit(void *ctx, const struct kp_stack_visit *v)
{
	struct find *x = ctx;
	char text[512] = "";
	size_t i, l, lt = strlen(x->tail);

	for (i = 0; i < v->depth; i++) {
		strcat(text, v->frames[i]->name);
		strcat(text, i + 1 < v->depth ? ";" : "");
	}
	l = strlen(text);
	if (l >= lt && !strcmp(text + l - lt, x->tail)) {
		x->count = v->count;
		x->found++;
	}
	return 0;
}

static struct kp_model *setup_model(struct fake *f, int defer)
{
	struct kp_model_opts o = { .resolver = { .ops = &fake_ops, .ctx = f },
				   .defer_stacks = defer };
	struct kp_model *m = kp_model__new(&o);

	assert_non_null(m);
	kp_model__set_weight(m, KP_WEIGHT_OFF);
	assert_int_equal(feed_process(m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(m, 100, APP, 0x10000, 0, "/bin/app", 7), 0);
	return m;
}

static int feed_off_flags(struct kp_model *m, uint32_t state, const char *waker,
			  uint32_t waker_pid, uint64_t off_ns, uint32_t flags)
{
	static const uint64_t k[] = { KA + 0x200, KA + 0x100 };	/* k_..2, k_..1 */
	static const uint64_t u[] = { APP + 0x210, APP + 0x110 };
	struct kp_record r = { .type = KP_REC_OFFCPU };

	r.offcpu.s.pid = 100;
	r.offcpu.s.tid = 101;
	r.offcpu.s.time_ns = 1000;
	snprintf(r.offcpu.s.comm, sizeof(r.offcpu.s.comm), "reader");
	r.offcpu.s.kframes = k;
	r.offcpu.s.nr_kframes = 2;
	r.offcpu.s.uframes = u;
	r.offcpu.s.nr_uframes = 2;
	r.offcpu.off_ns = off_ns;
	r.offcpu.count = 1;
	r.offcpu.state = state;
	r.offcpu.waker_pid = r.offcpu.waker_tid = waker_pid;
	snprintf(r.offcpu.waker_comm, sizeof(r.offcpu.waker_comm), "%s", waker);
	r.offcpu.s.flags = flags;
	return kp_model__feed(m, &r);
}

static int feed_off(struct kp_model *m, uint32_t state, const char *waker,
		    uint32_t waker_pid, uint64_t off_ns)
{
	return feed_off_flags(m, state, waker, waker_pid, off_ns, 0);
}

/* The count of the one stack whose text ends in tail; -1 when none. */
static double count_of(struct kp_model *m, const char *tail)
{
	struct find x = { .tail = tail, .count = -1 };

	assert_int_equal(kp_model__foreach_stack(m, visit, &x), 0);
	assert_true(x.found <= 1);
	return x.count;
}

static void states_and_wakers(int defer)
{
	struct fake f = { 0 };
	struct kp_model *m = setup_model(&f, defer);
	char k1[32], k2[32], stk[160];

	snprintf(k1, sizeof(k1), "k_%llx", (unsigned long long)(KA + 0x100) / 0x100);
	snprintf(k2, sizeof(k2), "k_%llx", (unsigned long long)(KA + 0x200) / 0x100);
	assert_int_equal(feed_off(m, KP_OFF_SLEEP, "feeder", 42, 5000000), 0);
	assert_int_equal(feed_off(m, KP_OFF_SLEEP, "feeder", 42, 3000000), 0);
	assert_int_equal(feed_off(m, KP_OFF_SLEEP, "other", 43, 2000000), 0);
	assert_int_equal(feed_off(m, KP_OFF_RUNNABLE, "", 0, 1000000), 0);
	assert_int_equal(feed_off(m, 0x40, "", 0, 7000000), 0);
	/* a timer's interrupt, on an idle CPU and on a busy one (that task
	 * woke one itself just before: the cache tells them apart) */
	assert_int_equal(feed_off(m, KP_OFF_SLEEP, "spinner", 77, 100000), 0);
	assert_int_equal(feed_off_flags(m, KP_OFF_SLEEP, "swapper/1", 0, 500000,
					KP_SAMPLE_WAKER_IRQ), 0);
	assert_int_equal(feed_off_flags(m, KP_OFF_SLEEP, "spinner", 77, 250000,
					KP_SAMPLE_WAKER_IRQ), 0);
	assert_true(count_of(m, "[S sleeping];[woken by interrupt]") == 750);
	assert_true(count_of(m, "[S sleeping];[woken by spinner 77]") == 100);
	snprintf(stk, sizeof(stk), "fn_1;fn_2;%s;%s;[S sleeping];[woken by feeder 42]", k1, k2);
	assert_true(count_of(m, stk) == 8000);	/* microseconds */
	assert_true(count_of(m, "[S sleeping];[woken by other 43]") == 2000);
	snprintf(stk, sizeof(stk), "%s;%s;[R preempted]", k1, k2);
	assert_true(count_of(m, stk) == 1000);
	assert_true(count_of(m, ";[state 0x40]") == 7000);
	kp_model__free(m);
}

static void test_frames(void **state)
{
	(void)state;
	states_and_wakers(0);
}

static void test_frames_deferred(void **state)
{
	(void)state;
	states_and_wakers(1);
}

/* In wall weight a CPU sample of the same thread ends at its own leaf. */
static void test_cpu_samples_plain(void **state)
{
	static const uint64_t u[] = { APP + 0x210, APP + 0x110 };
	struct fake f = { 0 };
	struct kp_model *m = setup_model(&f, 1);

	(void)state;
	kp_model__set_weight(m, KP_WEIGHT_WALL);
	assert_int_equal(feed_sample(m, 100, 101, 2000, 0, 0, NULL, 0, u, 2), 0);
	assert_int_equal(feed_off(m, KP_OFF_DISK, "kworker/0:1", 9, 4000000), 0);
	assert_true(count_of(m, "fn_1;fn_2") > 0);
	assert_true(count_of(m, ";[D uninterruptible];[woken by kworker/0:1 9]") == 4000);
	kp_model__free(m);
}

/* Past KP_WAKER_PIDS_MAX wakers named with a pid, by command alone. */
static void test_waker_bound(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = setup_model(&f, 0);
	uint32_t i;

	(void)state;
	for (i = 0; i < 4096 + 10; i++)
		assert_int_equal(feed_off(m, KP_OFF_SLEEP, "sh", 1000 + i, 1000000), 0);
	assert_true(count_of(m, "[woken by sh 1000]") == 1000);
	assert_true(count_of(m, "[woken by sh 5095]") == 1000);	/* the 4096th */
	assert_true(count_of(m, "[woken by sh 5096]") < 0);
	assert_true(count_of(m, "[woken by sh]") == 10000);
	kp_model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_frames_deferred),
		cmocka_unit_test(test_cpu_samples_plain),
		cmocka_unit_test(test_waker_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
