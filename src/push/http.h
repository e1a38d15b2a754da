/* SPDX-License-Identifier: GPL-2.0-only */
/* http.h — one push request over HTTP(S) with libcurl (private to
 * src/push/): Pyroscope's POST /ingest or Parca's WriteRaw as JSON.
 *
 * Owns: the curl handle, the request's headers and authentication.
 * TLS checks the server against the system's CA store (libcurl's
 * default); redirects are not followed. Called by the pushing thread
 * only (not thread-safe; no signals: CURLOPT_NOSIGNAL).
 */
#ifndef KP_PUSH_HTTP_H
#define KP_PUSH_HTTP_H

#include <stddef.h>

#include "push/push.h"
#include "push/spool.h"
#include "util/kp_err.h"

enum kp_http_result {
	KP_HTTP_OK = 0,		/* 2xx: the server has it */
	KP_HTTP_RETRY,		/* no answer, 408, 429, 5xx: try again later */
	KP_HTTP_REJECT,		/* another answer (4xx, 3xx): never accepted */
};

struct kp_http_opts {
	const char *endpoint;		/* http(s)://HOST:PORT/.../ingest|writeraw */
	enum kp_push_proto proto;
	const char *const *headers;	/* "Name: value" */
	size_t nr_headers;
	const char *userpwd;		/* basic auth "user:password", or NULL */
	const char *bearer;		/* bearer token, or NULL */
	/* PEM CA certificates trusted instead of the system's store, or NULL
	 * (handed to libcurl as memory: it opens no file of its own) */
	const char *cacert;
	size_t cacert_len;
	unsigned timeout_s;		/* the whole request */
	/* Polled during a request: non-zero aborts it (kptop is stopping). */
	int (*abort)(void *ctx);
	void *abort_ctx;
};

struct kp_http;

/* NULL with errno and err: the handle could not be made. Checks the
 * headers ("Name: value", no line breaks): KP_EUSAGE. */
struct kp_http *kp_http__new(const struct kp_http_opts *o, struct kp_err *err);
void kp_http__free(struct kp_http *h);

/* Push e; on anything but KP_HTTP_OK, one line in msg saying what went
 * wrong (the HTTP status and the start of the server's answer, or the
 * transfer's error). */
enum kp_http_result kp_http__push(struct kp_http *h, const struct kp_spool_entry *e,
				  char *msg, size_t len);

/* Base64 (RFC 4648, padded) of p[0..n) into out (4 * ((n + 2) / 3) + 1
 * bytes). Pure. */
void kp_base64(const unsigned char *p, size_t n, char *out);

#endif /* KP_PUSH_HTTP_H */
