// SPDX-License-Identifier: GPL-2.0-only
/* http.c — a push as one HTTP request, with libcurl (see http.h).
 *
 * Pyroscope: POST ENDPOINT?name=APP{hostname=H,service_name=APP}&from=F
 * &until=U&format=pprof&spyName=kptop, the gzip pprof as the body.
 * Parca: POST ENDPOINT with WriteRawRequest in grpc-gateway's JSON:
 * {"series":[{"labels":{"labels":[{"name":..,"value":..}]},
 *  "samples":[{"rawProfile":"BASE64"}]}]}. */
#include "push/http.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#define ANSWER_MAX 200	/* bytes of the server's answer kept for a message */

struct kp_http {
	CURL *curl;
	struct curl_slist *hdrs;
	struct kp_http_opts o;
	char *endpoint;
	char answer[ANSWER_MAX + 1];
	size_t answer_len;
	char errbuf[CURL_ERROR_SIZE];
};

void kp_base64(const unsigned char *p, size_t n, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789+/";
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		out[o++] = tab[v >> 18];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = tab[v >> 6 & 63];
		out[o++] = tab[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);

		out[o++] = tab[v >> 18];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
}

/* The start of the server's answer, for messages. */
static size_t on_answer(char *data, size_t size, size_t n, void *ctx)
{
	struct kp_http *h = ctx;
	size_t len = size * n, room = ANSWER_MAX - h->answer_len;

	memcpy(h->answer + h->answer_len, data, len < room ? len : room);
	h->answer_len += len < room ? len : room;
	return len;
}

static int on_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c,
		       curl_off_t d)
{
	struct kp_http *h = ctx;

	(void)a; (void)b; (void)c; (void)d;
	return h->o.abort && h->o.abort(h->o.abort_ctx);
}

static int header_ok(const char *s)
{
	const char *colon = strchr(s, ':');

	return colon && colon > s && !strpbrk(s, "\r\n") &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789-_") == (size_t)(colon - s);
}

static int setup(struct kp_http *h, struct kp_err *err)
{
	CURL *c = h->curl;
	struct curl_slist *l;

	for (size_t i = 0; i < h->o.nr_headers; i++) {
		if (!header_ok(h->o.headers[i]))
			return kp_err_set(err, KP_EUSAGE, "invalid value '%s' for "
					  "--push-header: expected 'Name: value', such "
					  "as 'X-Scope-OrgID: tenant1'", h->o.headers[i]);
		if (!(l = curl_slist_append(h->hdrs, h->o.headers[i])))
			return kp_err_set(err, -ENOMEM, "out of memory");
		h->hdrs = l;
	}
	l = curl_slist_append(h->hdrs, h->o.proto == KP_PUSH_PARCA ?
			      "Content-Type: application/json" :
			      "Content-Type: application/octet-stream");
	if (!l)
		return kp_err_set(err, -ENOMEM, "out of memory");
	h->hdrs = l;
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)h->o.timeout_s);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->hdrs);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_answer);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, h);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "kptop/" PACKAGE_VERSION);
	if (h->o.cacert) {
		struct curl_blob ca = { .data = (void *)h->o.cacert, .len = h->o.cacert_len,
					.flags = CURL_BLOB_COPY };

		curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
	}
	if (h->o.userpwd) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERPWD, h->o.userpwd);
	} else if (h->o.bearer) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
		curl_easy_setopt(c, CURLOPT_XOAUTH2_BEARER, h->o.bearer);
	}
	return 0;
}

struct kp_http *kp_http__new(const struct kp_http_opts *o, struct kp_err *err)
{
	struct kp_http *h = calloc(1, sizeof(*h));
	int rc;

