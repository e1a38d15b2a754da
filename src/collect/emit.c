// SPDX-License-Identifier: GPL-2.0-only
/* emit.c — encode a record and queue it (see emit.h). */
#include "collect/emit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream/stream.h"

#define EMIT_BUF (128u * 1024)	/* > the largest control record */
#define STAGE_MIN 64u	/* room asked for first; a record's size if more */

int kp_emit__init(struct kp_emit *e, struct kp_queue *q)
{
	memset(e, 0, sizeof(*e));
	e->q = q;
	e->cap = EMIT_BUF;
	e->buf = malloc(e->cap);
	return e->buf ? 0 : -ENOMEM;
}

void kp_emit__fini(struct kp_emit *e)
{
	free(e->buf);
	e->buf = NULL;
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

/* A sample: queued now, or staged while e->hold is set (encoded in
 * place in the queue's staging chunk, no copy). */
int kp_emit__sample(struct kp_emit *e, const struct kp_record *r)
{
	size_t room;
	uint8_t *p;
	ssize_t n;

	if (!e->hold)
		return kp_emit(e, r);
	if (!(p = kp_queue__stage(e->q, STAGE_MIN, &room)))
		return -ENOMEM;
	n = kp_record_encode(r, p, room);
	if (n == -ENOSPC) {	/* the chunk is full: a new one */
		size_t need = kp_record_encoded_size(r);

		if (!(p = kp_queue__stage(e->q, need, &room)))
			return -ENOMEM;
		n = kp_record_encode(r, p, room);
	}
	if (n < 0)
		return (int)n;
	return kp_queue__commit(e->q, (size_t)n, samples_of(r));
}

void kp_emit__release(struct kp_emit *e)
{
	kp_queue__release(e->q);
}

uint64_t kp_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
