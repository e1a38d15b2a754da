// SPDX-License-Identifier: GPL-2.0-only
/* test-queue.c — cmocka tests of the collector's central queue. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/queue.h"

static void fill(uint8_t *b, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed + i);
}

/* Pop until the queue is empty: the bytes taken. */
static size_t pop_all(struct kp_queue *q, uint8_t *out, size_t cap)
{
	size_t got = 0;
	ssize_t n;

	while ((n = kp_queue__pop(q, out + got, cap - got, 0)) > 0)
		got += (size_t)n;
	assert_true(n == 0);
	return got;
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static void test_order_and_whole_records(void **state)
{
	struct kp_queue *q = kp_queue__new(1 << 20);
	uint8_t in[100], out[1000];
	ssize_t n;

	assert_non_null(q);
	assert_false(readable(kp_queue__fd(q)));
	for (int i = 0; i < 5; i++) {
		fill(in, 20 + i, (uint8_t)i);
		assert_int_equal(kp_queue__push(q, in, 20 + i, i & 1), 0);
	}
	assert_false(readable(kp_queue__fd(q)));	/* not published yet */
	kp_queue__publish(q);
	assert_true(readable(kp_queue__fd(q)));
	/* The chunk's 110 bytes do not fit in 45: nothing is taken. */
	assert_int_equal(kp_queue__pop(q, out, 45, 0), -ENOSPC);
	n = kp_queue__pop(q, out, sizeof(out), 0);
	assert_int_equal(n, 20 + 21 + 22 + 23 + 24);
	fill(in, 21, 1);
	assert_memory_equal(out + 20, in, 21);
	fill(in, 24, 4);
	assert_memory_equal(out + 20 + 21 + 22 + 23, in, 24);
	assert_false(readable(kp_queue__fd(q)));
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), 0), 0);
	kp_queue__free(q);
}

/* With a notify threshold the fd turns readable only once a publish finds
 * that many bytes queued; readers waiting in pop are woken regardless. */
static void test_notify_threshold(void **state)
{
	struct kp_queue *q = kp_queue__new(1 << 20);
	uint8_t in[100] = { 0 }, out[4096];

	assert_non_null(q);
	kp_queue__set_notify(q, 250);
	assert_int_equal(kp_queue__push(q, in, 100, 1), 0);
	assert_int_equal(kp_queue__push(q, in, 100, 0), 0);
	kp_queue__publish(q);
	assert_false(readable(kp_queue__fd(q)));	/* 200 bytes */
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), 0), 200);
	for (int i = 0; i < 3; i++)
		assert_int_equal(kp_queue__push(q, in, 100, 1), 0);
	kp_queue__publish(q);
	assert_true(readable(kp_queue__fd(q)));		/* 300 bytes */
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), 0), 300);
	assert_false(readable(kp_queue__fd(q)));
	kp_queue__set_notify(q, 0);
	assert_int_equal(kp_queue__push(q, in, 100, 1), 0);
	kp_queue__publish(q);
	assert_true(readable(kp_queue__fd(q)));
	kp_queue__free(q);
}

static void test_limit_drops_samples_only(void **state)
{
	struct kp_queue *q = kp_queue__new(250);
	struct kp_queue_stats st;
	uint8_t in[100] = { 0 }, out[4096];
	uint64_t pushed = 0;

	assert_non_null(q);
	for (int i = 0; i < 10; i++, pushed++)
		kp_queue__push(q, in, 100, 1);
	/* Control records pass the limit. */
	for (int i = 0; i < 5; i++)
		assert_int_equal(kp_queue__push(q, in, 100, 0), 0);
	assert_int_equal(kp_queue__push(q, in, 1, 1), -ENOBUFS);
	pushed++;
	kp_queue__stats(q, &st);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.dropped, 9);
	assert_int_equal(st.bytes, 700);
	assert_int_equal(st.records, 7);
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), 0), 700);
	kp_queue__stats(q, &st);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(st.delivered + st.dropped + st.samples, pushed);
	assert_int_equal(kp_queue__push(q, in, 100, 1), 0);
	kp_queue__free(q);
}

/* A record standing for n samples counts n: queued, delivered, and
 * dropped whole at the limit. */
static void test_weighted_samples(void **state)
{
	struct kp_queue *q = kp_queue__new(250);
	struct kp_queue_stats st;
	uint8_t in[100] = { 0 }, out[4096];

	assert_non_null(q);
	assert_int_equal(kp_queue__push(q, in, 100, 250), 0);
	assert_int_equal(kp_queue__push(q, in, 100, 1), 0);
	assert_int_equal(kp_queue__push(q, in, 100, 0), 0);
	assert_int_equal(kp_queue__push(q, in, 100, 40), -ENOBUFS);
	kp_queue__stats(q, &st);
	assert_int_equal(st.samples, 251);
	assert_int_equal(st.dropped, 40);
	assert_int_equal(st.records, 3);
	assert_int_equal(kp_queue__pop(q, out, 150, 0), -ENOSPC);
	kp_queue__stats(q, &st);
	assert_int_equal(st.samples, 251);
	assert_int_equal(st.delivered, 0);
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), 0), 300);
	kp_queue__stats(q, &st);
	assert_int_equal(st.samples, 0);
	assert_int_equal(st.delivered, 251);
	assert_int_equal(st.delivered + st.dropped, 291);
	kp_queue__free(q);
}

