/* emit.h — encode a record and queue it (collect-internal).
 *
 * Owns: one encode buffer. Used by the collector, the /proc snapshot and
 * the side-band reader, always from one thread at a time (the caller's
 * lock). Control records are always admitted by the queue; samples may be
 * dropped at its limit (kp_emit returns -ENOBUFS then).
 * Errors: 0 or -errno. Never: blocks.
 */
#ifndef KP_COLLECT_EMIT_H
#define KP_COLLECT_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "collect/queue.h"
#include "model/record.h"

struct kp_emit {
	struct kp_queue *q;
	uint8_t *buf;
	size_t cap;
};

int kp_emit__init(struct kp_emit *e, struct kp_queue *q);
void kp_emit__fini(struct kp_emit *e);

/* Encode r and push it; samples may be dropped (-ENOBUFS). */
int kp_emit(struct kp_emit *e, const struct kp_record *r);

/* CLOCK_MONOTONIC now, in ns. */
uint64_t kp_mono_ns(void);

#endif /* KP_COLLECT_EMIT_H */
