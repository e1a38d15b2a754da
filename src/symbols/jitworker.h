/* SPDX-License-Identifier: GPL-2.0-only */
/* jitworker.h — a thread of its own that reads JIT maps, so that a big
 * map never stalls the thread that names frames (the live view's).
 *
 * Owns: the thread (started with the first read; every signal blocked
 * in it) and one read at a time: the fd it is given, closed when read,
 * and the table until the caller takes it. Reads only that fd
 * (kp_jitmap__read or kp_jitdump__read); knows nothing of processes or
 * of the cache.
 *
 * Who calls it: jitcache.c, from the one thread that uses the
 * kp_symbols. Errors: 0 or -errno.
 */
#ifndef KP_SYMBOLS_JITWORKER_H
#define KP_SYMBOLS_JITWORKER_H

#include <stddef.h>
#include <stdint.h>

struct kp_jittab;

struct kp_jitread {
	struct kp_jittab *tab;		/* NULL when err */
	int err;			/* as kp_jitmap__read */
	uint64_t bad_lines, took_ns;
};

struct kp_jitworker;

/* A reader of one kind of file (kp_jitmap__read, kp_jitdump__read). */
typedef int kp_jitread_fn(int fd, size_t max_bytes, struct kp_jittab **out,
			  uint64_t *bad, const int *stop);

struct kp_jitworker *kp_jitworker__new(void);
/* Stops a read in progress (its table is dropped) and joins the thread. */
void kp_jitworker__free(struct kp_jitworker *w);

/* Read fd (taken: closed by the worker) with fn into a table of at most
 * max_bytes. -EBUSY while another read has not been taken. */
int kp_jitworker__start(struct kp_jitworker *w, int fd, kp_jitread_fn *fn,
			size_t max_bytes);
/* Wait up to wait_ms (0: not at all) for the read: 1 with its result in
 * out (taken: the worker is free again), 0 still reading, -ENOENT when
 * no read is started. */
int kp_jitworker__take(struct kp_jitworker *w, unsigned wait_ms,
		       struct kp_jitread *out);

#endif /* KP_SYMBOLS_JITWORKER_H */