	if (!h || !(h->endpoint = strdup(o->endpoint))) {
		free(h);
		kp_err_set(err, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	h->o = *o;
	h->o.endpoint = h->endpoint;
	h->curl = curl_easy_init();
	rc = h->curl ? setup(h, err) : kp_err_set(err, -ENOMEM, "cannot start libcurl");
	if (rc) {
		kp_http__free(h);
		errno = rc == KP_EUSAGE ? EINVAL : -rc;
		return NULL;
	}
	return h;
}

void kp_http__free(struct kp_http *h)
{
	if (!h)
		return;
	curl_slist_free_all(h->hdrs);
	if (h->curl)
		curl_easy_cleanup(h->curl);
	free(h->endpoint);
	free(h);
}

/* Pyroscope's URL with the query; NULL when out of memory. */
static char *pyroscope_url(struct kp_http *h, const struct kp_spool_entry *e)
{
	char name[3 * KP_SPOOL_NAME_MAX + 64], *esc, *url = NULL;

	snprintf(name, sizeof(name), "%s{hostname=%s,service_name=%s}", e->app,
		 e->host, e->app);
	esc = curl_easy_escape(h->curl, name, 0);
	if (esc && asprintf(&url, "%s?name=%s&from=%" PRIu64 "&until=%" PRIu64
			    "&format=pprof&spyName=kptop", h->endpoint, esc,
			    e->from_s, e->until_s) < 0)
		url = NULL;
	curl_free(esc);
	return url;
}

/* Parca's JSON body; NULL when out of memory. Names hold only
 * [A-Za-z0-9_.-] (spool.h): nothing to escape. */
static char *parca_body(const struct kp_spool_entry *e, size_t *len)
{
	size_t b64 = 4 * ((e->body_len + 2) / 3) + 1, cap = b64 + 512;
	char *s = malloc(cap);
	int n;

	if (!s)
		return NULL;
	n = snprintf(s, cap, "{\"series\":[{\"labels\":{\"labels\":["
		     "{\"name\":\"__name__\",\"value\":\"process_cpu\"},"
		     "{\"name\":\"hostname\",\"value\":\"%s\"},"
		     "{\"name\":\"service_name\",\"value\":\"%s\"}]},"
		     "\"samples\":[{\"rawProfile\":\"", e->host, e->app);
	if (n < 0 || (size_t)n + b64 + 8 > cap) {
		free(s);
		return NULL;
	}
	kp_base64(e->body, e->body_len, s + n);
	n += (int)(b64 - 1);
	n += snprintf(s + n, cap - (size_t)n, "\"}]}]}");
	*len = (size_t)n;
	return s;
}

/* The server's answer made one printable line. */
static const char *answer_line(struct kp_http *h)
{
	size_t i;

	for (i = 0; i < h->answer_len; i++)
		if (!isprint((unsigned char)h->answer[i]))
			h->answer[i] = ' ';
	h->answer[h->answer_len] = '\0';
	return h->answer;
}

static enum kp_http_result outcome(struct kp_http *h, CURLcode rc, char *msg,
				   size_t len)
{
	long status = 0;

	if (rc != CURLE_OK) {
		const char *what = rc == CURLE_PEER_FAILED_VERIFICATION ||
				   rc == CURLE_SSL_CONNECT_ERROR ||
				   rc == CURLE_SSL_CERTPROBLEM ||
				   rc == CURLE_SSL_CACERT_BADFILE ? "TLS failure" :
				   rc == CURLE_COULDNT_CONNECT ? "connection refused" :
				   rc == CURLE_COULDNT_RESOLVE_HOST ? "unknown host" :
				   rc == CURLE_OPERATION_TIMEDOUT ? "no answer in time" :
				   "transfer failed";

		snprintf(msg, len, "%s: %s", what, h->errbuf[0] ? h->errbuf :
			 curl_easy_strerror(rc));
		return KP_HTTP_RETRY;
	}
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 200 && status < 300)
		return KP_HTTP_OK;
	snprintf(msg, len, "HTTP %ld from the server: %.120s", status, answer_line(h));
	if (status == 408 || status == 429 || status >= 500)
		return KP_HTTP_RETRY;
	return KP_HTTP_REJECT;
}

enum kp_http_result kp_http__push(struct kp_http *h, const struct kp_spool_entry *e,
				  char *msg, size_t len)
{
	char *url = NULL, *body = NULL;
	size_t blen = e->body_len;
	CURLcode rc;

	h->answer_len = 0;
	h->errbuf[0] = '\0';
	if (h->o.proto == KP_PUSH_PARCA)
		body = parca_body(e, &blen);
	else
		url = pyroscope_url(h, e);
	if (!url && !body) {
		snprintf(msg, len, "out of memory");
		return KP_HTTP_RETRY;
	}
	curl_easy_setopt(h->curl, CURLOPT_URL, url ? url : h->endpoint);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body ? body : (const char *)e->body);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)blen);
	rc = curl_easy_perform(h->curl);
	free(url);
	free(body);
	return outcome(h, rc, msg, len);
}
