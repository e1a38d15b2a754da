// SPDX-License-Identifier: GPL-2.0-only
/* debuginfod.c — the fetcher thread and its queue (see debuginfod.h).
 *
 * Jobs live in one list: queued, in flight, done (a result to take) or
 * failed (kept, so a build ID that failed is not asked again). A job is
 * freed when its file is taken. The thread is the only user of the
 * libdebuginfod client; its progress callback cancels a transfer once
 * the owner wants the thread to stop. An owner that cannot wait for it
 * any longer leaves it "orphaned": the thread frees everything itself.
 */
#include "symbols/debuginfod.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "util/safedir.h"

#define KP_DEBUGINFOD_STOP_MS 2000	/* the longest free() waits */

enum job_state { JOB_QUEUED = 0, JOB_RUNNING, JOB_DONE, JOB_FAILED };

struct job {
	uint8_t id[KP_DEBUGINFOD_ID_MAX];
	uint8_t id_len;
	enum job_state state;
	int fd;				/* JOB_DONE: the file, or -errno */
	struct job *next;
};

struct kp_debuginfod {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* to the thread: a job, or quit */
	pthread_cond_t idle;		/* from the thread: it has ended */
	int started, quit, exited, orphan;
	int cancel;			/* atomic: abandon the transfer */
	int wake_signal;
	uint64_t max_size;
	struct job *jobs, **tail;
	uint64_t pending;		/* jobs not failed and not taken */
	unsigned ready;			/* atomic: JOB_DONE jobs */
};

