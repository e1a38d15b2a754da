// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/jitworker.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "symbols/jitmap.h"

enum job_state { JOB_NONE = 0, JOB_READING, JOB_DONE };

struct kp_jitworker {
	pthread_t thread;
	int started;
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* to the thread: a job, or quit */
	pthread_cond_t done;		/* from the thread: the job is read */
	enum job_state state;
	int fd, quit;
	int stop;			/* atomic: abandon the read */
	size_t max_bytes;
	kp_jitread_fn *fn;
	struct kp_jitread res;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	struct kp_jitworker *w = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);	/* signals are main's */
	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct kp_jitread r = { 0 };
		kp_jitread_fn *fn;
		uint64_t t0;
		int fd;

		while (!w->quit && (w->state != JOB_READING || w->fd < 0))
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->quit)
			break;
		fd = w->fd;
		fn = w->fn;
		w->fd = -1;
		pthread_mutex_unlock(&w->lock);
		t0 = mono_ns();
		r.err = fn(fd, w->max_bytes, &r.tab, &r.bad_lines, &w->stop);
		r.took_ns = mono_ns() - t0;
		close(fd);
		pthread_mutex_lock(&w->lock);
		w->res = r;
		w->state = JOB_DONE;
		pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct kp_jitworker *kp_jitworker__new(void)
{
	struct kp_jitworker *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = -1;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->done, NULL);
	return w;
}

void kp_jitworker__free(struct kp_jitworker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->quit = 1;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	if (w->started)
		pthread_join(w->thread, NULL);
	if (w->fd >= 0)
		close(w->fd);	/* started, never picked up */
	kp_jittab__free(w->res.tab);
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

int kp_jitworker__start(struct kp_jitworker *w, int fd, kp_jitread_fn *fn,
			size_t max_bytes)
{
	int err = 0;

	pthread_mutex_lock(&w->lock);
	if (w->state != JOB_NONE) {
		pthread_mutex_unlock(&w->lock);
		return -EBUSY;
	}
	if (!w->started) {
		err = -pthread_create(&w->thread, NULL, worker, w);
		w->started = !err;
	}
	if (!err) {
		w->fd = fd;
		w->fn = fn;
		w->max_bytes = max_bytes;
		w->state = JOB_READING;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}

int kp_jitworker__take(struct kp_jitworker *w, unsigned wait_ms,
		       struct kp_jitread *out)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += wait_ms / 1000;
	until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	while (wait_ms && w->state == JOB_READING &&
	       pthread_cond_timedwait(&w->done, &w->lock, &until) == 0)
		;
	if (w->state == JOB_NONE) {
		rc = -ENOENT;
	} else if (w->state == JOB_DONE) {
		*out = w->res;
		w->res = (struct kp_jitread){ 0 };
		w->state = JOB_NONE;
		rc = 1;
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}
