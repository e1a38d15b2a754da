/* emit.c — encode a record and queue it (see emit.h). */
#include "collect/emit.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "model/stream.h"

#define EMIT_BUF (128u * 1024)	/* > the largest sample or control record */

int kp_emit__init(struct kp_emit *e, struct kp_queue *q)
{
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

int kp_emit(struct kp_emit *e, const struct kp_record *r)
{
	ssize_t n = kp_record_encode(r, e->buf, e->cap);

	if (n < 0)
		return (int)n;
	return kp_queue__push(e->q, e->buf, (size_t)n, r->type == KP_REC_SAMPLE);
}

uint64_t kp_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