static void free_all(struct kp_debuginfod *d)
{
	while (d->jobs) {
		struct job *j = d->jobs;

		d->jobs = j->next;
		if (j->state == JOB_DONE && j->fd >= 0)
			close(j->fd);
		free(j);
	}
	pthread_cond_destroy(&d->idle);
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

static int progress(debuginfod_client *c, long a, long b)
{
	struct kp_debuginfod *d = debuginfod_get_user_data(c);

	(void)a;
	(void)b;
	return __atomic_load_n(&d->cancel, __ATOMIC_RELAXED);
}

/* The file libdebuginfod gave, or -errno: a regular file within the
 * size bound (what is in it, the taker checks). */
static int fetch(struct kp_debuginfod *d, debuginfod_client **c, const struct job *j)
{
	struct stat st;
	int fd;

	if (!*c) {
		*c = debuginfod_begin();
		if (!*c)
			return -ENOMEM;
		debuginfod_set_user_data(*c, d);
		debuginfod_set_progressfn(*c, progress);
	}
	fd = debuginfod_find_debuginfo(*c, j->id, (int)j->id_len, NULL);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (d->max_size && (uint64_t)st.st_size > d->max_size)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static struct job *next_job(struct kp_debuginfod *d)
{
	for (struct job *j = d->jobs; j; j = j->next)
		if (j->state == JOB_QUEUED)
			return j;
	return NULL;
}

static void block_signals(int wake_signal)
{
	sigset_t set;

	sigfillset(&set);
	if (wake_signal)
		sigdelset(&set, wake_signal);
	pthread_sigmask(SIG_SETMASK, &set, NULL);	/* signals are main's */
}

static void *worker(void *arg)
{
	struct kp_debuginfod *d = arg;
	debuginfod_client *c = NULL;
	struct job *j;
	int fd, orphan;

	block_signals(d->wake_signal);
	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (!d->quit && !(j = next_job(d)))
			pthread_cond_wait(&d->wake, &d->lock);
		if (d->quit)
			break;
		j->state = JOB_RUNNING;
		pthread_mutex_unlock(&d->lock);
		fd = fetch(d, &c, j);
		pthread_mutex_lock(&d->lock);
		j->fd = fd;
		j->state = JOB_DONE;
		__atomic_add_fetch(&d->ready, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&d->lock);
	if (c)
		debuginfod_end(c);
	pthread_mutex_lock(&d->lock);
	d->exited = 1;
	orphan = d->orphan;
	pthread_cond_broadcast(&d->idle);
	pthread_mutex_unlock(&d->lock);
	if (orphan)
		free_all(d);
	return NULL;
}

struct kp_debuginfod *kp_debuginfod__new(uint64_t max_size, int wake_signal)
{
	struct kp_debuginfod *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->max_size = max_size;
	d->wake_signal = wake_signal;
	d->tail = &d->jobs;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->wake, NULL);
	pthread_cond_init(&d->idle, NULL);
	return d;
}

static void deadline_in(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Wait for the thread to end, waking it from a transfer's wait every
 * 10 ms; 1 when it ended. Called with the lock held. */
static int wait_exit(struct kp_debuginfod *d)
{
	struct timespec ts;

	for (unsigned waited = 0; !d->exited && waited < KP_DEBUGINFOD_STOP_MS;
	     waited += 10) {
		if (d->wake_signal)
			pthread_kill(d->thread, d->wake_signal);
		deadline_in(&ts, 10);
		pthread_cond_timedwait(&d->idle, &d->lock, &ts);
	}
	return d->exited;
}

void kp_debuginfod__free(struct kp_debuginfod *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->quit = 1;
	__atomic_store_n(&d->cancel, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&d->wake);
	if (d->started && !wait_exit(d)) {
		d->orphan = 1;	/* it frees d when it ends */
		pthread_mutex_unlock(&d->lock);
		pthread_detach(d->thread);
		return;
	}
	pthread_mutex_unlock(&d->lock);
	if (d->started)
		pthread_join(d->thread, NULL);
	free_all(d);
}

static struct job *find_job(struct kp_debuginfod *d, const uint8_t *id, size_t len)
{
	for (struct job *j = d->jobs; j; j = j->next)
		if (j->id_len == len && !memcmp(j->id, id, len))
			return j;
	return NULL;
}

int kp_debuginfod__want(struct kp_debuginfod *d, const uint8_t *id, size_t len)
{
	struct job *j;
	int rc = 1;

	if (!len || len > KP_DEBUGINFOD_ID_MAX)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	if (find_job(d, id, len)) {
		rc = 0;
		goto out;
	}
	if (!d->started) {
		rc = -pthread_create(&d->thread, NULL, worker, d);
		d->started = rc == 0;
		if (rc)
			goto out;
		rc = 1;
	}
	if (!(j = calloc(1, sizeof(*j)))) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(j->id, id, len);
	j->id_len = (uint8_t)len;
	j->fd = -1;
	*d->tail = j;
	d->tail = &j->next;
	d->pending++;
	pthread_cond_signal(&d->wake);
out:
	pthread_mutex_unlock(&d->lock);
	return rc;
}

/* Unlink job j (the one whose next pointer is *pp) and free it. */
static void drop_job(struct kp_debuginfod *d, struct job **pp)
{
	struct job *j = *pp;

	*pp = j->next;
	if (d->tail == &j->next)
		d->tail = pp;
	free(j);
}

int kp_debuginfod__take(struct kp_debuginfod *d, struct kp_debuginfod_result *out)
{
	struct job **pp;
	int rc = 0;

	if (!__atomic_load_n(&d->ready, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&d->lock);
	for (pp = &d->jobs; *pp; pp = &(*pp)->next) {
		struct job *j = *pp;

		if (j->state != JOB_DONE)
			continue;
		memcpy(out->id, j->id, j->id_len);
		out->id_len = j->id_len;
		out->fd = j->fd;
		__atomic_sub_fetch(&d->ready, 1, __ATOMIC_RELEASE);
		d->pending--;
		if (j->fd >= 0) {
			drop_job(d, pp);	/* asked again: found in the cache */
		} else {
			j->state = JOB_FAILED;	/* never asked again */
			j->fd = -1;
		}
		rc = 1;
		break;
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

uint64_t kp_debuginfod__pending(struct kp_debuginfod *d)
{
	uint64_t n;

	pthread_mutex_lock(&d->lock);
	n = d->pending;
	pthread_mutex_unlock(&d->lock);
	return n;
}

/* kptop's own cache: root's under /var/cache, a user's under theirs. */
static int default_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, len, "/var/cache/kptop/debuginfod");
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/kptop/debuginfod", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.cache/kptop/debuginfod", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int kp_debuginfod__cache_dir(char *buf, size_t len, int *from_env,
			     struct kp_err *err)
{
	const char *env = getenv(DEBUGINFOD_CACHE_PATH_ENV_VAR);
	char path[4096];
	int rc;

	*from_env = env && env[0];
	if (*from_env) {
		if (snprintf(path, sizeof(path), "%s", env) >= (int)sizeof(path))
			return kp_err_set(err, -ENAMETOOLONG, "DEBUGINFOD_CACHE_PATH "
					  "is too long");
	} else if ((rc = default_dir(path, sizeof(path))) != 0) {
		return kp_err_set(err, rc, "no directory for the debuginfod cache "
				  "(set DEBUGINFOD_CACHE_PATH)");
	}
	/* libdebuginfod's file in every cache it has used */
	return kp_safedir__private(path, "cache_clean_interval_s",
				   "the debuginfod cache", buf, len, err);
}
