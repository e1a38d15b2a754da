// SPDX-License-Identifier: GPL-2.0-only
/* app.c — the application a profile belongs to, and the push URL: pure
 * string work (push.h). */
#include "push/push.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
		   "0123456789_.-"

/* s[0..n) into buf, characters outside NAME_CHARS as '_'. */
static void copy_name(const char *s, size_t n, char *buf, size_t len)
{
	size_t i;

	if (len == 0)
		return;
	for (i = 0; i < n && i + 1 < len; i++)
		buf[i] = strchr(NAME_CHARS, s[i]) && s[i] ? s[i] : '_';
	buf[i] = '\0';
}

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]) || !s[i])
			return 0;
	return 1;
}

/* The id of a container in one cgroup path component: docker-ID.scope,
 * cri-containerd-ID.scope, crio-ID.scope, libpod-ID.scope (systemd
 * driver) or ID alone (cgroupfs driver), ID 64 hex digits. */
static const char *container_id(const char *c, size_t n)
{
	static const char *const pre[] = { "docker-", "cri-containerd-", "crio-",
					    "libpod-", "" };

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t p = strlen(pre[i]), tail = n - p;

		if (n < p + 64 || strncmp(c, pre[i], p))
			continue;
		if ((tail == 64 || (tail == 70 && !strncmp(c + p + 64, ".scope", 6))) &&
		    is_hex(c + p, 64))
			return c + p;
	}
	return NULL;
}

/* A service unit of one component: "NAME.service", but not systemd's
 * per-user manager (user@UID.service), whose processes are the user's. */
static int service(const char *c, size_t n, size_t *name_len)
{
	if (n <= 8 || strncmp(c + n - 8, ".service", 8) || !strncmp(c, "user@", 5))
		return 0;
	*name_len = n - 8;
	return 1;
}

/* The rule: from the leaf of the cgroup path up, the first component
 * that names a container or a service; else the command name. */
void kp_push_app(const char *cgroup, const char *comm, char *buf, size_t len)
{
	const char *end = cgroup ? cgroup + strlen(cgroup) : NULL;

	while (end && end > cgroup) {
		const char *start = end;
		const char *id;
		size_t n;

		while (start > cgroup && start[-1] != '/')
			start--;
		n = (size_t)(end - start);
		if ((id = container_id(start, n)) != NULL) {
			char cid[13];

			memcpy(cid, id, 12);
			cid[12] = '\0';
			snprintf(buf, len, "container-%s", cid);
			return;
		}
		if (service(start, n, &n)) {
			copy_name(start, n, buf, len);
			return;
		}
		end = start > cgroup ? start - 1 : cgroup;
	}
	comm = comm && *comm ? comm : "unknown";
	copy_name(comm, strlen(comm), buf, len);
}

/* ---- the URL ---- */

struct scheme {
	const char *name, *http;
	enum kp_push_proto proto;
	const char *port;	/* default, NULL: the scheme's */
};

static const struct scheme schemes[] = {
	{ "pyroscope://", "http://", KP_PUSH_PYROSCOPE, "4040" },
	{ "pyroscope+https://", "https://", KP_PUSH_PYROSCOPE, NULL },
	{ "parca://", "http://", KP_PUSH_PARCA, "7070" },
	{ "parca+https://", "https://", KP_PUSH_PARCA, NULL },
	{ "http://", "http://", KP_PUSH_PYROSCOPE, NULL },
	{ "https://", "https://", KP_PUSH_PYROSCOPE, NULL },
};

static int bad_url(struct kp_err *err, const char *url, const char *why)
{
	return kp_err_set(err, KP_EUSAGE, "invalid value '%s' for --push: %s "
			  "(expected pyroscope://HOST[:PORT], parca://HOST[:PORT], "
			  "their +https forms, or http(s)://HOST[:PORT] for Pyroscope)",
			  url, why);
}

int kp_push_endpoint(const char *url, enum kp_push_proto *proto, char *buf,
		     size_t len, struct kp_err *err)
{
	const struct scheme *sc = NULL;
	const char *host, *path, *port;
	size_t hn, pl;
	int n;

	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]) && !sc; i++)
		if (!strncasecmp(url, schemes[i].name, strlen(schemes[i].name)))
			sc = &schemes[i];
	if (!sc)
		return bad_url(err, url, "unknown scheme");
	host = url + strlen(sc->name);
	hn = strcspn(host, "/?#");
	path = host + hn;
	if (hn == 0)
		return bad_url(err, url, "no host");
	if (strpbrk(url, " \t\r\n\"<>\\^`{|}") || memchr(host, '@', hn))
		return bad_url(err, url, "a character a URL cannot hold here "
			       "(credentials go in --push-basic-auth FILE)");
	if (strpbrk(path, "?#"))
		return bad_url(err, url, "a query or fragment");
	port = memchr(host, ']', hn);	/* an IPv6 address: [::1]:4040 */
	if (!port)
		port = host;
	port = memchr(port, ':', hn - (size_t)(port - host)) ? NULL : sc->port;
	pl = strlen(path);
	while (pl && path[pl - 1] == '/')
		pl--;	/* the endpoint's path follows */
	n = snprintf(buf, len, "%s%.*s%s%s%.*s%s", sc->http, (int)hn, host,
		     port ? ":" : "", port ? port : "", (int)pl, path,
		     sc->proto == KP_PUSH_PARCA ? "/profiles/writeraw" : "/ingest");
	if (n < 0 || (size_t)n >= len)
		return bad_url(err, url, "too long");
	*proto = sc->proto;
	return 0;
}
