// SPDX-License-Identifier: GPL-2.0-only
/* push.c — the pusher: profiles by application into the spool (the
 * caller's thread), and from the spool to the server (its own thread),
 * oldest first, with backoff (see push.h). */
#include "push/push.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "push/creds.h"
#include "push/http.h"
#include "push/render.h"
#include "push/spool.h"

#define BACKOFF_MIN_MS 1000u
#define BACKOFF_MAX_MS 60000u
#define REQUEST_TIMEOUT_S 60u

struct kp_pusher {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int started, stop;
	uint64_t stop_at;		/* CLOCK_MONOTONIC ms: give up then */
	struct kp_spool *spool;		/* under mu */
	struct kp_http *http;		/* the thread's */
	struct kp_push_stats st;	/* under mu */
	struct kp_push_stats shown;	/* at the last __status */
	char app[KP_SPOOL_NAME_MAX];	/* --app-name, "" none */
	char host[KP_SPOOL_NAME_MAX];
	char url[512];			/* as given, for messages */
	char *userpwd, *bearer;
	char *cacert;			/* --push-cacert's PEM, or NULL */
	size_t cacert_len;
	int quiet;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void say(const struct kp_pusher *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct kp_pusher *p, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (p->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "kptop: push: %s\n", line);
}

/* ---- the thread ---- */

static int stopping(void *ctx)
{
	struct kp_pusher *p = ctx;

	return __atomic_load_n(&p->stop, __ATOMIC_RELAXED) && now_ms() >= p->stop_at;
}

/* Wait ms or until told to stop (mu held). 1: stop now. */
static int wait_ms(struct kp_pusher *p, uint64_t ms)
{
	uint64_t until = now_ms() + ms;
	struct timespec ts;

	while (!(p->stop && now_ms() >= p->stop_at) && now_ms() < until) {
		if (p->stop)	/* in the grace period: no waiting */
			return 1;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)((until - now_ms()) / 1000u);
		ts.tv_nsec += (long)((until - now_ms()) % 1000u) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
	}
	return p->stop && now_ms() >= p->stop_at;
}

static int still_there(const struct kp_pusher *p, uint64_t seq)
{
	uint64_t oldest;

	return kp_spool__oldest(p->spool, &oldest) && oldest == seq;
}

/* Push entry seq (mu held on entry and exit, dropped for the request). */
static void push_one(struct kp_pusher *p, uint64_t seq, unsigned *backoff)
{
	struct kp_spool_entry e;
	struct kp_err err = { 0 };
	enum kp_http_result r;
	uint8_t *buf = NULL;
	size_t len = 0;
	char msg[512];

	if (kp_spool__read(p->spool, seq, &buf, &len, &err) ||
	    kp_spool_parse(buf, len, &e, &err)) {
		say(p, "spool entry %" PRIu64 " removed unsent: %s", seq, err.msg);
		kp_spool__remove(p->spool, seq);
		p->st.rejected++;
		free(buf);
		return;
	}
	pthread_mutex_unlock(&p->mu);
	r = kp_http__push(p->http, &e, msg, sizeof(msg));
	pthread_mutex_lock(&p->mu);
	if (r != KP_HTTP_RETRY && !still_there(p, seq)) {
		/* dropped (spool full) while on its way: counted once */
		if (r == KP_HTTP_OK) {
			p->st.dropped--;
			p->st.sent++;
		}
		*backoff = BACKOFF_MIN_MS;
	} else if (r == KP_HTTP_OK) {
		if (p->st.sent++ == 0 || *backoff > BACKOFF_MIN_MS)
			say(p, "%s accepts profiles (%s, %" PRIu64 "-%" PRIu64 ")",
			    p->url, e.app, e.from_s, e.until_s);
		kp_spool__remove(p->spool, seq);
		*backoff = BACKOFF_MIN_MS;
	} else if (r == KP_HTTP_REJECT) {
		say(p, "%s refused the profile of %s (%" PRIu64 "-%" PRIu64 "), "
		    "dropped: %s", p->url, e.app, e.from_s, e.until_s, msg);
		kp_spool__remove(p->spool, seq);
		p->st.rejected++;
	} else if (!stopping(p)) {
		p->st.failed++;
		say(p, "%s: %s; retrying in %u s (%s, %" PRIu64 "-%" PRIu64 " and "
		    "what follows wait in %s)", p->url, msg, *backoff / 1000u,
		    e.app, e.from_s, e.until_s, kp_spool__path(p->spool));
		wait_ms(p, *backoff);
		*backoff = *backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : *backoff * 2;
	}
	free(buf);
}

