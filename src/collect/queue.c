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

struct chunk {
	struct chunk *next;
	size_t size, head, tail;	/* read at head, write at tail */
	uint64_t samples;	/* samples written into it (weights summed) */
	uint64_t samples_read;	/* of those, consumed */
	uint8_t data[];
};

/* Samples staged since the last release, in chunks not in the queue. */
struct stage {
	struct chunk *first, *last;
	struct chunk *keep;	/* an emptied staging chunk, to stage into next */
	uint64_t base;		/* the queue's fill when staging began */
	uint64_t bytes, samples, records, dropped;
	size_t len;		/* room handed out by the last kp_queue__stage */
	int on;			/* base is set */
};

/* What the reader's last peek handed out. */
struct view {
	struct chunk *c;	/* NULL: no peek outstanding */
	size_t tail;
	uint64_t samples;
};

struct kp_queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	struct chunk *first, *last;
	struct chunk *spare;		/* emptied CHUNK_BYTES chunks */
	unsigned nr_spare;
	struct kp_queue_stats st;
	struct stage sg;		/* the staging thread's own */
	struct view v;			/* the reader's own */
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
	for (c = q->sg.first; c; c = n) {
		n = c->next;
		free(c);
	}
	free(q->sg.keep);
	pthread_cond_destroy(&q->nonempty);
	pthread_mutex_destroy(&q->lock);
	close(q->efd);
	free(q);
}

/* A chunk of at least need bytes, emptied (lock held). */
static struct chunk *new_chunk(struct kp_queue *q, size_t need)
{
	size_t size = need > CHUNK_BYTES ? need : CHUNK_BYTES;
	struct chunk *c;

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
	c->samples = c->samples_read = 0;
	return c;
}

/* An emptied chunk back to the spares, or freed (lock held). */
static void recycle(struct kp_queue *q, struct chunk *c)
{
	if (c->size == CHUNK_BYTES && q->nr_spare < SPARE_CHUNKS) {
		c->next = q->spare;
		q->spare = c;
		q->nr_spare++;
	} else {
		free(c);
	}
}

/* Room for need bytes at the tail; a new chunk if the last is full. */
static struct chunk *tail_room(struct kp_queue *q, size_t need)
{
	struct chunk *c = q->last;

	if (c && c->size - c->tail >= need)
		return c;
	if (!(c = new_chunk(q, need)))
		return NULL;
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
	c = tail_room(q, len);
	if (!c) {
		q->st.dropped += samples;
		ret = -ENOMEM;
		goto out_unlock;
	}
	memcpy(c->data + c->tail, rec, len);
	c->tail += len;
	c->samples += samples;
	q->st.bytes += len;
	q->st.records++;
	q->st.samples += samples;
out_unlock:
	pthread_mutex_unlock(&q->lock);
	return ret;
}

/* ---- staging (the consumer thread's samples) ---- */

void *kp_queue__stage(struct kp_queue *q, size_t need, size_t *room)
{
	struct stage *sg = &q->sg;
	struct chunk *c = sg->last;

	if (!sg->on || !c || c->size - c->tail < need) {
		pthread_mutex_lock(&q->lock);
		if (!sg->on)
			sg->base = q->st.bytes;
		sg->on = 1;
		if (!c && sg->keep && sg->keep->size >= need) {
			c = sg->keep;
			sg->keep = NULL;
		} else if (!c || c->size - c->tail < need) {
			c = new_chunk(q, need);
		}
		pthread_mutex_unlock(&q->lock);
		if (!c)
			return NULL;
		if (c != sg->last) {
			if (sg->last)
				sg->last->next = c;
			else
				sg->first = c;
			sg->last = c;
		}
	}
	sg->len = c->size - c->tail;
	*room = sg->len;
	return c->data + c->tail;
}

