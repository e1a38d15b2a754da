// SPDX-License-Identifier: GPL-2.0-only
/* queue.c — the bounded central queue (see queue.h). */
#include "collect/queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_BYTES (256u * 1024)
/* Emptied chunks kept for reuse: fresh ones cost a page fault per 4 KiB
 * (some 50 us each in a paravirt guest) every time the queue fills. */
#define SPARE_CHUNKS 4
#define ENTRY_HDR 8u	/* u32 length, u32 samples (0: control record) */

struct chunk {
	struct chunk *next;
	size_t size, head, tail;	/* read at head, write at tail */
	uint8_t data[];
};

struct kp_queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	struct chunk *first, *last;
	struct chunk *spare;		/* emptied CHUNK_BYTES chunks */
	unsigned nr_spare;
	struct kp_queue_stats st;
	unsigned wakeups;		/* kp_queue__wake calls not yet seen */
	int efd;
	int efd_set;			/* the eventfd is readable */
	uint64_t notify_bytes;		/* publish sets the eventfd from there */
};

static struct chunk *chunk_alloc(struct kp_queue *q, size_t size)
{
	struct chunk *c = malloc(sizeof(*c) + size);

	if (c)
		q->st.chunks_allocated++;
	return c;
}

struct kp_queue *kp_queue__new(size_t limit_bytes)
{
	struct kp_queue *q = calloc(1, sizeof(*q));
	int err;

	if (!q)
		return NULL;
	q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->efd < 0)
		goto out_free;
	err = pthread_mutex_init(&q->lock, NULL);
	if (err)
		goto out_errno;
	err = pthread_cond_init(&q->nonempty, NULL);
	if (err) {
		pthread_mutex_destroy(&q->lock);
		goto out_errno;
	}
	q->st.limit = limit_bytes;
	/* the spares up front, their pages touched: a page fault costs most
	 * when the queue first fills, which is when sampling gets busy */
	while (q->nr_spare < SPARE_CHUNKS) {
		struct chunk *c = chunk_alloc(q, CHUNK_BYTES);

		if (!c)
			break;	/* allocated when needed instead */
		explicit_bzero(c->data, CHUNK_BYTES);	/* not elided */
		c->next = q->spare;
		q->spare = c;
		q->nr_spare++;
	}
	return q;

out_errno:
	close(q->efd);
	errno = err;
out_free:
	err = errno;
	free(q);
	errno = err;
	return NULL;
}

void kp_queue__free(struct kp_queue *q)
{
	struct chunk *c, *n;

	if (!q)
		return;
	for (c = q->first; c; c = n) {
		n = c->next;
		free(c);
	}
	for (c = q->spare; c; c = n) {
		n = c->next;
		free(c);
	}
	pthread_cond_destroy(&q->nonempty);
	pthread_mutex_destroy(&q->lock);
	close(q->efd);
	free(q);
}

/* Room for need bytes at the tail; a new chunk if the last is full. */
static struct chunk *tail_room(struct kp_queue *q, size_t need)
{
	struct chunk *c = q->last;
	size_t size;

	if (c && c->size - c->tail >= need)
		return c;
	size = need > CHUNK_BYTES ? need : CHUNK_BYTES;
	if (size == CHUNK_BYTES && q->spare) {
		c = q->spare;
		q->spare = c->next;
		q->nr_spare--;
	} else if (!(c = chunk_alloc(q, size))) {
		return NULL;
	}
	c->next = NULL;
	c->size = size;
	c->head = c->tail = 0;
	if (q->last)
		q->last->next = c;
	else
		q->first = c;
	q->last = c;
	return c;
}

static void signal_fd(int efd, int on)
{
	uint64_t v = 1;
	ssize_t n;

	if (on)
		n = write(efd, &v, sizeof(v));
	else
		n = read(efd, &v, sizeof(v));
	(void)n;	/* EAGAIN: already in the wanted state */
}

