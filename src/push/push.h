/* SPDX-License-Identifier: GPL-2.0-only */
/* push.h — continuous profiling: each batch interval's profile pushed to
 * a Grafana Pyroscope server (POST /ingest) or a Parca server (WriteRaw
 * over HTTP, POST /profiles/writeraw), one pprof per application.
 *
 * Owns: the URL and its protocol, the application rule (app.c), the
 * spool directory of profiles not pushed yet (spool.c), the HTTP client
 * (libcurl, http.c) and the thread that pushes (push.c). Only this
 * folder includes libcurl.
 *
 * Who calls it: src/main/kptop.c in batch mode with --push: __new before
 * sampling (a bad URL, spool directory or secret file is found then),
 * __interval at the end of each interval (on the main thread: renders
 * the profiles and writes them to the spool, never waits for the
 * network), __status for the status line, __free at exit. The pushing
 * thread sends what the spool holds, oldest first, and is the only one
 * that talks to the server: a slow or absent server never stalls the
 * caller.
 *
 * Errors: 0 or a negative errno with a one-line message in err. The
 * thread's own failures are counted (struct kp_push_stats) and said on
 * stderr, one line each, as they happen. Thread-safe: __interval,
 * __stats and __status may run while the thread pushes.
 */
#ifndef KP_PUSH_H
#define KP_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "report/report.h"
#include "util/kp_err.h"

enum kp_push_proto { KP_PUSH_PYROSCOPE = 0, KP_PUSH_PARCA };

struct kp_push_opts {
	const char *url;		/* --push: pyroscope://, parca://, http(s):// */
	const char *app_name;		/* --app-name: one application; NULL: the rule */
	const char *const *headers;	/* --push-header "Name: value", repeated */
	size_t nr_headers;
	const char *basic_auth_file;	/* --push-basic-auth: "user:password" */
	const char *bearer_file;	/* --push-bearer: a token */
	const char *cacert_file;	/* --push-cacert: CAs instead of the system's */
	const char *spool_dir;		/* --push-spool; NULL: the default */
	size_t spool_max;		/* --push-spool-size, bytes */
	const char *host;		/* the hostname label */
	int quiet;			/* no messages on stderr (tests of the API) */
};

/* Counters since start; a profile is in exactly one of sent, rejected,
 * dropped or waiting (spooled, in the spool now). */
struct kp_push_stats {
	uint64_t spooled;		/* profiles written to the spool */
	uint64_t sent;			/* accepted by the server (2xx) */
	uint64_t failed;		/* attempts that failed and will be retried */
	uint64_t rejected;		/* refused for good (4xx), removed */
	uint64_t dropped;		/* removed unsent: the spool was full */
	uint64_t waiting, waiting_bytes;	/* in the spool now */
	uint64_t spool_errors;		/* profiles that could not be spooled */
};

struct kp_pusher;

/* Parse the URL (KP_EUSAGE with a message naming it), read the secret
 * files, check and make the spool directory, load what it holds from an
 * earlier run, and start the pushing thread. NULL with errno and err. */
struct kp_pusher *kp_pusher__new(const struct kp_push_opts *o, struct kp_err *err);

/* The interval just closed: one profile per application of m (pprof,
 * the report layer's, with info's times), written to the spool in order;
 * past the spool's size the oldest profiles are dropped and counted. */
int kp_pusher__interval(struct kp_pusher *p, struct kp_model *m,
			const struct kp_report_info *info, struct kp_err *err);

void kp_pusher__stats(struct kp_pusher *p, struct kp_push_stats *out);

/* "push: sent N, waiting N (N KiB), ..." into buf; returns 1 when the
 * counters changed since the last call (the caller prints it then). */
int kp_pusher__status(struct kp_pusher *p, char *buf, size_t len);

/* Stop the thread: it may go on pushing for up to grace_ms first (not
 * waiting out a backoff); what is left stays in the spool for the next
 * start. __stats and __status still work after it. */
void kp_pusher__stop(struct kp_pusher *p, unsigned grace_ms);

/* Stop (no grace) and free. NULL is a no-op. */
void kp_pusher__free(struct kp_pusher *p);

/* ---- pure helpers, shared with the tests and fuzz targets ---- */

/* The application of a process, by the rule man/kptop.1 states: the
 * systemd service (its unit name without ".service") or the container
 * ("container-" and 12 hex digits of its id) from the cgroup path, else
 * the command name; characters outside [A-Za-z0-9_.-] become '_'. */
void kp_push_app(const char *cgroup, const char *comm, char *buf, size_t len);

/* The URL's protocol and the HTTP(S) URL of its endpoint into buf, with
 * the default port of the protocol. 0 or KP_EUSAGE with a message. */
int kp_push_endpoint(const char *url, enum kp_push_proto *proto, char *buf,
		     size_t len, struct kp_err *err);

#endif /* KP_PUSH_H */
