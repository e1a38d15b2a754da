// SPDX-License-Identifier: GPL-2.0-only
/* test-coalesce.c — cmocka tests of the collector's idle-run coalescing:
 * which samples merge into one weighted record, and that every sample
 * comes out once, in its CPU's order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "collect/coalesce.h"
#include "collect/emit.h"
#include "collect/queue.h"

#define MS 1000000ull
#define MAX_OUT 64

struct out {
	uint32_t cpu, weight, pid, tid;
	uint64_t time_ns;
	uint16_t nk;
	uint64_t k[4];
};

struct sink {
	struct out o[MAX_OUT];
	size_t n;
	int fail;		/* the callback refuses records: returns this */
};

static int collect(void *ctx, const struct kp_record *r, uint32_t cpu)
{
	struct sink *s = ctx;
	struct out *o = &s->o[s->n++];

	assert_true(s->n <= MAX_OUT);
	assert_int_equal(r->type, KP_REC_SAMPLE);
	o->cpu = cpu;
	o->weight = r->sample.weight ? r->sample.weight : 1;
	o->pid = r->sample.pid;
	o->tid = r->sample.tid;
	o->time_ns = r->sample.time_ns;
	o->nk = r->sample.nr_kframes;
	if (o->nk)	/* kframes is NULL without frames */
		memcpy(o->k, r->sample.kframes, o->nk * sizeof(uint64_t));
	return s->fail;
}

static uint64_t idle_k[4] = { 0xffffffff81000010ull, 0xffffffff81000020ull,
			      0xffffffff81000030ull, 0xffffffff81000040ull };

/* An idle sample of cpu at t, its kernel frames in k (idle_k copied). */
static struct kp_record idle_at(uint32_t cpu, uint64_t t, uint64_t *k)
{
	struct kp_record r = { .type = KP_REC_SAMPLE };

	memcpy(k, idle_k, sizeof(idle_k));
	r.sample.time_ns = t;
	r.sample.cpu = cpu;
	r.sample.flags = KP_SAMPLE_IDLE;
	r.sample.cgroup_id = 1;
	snprintf(r.sample.comm, sizeof(r.sample.comm), "swapper/%u", cpu);
	r.sample.nr_kframes = 4;
	r.sample.kframes = k;
	return r;
}

static struct kp_record busy_at(uint32_t cpu, uint64_t t, uint32_t pid)
{
	static uint64_t u[1] = { 0x401000 };
	struct kp_record r = { .type = KP_REC_SAMPLE };

	r.sample.time_ns = t;
	r.sample.cpu = cpu;
	r.sample.pid = r.sample.tid = pid;
	r.sample.flags = KP_SAMPLE_USER_MODE;
	strcpy(r.sample.comm, "work");
	r.sample.nr_uframes = 1;
	r.sample.uframes = u;
	return r;
}

static uint64_t total(const struct sink *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->o[i].weight;
	return n;
}

/* Five identical idle samples: one record of weight 5 at the first one's
 * time, only at the flush; a busy sample of the same CPU ends a run and
 * comes after it; a second flush emits nothing. */
