/* SPDX-License-Identifier: GPL-2.0-only */
/* queue.h — the collector's central queue: whole encoded records, bounded
 * in bytes.
 *
 * Owns: the records pushed or staged into it, back to back in a list of
 * chunks (a record never spans two), and a few emptied chunks for reuse.
 * The byte limit applies to samples only: a sample that would take the
 * queue over its limit is dropped and counted; control records (process,
 * exec, exit, thread, mmap, cgroup, lost, meta) are always admitted, so
 * the fill can exceed the limit by them.
 *
 * Who calls it: the collector's consumer thread pushes records or
 * encodes samples straight into staged chunks, then publishes them (one
 * wakeup per batch, not per record); the collector's reader takes the
 * oldest chunk's records in place (peek, then consume: no copy) or copies
 * them out (pop). Thread-safe: a mutex and a condvar inside, taken once
 * per pushed record, per staged chunk and per read; an eventfd is
 * readable from a publish (past a threshold the reader may set) until the
 * queue is read empty. One thread stages, one thread reads.
 *
 * Staging: the samples of a drain are encoded into chunks that are not in
 * the queue yet (kp_queue__stage, kp_queue__commit), while the control
 * records that must precede them are pushed; kp_queue__release then links
 * the staged chunks in after those, in one step. The limit is checked at
 * commit against the fill when staging began plus what was staged.
 *
 * Errors: 0 or -errno; kp_queue__new returns NULL with errno set.
 * Never: looks inside the records (the caller says which are samples, and
 * how many samples each stands for: a weighted SAMPLE counts its weight).
 */
#ifndef KP_COLLECT_QUEUE_H
#define KP_COLLECT_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct kp_queue;

struct kp_queue_stats {
	uint64_t bytes;		/* record bytes queued now */
	uint64_t limit;
	uint64_t samples;	/* samples queued now (weights summed) */
	uint64_t records;	/* records ever admitted */
	uint64_t dropped;	/* samples dropped at the limit (weights summed) */
	uint64_t delivered;	/* samples popped (weights summed) */
	uint64_t chunks_allocated;	/* chunks ever malloc'd (emptied ones
					 * are reused, up to 4 kept) */
};

struct kp_queue *kp_queue__new(size_t limit_bytes);
void kp_queue__free(struct kp_queue *q);

/* Append one record of len bytes. samples: 0 for a control record, else
 * the samples it stands for (a SAMPLE's weight); a sample record may be
 * dropped at the limit (returns -ENOBUFS and counts all of them).
 * Returns 0, -ENOBUFS or -ENOMEM. */
int kp_queue__push(struct kp_queue *q, const void *rec, size_t len,
		   uint32_t samples);

/* Wake readers (condvar and eventfd) if the queue holds records. Pushed
 * records can be popped at once; a waiting reader wakes on publish. */
void kp_queue__publish(struct kp_queue *q);

/* Stage a record: room at *room bytes (at least need) where the next
 * staged record goes, or NULL (-ENOMEM). Only the staging thread writes
 * there, and only up to *room, until kp_queue__commit. */
void *kp_queue__stage(struct kp_queue *q, size_t need, size_t *room);
/* The len bytes written at the last kp_queue__stage are one record of
 * samples (0: control); -ENOBUFS: dropped at the limit (counted), not
 * kept. */
int kp_queue__commit(struct kp_queue *q, size_t len, uint32_t samples);
/* Append what was staged since the last release, after every record
 * pushed so far. */
void kp_queue__release(struct kp_queue *q);

/* The unread records of the oldest chunk, in place: *data and the byte
 * count (whole records), 0 on timeout (or after kp_queue__wake). Waits up
 * to timeout_ms (0: no wait, -1: forever). The bytes stay valid and
 * unchanged until kp_queue__consume, which must follow a peek that
 * returned more than 0 before the next peek or pop. */
ssize_t kp_queue__peek(struct kp_queue *q, const void **data, int timeout_ms);
void kp_queue__consume(struct kp_queue *q);

/* A peek copied into buf and consumed: the byte count, 0 on timeout, or
 * -ENOSPC (nothing taken) when the oldest chunk's records exceed cap. */
ssize_t kp_queue__pop(struct kp_queue *q, void *buf, size_t cap,
		      int timeout_ms);

/* Wake a waiting kp_queue__pop (it returns 0). */
void kp_queue__wake(struct kp_queue *q);

/* Readable from a publish that found at least the notify threshold of
 * bytes queued (0, the default: any record) until the queue is read
 * empty. Owned by the queue. */
int kp_queue__fd(const struct kp_queue *q);
void kp_queue__set_notify(struct kp_queue *q, uint64_t bytes);

void kp_queue__stats(struct kp_queue *q, struct kp_queue_stats *out);

#endif /* KP_COLLECT_QUEUE_H */