int kp_queue__push(struct kp_queue *q, const void *rec, size_t len,
		   uint32_t samples)
{
	uint32_t hdr[2] = { (uint32_t)len, samples };
	struct chunk *c;
	int ret = 0;

	if (len == 0 || len > UINT32_MAX)
		return -EINVAL;
	pthread_mutex_lock(&q->lock);
	if (samples && q->st.bytes + len > q->st.limit) {
		q->st.dropped += samples;
		ret = -ENOBUFS;
		goto out_unlock;
	}
	c = tail_room(q, ENTRY_HDR + len);
	if (!c) {
		q->st.dropped += samples;
		ret = -ENOMEM;
		goto out_unlock;
	}
	memcpy(c->data + c->tail, hdr, ENTRY_HDR);
	memcpy(c->data + c->tail + ENTRY_HDR, rec, len);
	c->tail += ENTRY_HDR + len;
	q->st.bytes += len;
	q->st.records++;
	q->st.samples += samples;
out_unlock:
	pthread_mutex_unlock(&q->lock);
	return ret;
}

/* Wait (lock held) until the queue is not empty, a wake, or timeout. */
static void wait_nonempty(struct kp_queue *q, int timeout_ms)
{
	struct timespec end;
	unsigned seen = q->wakeups;

	if (timeout_ms == 0)
		return;
	if (timeout_ms > 0) {
		clock_gettime(CLOCK_REALTIME, &end);
		end.tv_sec += timeout_ms / 1000;
		end.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
		if (end.tv_nsec >= 1000000000) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000;
		}
	}
	while (q->st.bytes == 0 && q->wakeups == seen) {
		if (timeout_ms < 0)
			pthread_cond_wait(&q->nonempty, &q->lock);
		else if (pthread_cond_timedwait(&q->nonempty, &q->lock, &end))
			break;
	}
}

/* Copy whole entries from the head chunk(s) into buf (lock held). */
static ssize_t take(struct kp_queue *q, uint8_t *buf, size_t cap)
{
	size_t out = 0;
	uint32_t hdr[2];
	struct chunk *c;

	while ((c = q->first)) {
		if (c->head == c->tail) {
			if (c == q->last) {
				c->head = c->tail = 0;	/* keep one chunk */
				break;
			}
			q->first = c->next;
			if (c->size == CHUNK_BYTES && q->nr_spare < SPARE_CHUNKS) {
				c->next = q->spare;
				q->spare = c;
				q->nr_spare++;
			} else {
				free(c);
			}
			continue;
		}
		memcpy(hdr, c->data + c->head, ENTRY_HDR);
		if (out + hdr[0] > cap)
			break;
		memcpy(buf + out, c->data + c->head + ENTRY_HDR, hdr[0]);
		c->head += ENTRY_HDR + hdr[0];
		out += hdr[0];
		q->st.bytes -= hdr[0];
		q->st.samples -= hdr[1];
		q->st.delivered += hdr[1];
	}
	return out;
}

ssize_t kp_queue__pop(struct kp_queue *q, void *buf, size_t cap,
		      int timeout_ms)
{
	ssize_t n;

	pthread_mutex_lock(&q->lock);
	wait_nonempty(q, timeout_ms);
	if (q->st.bytes == 0) {
		n = 0;
		goto out_unlock;
	}
	n = take(q, buf, cap);
	if (n == 0)
		n = -ENOSPC;
	if (q->st.bytes == 0 && q->efd_set) {
		signal_fd(q->efd, 0);
		q->efd_set = 0;
	}
out_unlock:
	pthread_mutex_unlock(&q->lock);
	return n;
}

void kp_queue__publish(struct kp_queue *q)
{
	pthread_mutex_lock(&q->lock);
	if (q->st.bytes > 0) {
		if (!q->efd_set && q->st.bytes >= q->notify_bytes) {
			signal_fd(q->efd, 1);
			q->efd_set = 1;
		}
		pthread_cond_broadcast(&q->nonempty);
	}
	pthread_mutex_unlock(&q->lock);
}

void kp_queue__wake(struct kp_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->wakeups++;
	pthread_cond_broadcast(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

int kp_queue__fd(const struct kp_queue *q)
{
	return q->efd;
}

void kp_queue__set_notify(struct kp_queue *q, uint64_t bytes)
{
	pthread_mutex_lock(&q->lock);
	q->notify_bytes = bytes;
	pthread_mutex_unlock(&q->lock);
}

void kp_queue__stats(struct kp_queue *q, struct kp_queue_stats *out)
{
	pthread_mutex_lock(&q->lock);
	*out = q->st;
	pthread_mutex_unlock(&q->lock);
}