int kp_queue__commit(struct kp_queue *q, size_t len, uint32_t samples)
{
	struct stage *sg = &q->sg;
	struct chunk *c = sg->last;

	if (!c || len == 0 || len > sg->len)
		return -EINVAL;
	sg->len = 0;
	if (samples && sg->base + sg->bytes + len > q->st.limit) {
		sg->dropped += samples;	/* st.limit never changes */
		return -ENOBUFS;
	}
	c->tail += len;
	c->samples += samples;
	sg->bytes += len;
	sg->samples += samples;
	sg->records++;
	return 0;
}

/* A few staged records are copied to the queue's last chunk, their
 * staging chunk kept for the next drain; more are linked in as they are
 * (lock held). So a queued chunk is a quarter full or more, however
 * small the drains and however slow the reader. */
static void link_staged(struct kp_queue *q, struct stage *sg)
{
	struct chunk *c = sg->first, *l = q->last;

	if (!c)
		return;
	if (c == sg->last && c->tail <= CHUNK_BYTES / 4 && l &&
	    l->size - l->tail >= c->tail) {
		memcpy(l->data + l->tail, c->data, c->tail);
		l->tail += c->tail;
		l->samples += c->samples;
		c->tail = 0;
		c->samples = 0;
		sg->keep = c;
		return;
	}
	if (l)
		l->next = c;
	else
		q->first = c;
	q->last = sg->last;
}

void kp_queue__release(struct kp_queue *q)
{
	struct stage *sg = &q->sg;
	struct chunk *keep;

	if (!sg->on)
		return;
	pthread_mutex_lock(&q->lock);
	link_staged(q, sg);
	q->st.bytes += sg->bytes;
	q->st.samples += sg->samples;
	q->st.records += sg->records;
	q->st.dropped += sg->dropped;
	pthread_mutex_unlock(&q->lock);
	keep = sg->keep;
	memset(sg, 0, sizeof(*sg));
	sg->keep = keep;
}

/* ---- reading ---- */

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

/* The first chunk with unread records (lock held; read ones recycled). */
static struct chunk *first_unread(struct kp_queue *q)
{
	struct chunk *c;

	while ((c = q->first) && c->head == c->tail) {
		if (c == q->last)
			return NULL;
		q->first = c->next;
		recycle(q, c);
	}
	return c;
}

ssize_t kp_queue__peek(struct kp_queue *q, const void **data, int timeout_ms)
{
	struct chunk *c;
	ssize_t n = 0;

	pthread_mutex_lock(&q->lock);
	if (q->v.c) {
		n = -EBUSY;	/* the last peek was not consumed */
		goto out_unlock;
	}
	wait_nonempty(q, timeout_ms);
	if (q->st.bytes && (c = first_unread(q))) {
		q->v = (struct view){ c, c->tail, c->samples };
		*data = c->data + c->head;
		n = (ssize_t)(c->tail - c->head);
	}
out_unlock:
	pthread_mutex_unlock(&q->lock);
	return n;
}

void kp_queue__consume(struct kp_queue *q)
{
	struct chunk *c;

	pthread_mutex_lock(&q->lock);
	c = q->v.c;
	if (c) {
		q->st.bytes -= q->v.tail - c->head;
		q->st.samples -= q->v.samples - c->samples_read;
		q->st.delivered += q->v.samples - c->samples_read;
		c->head = q->v.tail;
		c->samples_read = q->v.samples;
		if (c->head == c->tail && c == q->last)
			c->head = c->tail = 0;	/* keep one chunk */
		q->v.c = NULL;
	}
	if (q->st.bytes == 0 && q->efd_set) {
		signal_fd(q->efd, 0);
		q->efd_set = 0;
	}
	pthread_mutex_unlock(&q->lock);
}

ssize_t kp_queue__pop(struct kp_queue *q, void *buf, size_t cap,
		      int timeout_ms)
{
	const void *data;
	ssize_t n = kp_queue__peek(q, &data, timeout_ms);

	if (n <= 0)
		return n;
	if ((size_t)n > cap) {
		pthread_mutex_lock(&q->lock);
		q->v.c = NULL;	/* left unread */
		pthread_mutex_unlock(&q->lock);
		return -ENOSPC;
	}
	memcpy(buf, data, (size_t)n);
	kp_queue__consume(q);
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