static void test_big_records_span_chunks(void **state)
{
	struct kp_queue *q = kp_queue__new(64u << 20);
	size_t big = 300 * 1024, got = 0;
	uint8_t *in = malloc(big), *out = malloc(big * 4);
	ssize_t n;

	assert_non_null(q);
	assert_non_null(in);
	assert_non_null(out);
	for (int i = 0; i < 4; i++) {
		fill(in, big, (uint8_t)(7 * i));
		assert_int_equal(kp_queue__push(q, in, big - i, 1), 0);
	}
	for (int i = 0; (n = kp_queue__pop(q, out + got, big * 4 - got, 0)) > 0; i++) {
		assert_int_equal(n, big - (size_t)i);	/* one record a chunk */
		got += (size_t)n;
	}
	assert_int_equal(got, 4 * big - 6);
	fill(in, big, 21);
	assert_memory_equal(out + 3 * big - 3, in, big - 3);
	free(in);
	free(out);
	kp_queue__free(q);
}

static void test_timeout_and_wake(void **state)
{
	struct kp_queue *q = kp_queue__new(1000);
	uint8_t out[16];

	assert_non_null(q);
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), 5), 0);
	kp_queue__wake(q);	/* an earlier wake does not cut a later wait */
	assert_int_equal(kp_queue__push(q, "abc", 3, 0), 0);
	kp_queue__publish(q);
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), -1), 3);
	kp_queue__free(q);
}

struct producer {
	struct kp_queue *q;
	int n;
};

/* Of every 16 records, 8 staged and 8 pushed, then released. */
static void *produce(void *arg)
{
	struct producer *p = arg;
	uint8_t rec[64], *at;
	size_t len, room;

	for (int i = 0; i < p->n; i++) {
		memset(rec, i % 64, sizeof(rec));	/* never the end marker */
		len = 1 + (size_t)(i % 64);
		if (i % 16 < 8 && (at = kp_queue__stage(p->q, len, &room))) {
			memcpy(at, rec, len);
			kp_queue__commit(p->q, len, i % 10 != 0);
		} else {
			kp_queue__push(p->q, rec, len, i % 10 != 0);
		}
		if (i % 16 == 15) {
			kp_queue__release(p->q);
			kp_queue__publish(p->q);
		}
	}
	kp_queue__release(p->q);
	kp_queue__push(p->q, "E", 1, 0);	/* end marker: never dropped */
	kp_queue__publish(p->q);
	return NULL;
}

static void test_threads_invariant(void **state)
{
	struct producer p = { .q = kp_queue__new(4096), .n = 200000 };
	struct kp_queue_stats st;
	static uint8_t out[1u << 18];
	pthread_t t;
	ssize_t n;
	int done = 0;
	uint64_t samples = 0;

	assert_non_null(p.q);
	assert_int_equal(pthread_create(&t, NULL, produce, &p), 0);
	while (!done) {
		n = kp_queue__pop(p.q, out, sizeof(out), 1000);
		assert_true(n >= 0);
		if (n > 0 && out[n - 1] == 'E')
			done = 1;
	}
	pthread_join(t, NULL);
	for (int i = 0; i < p.n; i++)
		samples += i % 10 != 0;
	kp_queue__stats(p.q, &st);
	assert_int_equal(st.samples, 0);
	assert_int_equal(st.delivered + st.dropped, samples);
	kp_queue__free(p.q);
}

/* Stage n records of len bytes (seeded from seed), samples each. */
static void stage_n(struct kp_queue *q, int n, size_t len, uint8_t seed,
		    uint32_t samples, int want)
{
	size_t room;
	uint8_t *at;

	for (int i = 0; i < n; i++) {
		at = kp_queue__stage(q, len, &room);
		assert_non_null(at);
		assert_true(room >= len);
		fill(at, len, (uint8_t)(seed + i));
		assert_int_equal(kp_queue__commit(q, len, samples), want);
	}
}

/* Staged samples come out after the control records pushed while they
 * were staged, and only once released. */
static void test_stage_after_pushed(void **state)
{
	struct kp_queue *q = kp_queue__new(1 << 20);
	struct kp_queue_stats st;
	uint8_t in[64], out[4096];

	(void)state;
	assert_non_null(q);
	stage_n(q, 3, 30, 1, 1, 0);
	assert_int_equal(kp_queue__push(q, "ctl", 3, 0), 0);
	kp_queue__publish(q);
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), 0), 3);	/* not yet */
	assert_int_equal(kp_queue__push(q, "CTL", 3, 0), 0);
	kp_queue__release(q);
	kp_queue__publish(q);
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), 0), 3 + 90);
	assert_memory_equal(out, "CTL", 3);
	fill(in, 30, 3);
	assert_memory_equal(out + 3 + 60, in, 30);
	kp_queue__stats(q, &st);
	assert_int_equal(st.records, 5);
	assert_int_equal(st.delivered, 3);
	assert_int_equal(st.bytes, 0);
	kp_queue__free(q);
}

