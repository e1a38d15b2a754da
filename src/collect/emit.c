// SPDX-License-Identifier: GPL-2.0-only
/* emit.c — encode a record and queue it (see emit.h). */
#include "collect/emit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream/stream.h"

#define EMIT_BUF (128u * 1024)	/* > the largest sample or control record */
#define HELD_START (8 * EMIT_BUF)	/* held samples: a busy cycle at 4999 Hz */

int kp_emit__init(struct kp_emit *e, struct kp_queue *q)
{
	memset(e, 0, sizeof(*e));
	e->q = q;
	e->cap = EMIT_BUF;
	e->buf = malloc(e->cap);
	/* the held samples' first buffer, its pages touched now rather than
	 * when sampling first gets busy (a page fault is dear in a guest) */
	e->held_cap = HELD_START;
	e->held = malloc(e->held_cap);
	if (!e->buf || !e->held) {
		kp_emit__fini(e);
		return -ENOMEM;
	}
	explicit_bzero(e->held, e->held_cap);	/* memset may become calloc */
	return 0;
}

void kp_emit__fini(struct kp_emit *e)
{
	free(e->buf);
	free(e->held);
	e->buf = e->held = NULL;
	e->held_len = e->held_cap = 0;
}

/* The samples r stands for: 0 for a control record, a SAMPLE's weight. */
static uint32_t samples_of(const struct kp_record *r)
{
	if (r->type != KP_REC_SAMPLE)
		return 0;
	return kp_sample_weight(&r->sample);
}

/* The process a side-band or /proc record is about; 0 for any other. */
static uint32_t process_of(const struct kp_record *r)
{
	switch (r->type) {
	case KP_REC_PROCESS: return r->process.pid;
	case KP_REC_THREAD: return r->thread.pid;
	case KP_REC_EXEC: return r->exec.pid;
	case KP_REC_EXIT: return r->exit.pid;
	case KP_REC_MMAP: return r->mmap.pid;
	default: return 0;
	}
}

/* 1 when the pid filter leaves r out. */
static int filtered(const struct kp_emit *e, const struct kp_record *r)
{
	uint32_t pid;

	if (!e->pids || !(pid = process_of(r)))
		return 0;
	for (size_t i = 0; i < e->nr_pids; i++)
		if (e->pids[i] == pid)
			return 0;
	return 1;
}

int kp_emit(struct kp_emit *e, const struct kp_record *r)
{
	ssize_t n;

	if (filtered(e, r))
		return 0;
	n = kp_record_encode(r, e->buf, e->cap);

	if (n < 0)
		return (int)n;
	return kp_queue__push(e->q, e->buf, (size_t)n, samples_of(r));
}

#define HELD_HDR 12u	/* u32 length, u32 cpu, u32 samples */

/* A sample: queued now, or held while e->hold is set. */
int kp_emit__sample(struct kp_emit *e, const struct kp_record *r, uint32_t cpu)
{
	uint32_t hdr[3];
	ssize_t n;

	if (!e->hold)
		return kp_emit(e, r);
	if (e->held_cap - e->held_len < HELD_HDR + EMIT_BUF) {
		size_t cap = e->held_cap * 2;	/* held from kp_emit__init on */
		uint8_t *p;

		while (cap - e->held_len < HELD_HDR + EMIT_BUF)
			cap *= 2;
		if (!(p = realloc(e->held, cap)))
			return -ENOMEM;
		e->held = p;
		e->held_cap = cap;
	}
	n = kp_record_encode(r, e->held + e->held_len + HELD_HDR,
			     e->held_cap - e->held_len - HELD_HDR);
	if (n < 0)
		return (int)n;
	hdr[0] = (uint32_t)n;
	hdr[1] = cpu;
	hdr[2] = samples_of(r);
	memcpy(e->held + e->held_len, hdr, HELD_HDR);
	e->held_len += HELD_HDR + (size_t)n;
	return 0;
}

void kp_emit__release(struct kp_emit *e, uint64_t *drops)
{
	uint32_t hdr[3];

	for (size_t off = 0; off < e->held_len; off += HELD_HDR + hdr[0]) {
		memcpy(hdr, e->held + off, HELD_HDR);
		if (kp_queue__push(e->q, e->held + off + HELD_HDR, hdr[0], hdr[2]))
			drops[hdr[1]] += hdr[2];	/* a weighted record: all of it */
	}
	e->held_len = 0;
}

uint64_t kp_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
