/* SPDX-License-Identifier: GPL-2.0-only */
/* emit.h — encode a record and queue it (collect-internal).
 *
 * Owns: one encode buffer. Used by the collector, the /proc snapshot and
 * the side-band reader, always from one thread at a time (the caller's
 * lock). Control records are always admitted by the queue; samples may be
 * dropped at its limit (kp_emit returns -ENOBUFS then).
 *
 * Holding: while `hold` is set, samples are encoded straight into the
 * queue's staging chunks (queue.h) instead of being queued;
 * kp_emit__release appends them, in order, after whatever control records
 * were emitted meanwhile. The collector holds the samples of a drain until
 * it has read the side-band, so a process's PROCESS record precedes its
 * samples even when it forked while the buffers were being read.
 *
 * Filtering: with `pids` set (-p), the process records (PROCESS, THREAD,
 * EXEC, EXIT, MMAP) of other processes are left out, as their samples
 * are by the BPF filter: nothing reads other processes' files for them.
 * Errors: 0 or -errno. Never: blocks.
 */
#ifndef KP_COLLECT_EMIT_H
#define KP_COLLECT_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "collect/queue.h"
#include "stream/record.h"

struct kp_emit {
	struct kp_queue *q;
	uint8_t *buf;		/* a control record's encoding */
	size_t cap;
	int hold;		/* samples are staged (see above) */
	const uint32_t *pids;	/* not NULL: only these processes' records */
	size_t nr_pids;
};

int kp_emit__init(struct kp_emit *e, struct kp_queue *q);
void kp_emit__fini(struct kp_emit *e);

/* Encode r and push it; samples may be dropped (-ENOBUFS). */
int kp_emit(struct kp_emit *e, const struct kp_record *r);
/* A sample: kp_emit, or staged while e->hold is set. On an error (the
 * queue's limit: -ENOBUFS, counted in its stats) the record was not
 * taken: the caller counts its weight dropped. */
int kp_emit__sample(struct kp_emit *e, const struct kp_record *r);
void kp_emit__release(struct kp_emit *e);

/* CLOCK_MONOTONIC now, in ns. */
uint64_t kp_mono_ns(void);

#endif /* KP_COLLECT_EMIT_H */