static void *run(void *arg)
{
	struct kp_pusher *p = arg;
	unsigned backoff = BACKOFF_MIN_MS;
	uint64_t seq;

	pthread_mutex_lock(&p->mu);
	while (!(p->stop && now_ms() >= p->stop_at)) {
		if (!kp_spool__oldest(p->spool, &seq)) {
			if (p->stop)
				break;
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		push_one(p, seq, &backoff);
		if (p->stop && backoff > BACKOFF_MIN_MS)
			break;	/* the server is away: the rest waits for next time */
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---- construction ---- */

static void default_spool(char *buf, size_t len)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (geteuid() == 0)
		snprintf(buf, len, "/var/spool/kptop");
	else if (state && state[0] == '/')
		snprintf(buf, len, "%s/kptop/spool", state);
	else
		snprintf(buf, len, "%s/.local/state/kptop/spool", home ? home : "");
}

static int build(struct kp_pusher *p, const struct kp_push_opts *o,
		 struct kp_err *err)
{
	struct kp_http_opts ho = { .headers = o->headers, .nr_headers = o->nr_headers,
				   .timeout_s = REQUEST_TIMEOUT_S,
				   .abort = stopping, .abort_ctx = p };
	char endpoint[2048], dir[4096];
	int rc;

	rc = kp_push_endpoint(o->url, &ho.proto, endpoint, sizeof(endpoint), err);
	if (rc)
		return rc;
	ho.endpoint = endpoint;
	if (o->basic_auth_file && o->bearer_file)
		return kp_err_set(err, KP_EUSAGE, "--push-basic-auth and "
				  "--push-bearer exclude each other");
	if (o->basic_auth_file &&
	    (rc = kp_creds__secret(o->basic_auth_file, "--push-basic-auth", &p->userpwd, err)))
		return rc;
	if (o->bearer_file &&
	    (rc = kp_creds__secret(o->bearer_file, "--push-bearer", &p->bearer, err)))
		return rc;
	if (o->cacert_file &&
	    (rc = kp_creds__cacert(o->cacert_file, &p->cacert, &p->cacert_len, err)))
		return rc;
	ho.userpwd = p->userpwd;
	ho.bearer = p->bearer;
	ho.cacert = p->cacert;
	ho.cacert_len = p->cacert_len;
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return kp_err_set(err, -ENOMEM, "cannot start libcurl");
	p->http = kp_http__new(&ho, err);
	if (!p->http)
		return err->code ? err->code : -ENOMEM;
	if (o->spool_dir)
		snprintf(dir, sizeof(dir), "%s", o->spool_dir);
	else
		default_spool(dir, sizeof(dir));
	p->spool = kp_spool__open(dir, o->spool_max, err);
	if (!p->spool)
		return err->code ? err->code : -errno;
	kp_spool__usage(p->spool, &p->st.waiting, &p->st.waiting_bytes);
	if (p->st.waiting)
		say(p, "%" PRIu64 " profiles of an earlier run wait in %s: pushed "
		    "first", p->st.waiting, kp_spool__path(p->spool));
	return 0;
}

struct kp_pusher *kp_pusher__new(const struct kp_push_opts *o, struct kp_err *err)
{
	struct kp_pusher *p = calloc(1, sizeof(*p));
	int rc;

	if (!p) {
		kp_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->quiet = o->quiet;
	snprintf(p->url, sizeof(p->url), "%s", o->url);
	kp_push_app(NULL, o->host, p->host, sizeof(p->host));
	if (o->app_name)
		kp_push_app(NULL, o->app_name, p->app, sizeof(p->app));
	rc = build(p, o, err);
	if (!rc) {	/* signals stay the caller's: its waits end on them */
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		if (pthread_create(&p->thread, NULL, run, p))
			rc = kp_err_set(err, -EAGAIN, "cannot start the pushing thread");
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (rc) {
		kp_pusher__free(p);
		errno = rc == KP_EUSAGE ? EINVAL : -rc;
		return NULL;
	}
	p->started = 1;
	return p;
}

void kp_pusher__stop(struct kp_pusher *p, unsigned grace_ms)
{
	if (!p->started)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop_at = now_ms() + grace_ms;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	p->started = 0;
}

void kp_pusher__free(struct kp_pusher *p)
{
	if (!p)
		return;
	kp_pusher__stop(p, 0);
	kp_http__free(p->http);
	kp_spool__close(p->spool);
	if (p->userpwd)
		explicit_bzero(p->userpwd, strlen(p->userpwd));
	if (p->bearer)
		explicit_bzero(p->bearer, strlen(p->bearer));
	free(p->userpwd);
	free(p->bearer);
	free(p->cacert);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

/* ---- the caller's side: profiles into the spool ---- */

struct spooling {
	struct kp_pusher *p;
	uint64_t from_s, until_s;
};

static int spool_one(void *ctx, const char *app, const uint8_t *gz, size_t len)
{
	struct spooling *sp = ctx;
	struct kp_pusher *p = sp->p;
	struct kp_spool_entry e = { .from_s = sp->from_s, .until_s = sp->until_s,
				    .body = gz, .body_len = len };
	struct kp_err err = { 0 };
	uint64_t dropped;

	snprintf(e.app, sizeof(e.app), "%s", app);
	snprintf(e.host, sizeof(e.host), "%s", p->host);
	pthread_mutex_lock(&p->mu);
	dropped = p->st.dropped;
	if (kp_spool__add(p->spool, &e, &p->st.dropped, &err)) {
		p->st.spool_errors++;
		say(p, "the profile of %s (%" PRIu64 "-%" PRIu64 ") is lost: %s",
		    app, e.from_s, e.until_s, err.msg);
	} else {
		p->st.spooled++;
	}
	if (p->st.dropped != dropped)
		say(p, "the spool %s is full: its %" PRIu64 " oldest profiles "
		    "dropped unsent (%" PRIu64 " in all)", kp_spool__path(p->spool),
		    p->st.dropped - dropped, p->st.dropped);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

int kp_pusher__interval(struct kp_pusher *p, struct kp_model *m,
			const struct kp_report_info *info, struct kp_err *err)
{
	uint64_t end = info->time_real_ns + (uint64_t)(info->duration_s * 1e9);
	struct spooling sp = { .p = p, .from_s = info->time_real_ns / 1000000000u,
			       .until_s = (end + 999999999u) / 1000000000u };

	if (sp.until_s <= sp.from_s)
		sp.until_s = sp.from_s + 1;
	return kp_push_render(m, info, p->app[0] ? p->app : NULL, spool_one, &sp, err);
}

/* ---- stats ---- */

void kp_pusher__stats(struct kp_pusher *p, struct kp_push_stats *out)
{
	pthread_mutex_lock(&p->mu);
	kp_spool__usage(p->spool, &p->st.waiting, &p->st.waiting_bytes);
	*out = p->st;
	pthread_mutex_unlock(&p->mu);
}

int kp_pusher__status(struct kp_pusher *p, char *buf, size_t len)
{
	struct kp_push_stats s;
	int changed;

	kp_pusher__stats(p, &s);
	snprintf(buf, len, "push: sent %" PRIu64 ", waiting %" PRIu64 " (%" PRIu64
		 " KiB), failed attempts %" PRIu64 ", rejected %" PRIu64
		 ", dropped %" PRIu64 " (spool full), not spooled %" PRIu64,
		 s.sent, s.waiting, s.waiting_bytes >> 10, s.failed, s.rejected,
		 s.dropped, s.spool_errors);
	changed = s.failed != p->shown.failed || s.rejected != p->shown.rejected ||
		  s.dropped != p->shown.dropped || s.spool_errors != p->shown.spool_errors ||
		  (s.waiting > 1) != (p->shown.waiting > 1);
	p->shown = s;
	return changed;
}