/* A staged sample over the limit (the fill when staging began plus what
 * was staged) is refused and counted; a control record never is. */
static void test_stage_limit(void **state)
{
	struct kp_queue *q = kp_queue__new(250);
	struct kp_queue_stats st;
	uint8_t in[100] = { 0 }, out[4096];

	(void)state;
	assert_non_null(q);
	assert_int_equal(kp_queue__push(q, in, 100, 1), 0);
	stage_n(q, 1, 100, 0, 1, 0);
	stage_n(q, 1, 100, 0, 7, -ENOBUFS);
	stage_n(q, 2, 100, 0, 0, 0);
	kp_queue__release(q);
	kp_queue__stats(q, &st);
	assert_int_equal(st.dropped, 7);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.bytes, 400);
	assert_int_equal(kp_queue__pop(q, out, sizeof(out), 0), 400);
	kp_queue__free(q);
}

/* A queue filled and emptied again and again reuses its emptied chunks
 * (fresh memory costs page faults): 99 rounds of records pushed (~1 MiB)
 * or staged (a small drain, copied into the queue and its staging chunk
 * kept; a big one, linked in whole) allocate the chunks of one round, not
 * a hundred rounds' worth. The records come out whole and in order. */
static void test_chunks_reused(void **state)
{
	struct kp_queue *q = kp_queue__new(64u << 20);
	static uint8_t in[1000], out[1u << 20];
	struct kp_queue_stats st;

	(void)state;
	assert_non_null(q);
	for (int round = 0; round < 99; round++) {
		int k = (int[]){ 1000, 10, 300 }[round % 3];
		size_t got;

		if (round % 3 == 0) {
			for (int i = 0; i < k; i++) {
				fill(in, sizeof(in), (uint8_t)(round + i));
				assert_int_equal(kp_queue__push(q, in, sizeof(in), 1), 0);
			}
		} else {
			assert_int_equal(kp_queue__push(q, in, sizeof(in), 0), 0);
			stage_n(q, k, sizeof(in), (uint8_t)round, 1, 0);
			kp_queue__release(q);
			k++;
		}
		got = pop_all(q, out, sizeof(out));
		assert_int_equal(got, (size_t)k * sizeof(in));
		fill(in, sizeof(in), (uint8_t)(round + (round % 3 ? k - 2 : k - 1)));
		assert_memory_equal(out + got - sizeof(in), in, sizeof(in));
	}
	kp_queue__stats(q, &st);
	/* 1000 KB of records: 4 chunks of 256 KiB, one of them kept; a
	 * staging chunk; the 4 spares made up front among them */
	assert_true(st.chunks_allocated >= 4);
	assert_true(st.chunks_allocated <= 6);
	kp_queue__free(q);
}

/* A peek's bytes stay put while more records are pushed after them; the
 * consume counts what that peek saw, no more. */
static void test_peek_in_place(void **state)
{
	struct kp_queue *q = kp_queue__new(1 << 20);
	struct kp_queue_stats st;
	const void *data;
	uint8_t in[50];

	(void)state;
	assert_non_null(q);
	fill(in, sizeof(in), 9);
	assert_int_equal(kp_queue__push(q, in, sizeof(in), 2), 0);
	assert_int_equal(kp_queue__peek(q, &data, 0), 50);
	assert_int_equal(kp_queue__peek(q, &data, 0), -EBUSY);
	assert_int_equal(kp_queue__push(q, "more", 4, 3), 0);
	assert_memory_equal(data, in, sizeof(in));
	kp_queue__consume(q);
	kp_queue__stats(q, &st);
	assert_int_equal(st.delivered, 2);
	assert_int_equal(st.samples, 3);
	assert_int_equal(kp_queue__peek(q, &data, 0), 4);
	assert_memory_equal(data, "more", 4);
	kp_queue__consume(q);
	kp_queue__stats(q, &st);
	assert_int_equal(st.delivered, 5);
	assert_int_equal(st.bytes, 0);
	kp_queue__free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_whole_records),
		cmocka_unit_test(test_notify_threshold),
		cmocka_unit_test(test_limit_drops_samples_only),
		cmocka_unit_test(test_weighted_samples),
		cmocka_unit_test(test_big_records_span_chunks),
		cmocka_unit_test(test_timeout_and_wake),
		cmocka_unit_test(test_threads_invariant),
		cmocka_unit_test(test_stage_after_pushed),
		cmocka_unit_test(test_stage_limit),
		cmocka_unit_test(test_chunks_reused),
		cmocka_unit_test(test_peek_in_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