static void test_run_and_order(void **state)
{
	struct kp_coalesce *co = kp_coalesce__new(2);
	struct sink s = { .n = 0 };
	uint64_t k[4];
	struct kp_record r;

	assert_non_null(co);
	for (int i = 0; i < 5; i++) {
		r = idle_at(0, 1000 * MS + (uint64_t)i * MS, k);
		assert_int_equal(kp_coalesce__sample(co, &r, 0, collect, &s), 0);
		k[0] = 0xdead;	/* the ring's memory is reused: a copy is kept */
	}
	assert_int_equal(s.n, 0);
	r = busy_at(0, 1010 * MS, 42);
	kp_coalesce__sample(co, &r, 0, collect, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.o[0].weight, 5);
	assert_int_equal(s.o[0].time_ns, 1000 * MS);
	assert_int_equal(s.o[0].nk, 4);
	assert_memory_equal(s.o[0].k, idle_k, sizeof(idle_k));
	assert_int_equal(s.o[1].pid, 42);
	assert_int_equal(s.o[1].weight, 1);

	r = idle_at(1, 1020 * MS, k);
	kp_coalesce__sample(co, &r, 1, collect, &s);
	r = idle_at(1, 1021 * MS, k);
	kp_coalesce__sample(co, &r, 1, collect, &s);
	assert_int_equal(kp_coalesce__flush(co, collect, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.o[2].cpu, 1);
	assert_int_equal(s.o[2].weight, 2);
	assert_int_equal(kp_coalesce__flush(co, collect, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(total(&s), 8);
	kp_coalesce__free(co);
}

/* CPUs hold runs of their own: samples of CPU 1 between those of CPU 0
 * do not end CPU 0's run. */
static void test_cpus_apart(void **state)
{
	struct kp_coalesce *co = kp_coalesce__new(2);
	struct sink s = { .n = 0 };
	uint64_t k0[4], k1[4];
	struct kp_record r;

	assert_non_null(co);
	for (int i = 0; i < 4; i++) {
		r = idle_at(0, (uint64_t)i * MS, k0);
		kp_coalesce__sample(co, &r, 0, collect, &s);
		r = idle_at(1, (uint64_t)i * MS, k1);
		kp_coalesce__sample(co, &r, 1, collect, &s);
	}
	kp_coalesce__flush(co, collect, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.o[0].cpu, 0);
	assert_int_equal(s.o[0].weight, 4);
	assert_int_equal(s.o[1].cpu, 1);
	assert_int_equal(s.o[1].weight, 4);
	kp_coalesce__free(co);
}

/* A run's last sample is less than 250 ms after its first. */
static void test_span(void **state)
{
	struct kp_coalesce *co = kp_coalesce__new(1);
	struct sink s = { .n = 0 };
	uint64_t k[4], t0 = 5000 * MS;
	struct kp_record r;

	assert_non_null(co);
	r = idle_at(0, t0, k);
	kp_coalesce__sample(co, &r, 0, collect, &s);
	r = idle_at(0, t0 + KP_COALESCE_SPAN_NS - 1, k);
	kp_coalesce__sample(co, &r, 0, collect, &s);
	assert_int_equal(s.n, 0);
	r = idle_at(0, t0 + KP_COALESCE_SPAN_NS, k);	/* starts a new run */
	kp_coalesce__sample(co, &r, 0, collect, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.o[0].weight, 2);
	r = idle_at(0, t0 + KP_COALESCE_SPAN_NS - 2, k);	/* time went back */
	kp_coalesce__sample(co, &r, 0, collect, &s);
	kp_coalesce__flush(co, collect, &s);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.o[1].time_ns, t0 + KP_COALESCE_SPAN_NS);
	assert_int_equal(s.o[1].weight, 1);
	assert_int_equal(s.o[2].weight, 1);
	kp_coalesce__free(co);
}

/* Every field but the time must be equal; samples with a user stack,
 * registers or stack bytes, or not idle, never merge. */
static void test_what_differs(void **state)
{
	struct kp_record a, b;
	uint64_t ka[4], kb[4];
	static const uint8_t stack[8];

	a = idle_at(0, 10 * MS, ka);
	a.sample.weight = 1;
	assert_true(kp_coalesce__can_start(&a.sample));
#define DIFFERS(change) do {						\
		b = idle_at(0, 11 * MS, kb);				\
		assert_true(kp_coalesce__joins(&a.sample, &b.sample));	\
		change;							\
		assert_false(kp_coalesce__joins(&a.sample, &b.sample));	\
	} while (0)
	DIFFERS(kb[3]++);
	DIFFERS(b.sample.nr_kframes = 3);
	DIFFERS(b.sample.cpu = 1);
	DIFFERS(b.sample.pid = 1);
	DIFFERS(b.sample.tid = 1);
	DIFFERS(b.sample.gpid = 1);
	DIFFERS(b.sample.gtid = 1);
	DIFFERS(b.sample.cgroup_id = 2);
	DIFFERS(b.sample.flags |= KP_SAMPLE_KTRUNC);
	DIFFERS(b.sample.kerr = -14);
	DIFFERS(b.sample.uerr = -14);
	DIFFERS(b.sample.comm[0] = 'S');
	DIFFERS((b.sample.nr_uframes = 1, b.sample.uframes = kb));
	DIFFERS(b.sample.nr_regs = KP_MAX_REGS);
	DIFFERS((b.sample.stack_len = 8, b.sample.stack = stack));
	DIFFERS(b.sample.weight = 2);
	DIFFERS(b.sample.time_ns = 9 * MS);
	DIFFERS(a.sample.weight = UINT32_MAX);
	a.sample.weight = 1;
#undef DIFFERS
	b = busy_at(0, 11 * MS, 7);
	assert_false(kp_coalesce__can_start(&b.sample));
	b = idle_at(0, 11 * MS, kb);
	b.sample.flags = 0;	/* the same stack, not the idle task */
	assert_false(kp_coalesce__can_start(&b.sample));
}

/* A busy sample is emitted at once; a CPU index past the table is too;
 * the callback's refusal comes back (it counts the drop). */
static void test_passthrough(void **state)
{
	struct kp_coalesce *co = kp_coalesce__new(1);
	struct sink s = { .n = 0 };
	uint64_t k[4];
	struct kp_record r;

	assert_non_null(co);
	r = busy_at(0, MS, 9);
	assert_int_equal(kp_coalesce__sample(co, &r, 0, collect, &s), 0);
	assert_int_equal(s.n, 1);
	r = idle_at(3, MS, k);
	kp_coalesce__sample(co, &r, 3, collect, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.o[1].cpu, 3);
	r = idle_at(0, MS, k);
	kp_coalesce__sample(co, &r, 0, collect, &s);
	kp_coalesce__sample(co, &r, 0, collect, &s);
	s.fail = -ENOBUFS;
	assert_int_equal(kp_coalesce__flush(co, collect, &s), -ENOBUFS);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.o[2].weight, 2);
	kp_coalesce__free(co);
	kp_coalesce__free(NULL);
}

/* Staged samples refused by a full queue: each call says so (its caller
 * counts the whole weight on its CPU) and the queue counts them too. */
static void test_emit_drops_weight(void **state)
{
	struct kp_queue *q = kp_queue__new(1);	/* no sample fits */
	struct kp_queue_stats st;
	struct kp_emit e;
	uint64_t k[4];
	struct kp_record r;

	assert_non_null(q);
	assert_int_equal(kp_emit__init(&e, q), 0);
	e.hold = 1;
	r = idle_at(1, MS, k);
	r.sample.weight = 250;
	assert_int_equal(kp_emit__sample(&e, &r), -ENOBUFS);
	r = busy_at(0, MS, 5);
	assert_int_equal(kp_emit__sample(&e, &r), -ENOBUFS);
	e.hold = 0;
	kp_emit__release(&e);
	kp_queue__stats(q, &st);
	assert_int_equal(st.dropped, 251);
	assert_int_equal(st.records, 0);
	kp_emit__fini(&e);
	kp_queue__free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_and_order),
		cmocka_unit_test(test_cpus_apart),
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_what_differs),
		cmocka_unit_test(test_passthrough),
		cmocka_unit_test(test_emit_drops_weight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
