// SPDX-License-Identifier: GPL-2.0-only
/* spool.c — the push spool's directory and entry files (see spool.h). */
#include "push/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safedir.h"
#include "util/safefile.h"

#define MARKER "kptop-spool"
#define MAGIC "kptop-push 1\n"
#define MAX_ENTRY (256u << 20)	/* no profile file is read past this */

struct slot {
	uint64_t seq, bytes;
};

struct kp_spool {
	int dfd;
	char path[PATH_MAX];
	size_t max_bytes;
	struct slot *v;		/* v[head..n): oldest first */
	size_t head, n, cap;
	uint64_t bytes, next_seq;
};

/* ---- the entry format ---- */

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= KP_SPOOL_NAME_MAX)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_.-") == n;
}

int kp_spool_header(const struct kp_spool_entry *e, char *buf, size_t len)
{
	int n;

	if (!name_ok(e->app) || !name_ok(e->host) || e->from_s >= e->until_s)
		return -EINVAL;
	n = snprintf(buf, len, MAGIC "app %s\nhost %s\nfrom %" PRIu64 "\nuntil %"
		     PRIu64 "\n\n", e->app, e->host, e->from_s, e->until_s);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* "KEY VALUE\n" at *p: the value into out (len bytes at most, NUL-ended). */
static int field(const uint8_t **p, const uint8_t *end, const char *key,
		 char *out, size_t len)
{
	size_t k = strlen(key), n;
	const uint8_t *nl;

	if ((size_t)(end - *p) < k + 1 || memcmp(*p, key, k) || (*p)[k] != ' ')
		return -1;
	*p += k + 1;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	if (!nl || (n = (size_t)(nl - *p)) == 0 || n >= len)
		return -1;
	memcpy(out, *p, n);
	out[n] = '\0';
	if (strlen(out) != n)
		return -1;	/* a NUL inside */
	*p = nl + 1;
	return 0;
}

static int seconds(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || strlen(s) > 19 || strspn(s, "0123456789") != strlen(s) ||
	    (s[0] == '0' && s[1]))
		return -1;	/* canonical decimal only */
	*out = strtoull(s, &end, 10);
	return 0;
}

int kp_spool_parse(const uint8_t *buf, size_t len, struct kp_spool_entry *e,
		   struct kp_err *err)
{
	const uint8_t *p = buf, *end = buf + len;
	char from[24], until[24];

	memset(e, 0, sizeof(*e));
	if (len < sizeof(MAGIC) - 1 || memcmp(p, MAGIC, sizeof(MAGIC) - 1))
		return kp_err_set(err, KP_EFORMAT, "not a kptop push spool entry");
	p += sizeof(MAGIC) - 1;
	if (field(&p, end, "app", e->app, sizeof(e->app)) || !name_ok(e->app) ||
	    field(&p, end, "host", e->host, sizeof(e->host)) || !name_ok(e->host))
		return kp_err_set(err, KP_EFORMAT, "bad app or host line at byte %zu",
				  (size_t)(p - buf));
	if (field(&p, end, "from", from, sizeof(from)) || seconds(from, &e->from_s) ||
	    field(&p, end, "until", until, sizeof(until)) ||
	    seconds(until, &e->until_s) || e->from_s >= e->until_s)
		return kp_err_set(err, KP_EFORMAT, "bad from or until line at byte %zu",
				  (size_t)(p - buf));
	if (p >= end || *p != '\n')
		return kp_err_set(err, KP_EFORMAT, "no blank line after the header");
	p++;
	if (end - p < 2 || p[0] != 0x1f || p[1] != 0x8b)
		return kp_err_set(err, KP_EFORMAT, "the body is not a gzip profile");
	e->body = p;
	e->body_len = (size_t)(end - p);
	return 0;
}

/* ---- the index ---- */

static int push_slot(struct kp_spool *s, uint64_t seq, uint64_t bytes)
{
	if (s->head > 0 && s->n == s->cap) {	/* slide down over the gap */
		memmove(s->v, s->v + s->head, (s->n - s->head) * sizeof(*s->v));
		s->n -= s->head;
		s->head = 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct slot *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct slot){ seq, bytes };
	s->bytes += bytes;
	if (seq >= s->next_seq)
		s->next_seq = seq + 1;
	return 0;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void entry_name(uint64_t seq, char *buf, size_t len)
{
	snprintf(buf, len, "%020" PRIu64 ".push", seq);
}

/* One name of the directory at open: an entry (indexed), our own
 * temporary file of a run that ended early (removed), else left alone. */
static int scan_one(struct kp_spool *s, const char *name)
{
	struct stat st;
	uint64_t seq;
	char want[32];

	if (strstr(name, ".push.tmp")) {	/* a write a crash cut short */
		if (!fstatat(s->dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_uid == geteuid())
			unlinkat(s->dfd, name, 0);
		return 0;
	}
	if (strlen(name) != 25 || strspn(name, "0123456789") != 20 ||
	    strcmp(name + 20, ".push"))
		return 0;
	seq = strtoull(name, NULL, 10);
	if (seq >= s->next_seq && seq < UINT64_MAX)
		s->next_seq = seq + 1;	/* never write onto that name */
	entry_name(seq, want, sizeof(want));
	if (strcmp(want, name) || fstatat(s->dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return 0;	/* not a file of ours: never read */
	return push_slot(s, seq, (uint64_t)st.st_size);
}

static int scan(struct kp_spool *s, struct kp_err *err)
{
	int fd = openat(s->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *d;
	DIR *dir;
	int rc = 0;

	if (fd < 0 || !(dir = fdopendir(fd))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return kp_err_set(err, rc, "%s: %s", s->path, strerror(-rc));
	}
	while (rc == 0 && (d = readdir(dir)) != NULL)
		rc = scan_one(s, d->d_name);
	closedir(dir);
	if (rc)
		return kp_err_set(err, rc, "indexing the push spool: %s", strerror(-rc));
	if (s->n > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(s->v, s->n, sizeof(*s->v), cmp_slot);
	return 0;
}

/* The marker makes the directory ours for safedir's next check. */
static int mark(struct kp_spool *s, struct kp_err *err)
{
	int fd = openat(s->dfd, MARKER, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			0600);

	if (fd < 0)
		return kp_err_set(err, -errno, "%s/%s: %s", s->path, MARKER,
				  strerror(errno));
	close(fd);
	return 0;
}

struct kp_spool *kp_spool__open(const char *dir, size_t max_bytes,
				struct kp_err *err)
{
	struct kp_spool *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		kp_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	s->dfd = -1;
	s->max_bytes = max_bytes;
	rc = kp_safedir__private(dir, MARKER, "the push spool", s->path,
				 sizeof(s->path), err);
	if (rc == 0) {
		s->dfd = open(s->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = s->dfd < 0 ? kp_err_set(err, -errno, "%s: %s", s->path,
					     strerror(errno)) : 0;
	}
	rc = rc ? rc : mark(s, err);
	rc = rc ? rc : scan(s, err);
	if (rc) {
		kp_spool__close(s);
		errno = -rc;
		return NULL;
	}
	return s;
}

void kp_spool__close(struct kp_spool *s)
{
	if (!s)
		return;
	if (s->dfd >= 0)
		close(s->dfd);
	free(s->v);
	free(s);
}

static void drop_oldest(struct kp_spool *s)
{
	char name[32];

	entry_name(s->v[s->head].seq, name, sizeof(name));
	unlinkat(s->dfd, name, 0);
	s->bytes -= s->v[s->head].bytes;
	if (++s->head == s->n)
		s->head = s->n = 0;
}

/* The entry's file, through util/safefile (a new file renamed into
 * place, never onto an existing name). */
static int write_entry(struct kp_spool *s, uint64_t seq, const char *hdr,
		       size_t n, const struct kp_spool_entry *e, struct kp_err *err)
{
	char path[PATH_MAX + 32];
	struct kp_safefile *f;
	FILE *out;

	snprintf(path, sizeof(path), "%s/%020" PRIu64 ".push", s->path, seq);
	f = kp_safefile__open(path, err);
	if (!f)
		return err && err->code ? err->code : -EIO;
	out = kp_safefile__stream(f);
	if (fwrite(hdr, 1, n, out) != n ||
	    fwrite(e->body, 1, e->body_len, out) != e->body_len) {
		kp_safefile__abort(f);
		return kp_err_set(err, -EIO, "writing %s: %s", path, strerror(errno));
	}
	return kp_safefile__commit(f, err);
}

int kp_spool__add(struct kp_spool *s, const struct kp_spool_entry *e,
		  uint64_t *dropped, struct kp_err *err)
{
	char hdr[512];
	uint64_t seq = s->next_seq;
	int n = kp_spool_header(e, hdr, sizeof(hdr)), rc;

	if (n < 0)
		return kp_err_set(err, n, "a profile with a bad name or interval");
	rc = write_entry(s, seq, hdr, (size_t)n, e, err);
	if (rc)
		return rc;
	s->next_seq = seq + 1;
	rc = push_slot(s, seq, (uint64_t)n + e->body_len);
	if (rc)
		return kp_err_set(err, rc, "out of memory for the spool's index");
	while (s->bytes > s->max_bytes && s->n - s->head > 1) {
		drop_oldest(s);
		(*dropped)++;
	}
	return 0;
}

int kp_spool__oldest(const struct kp_spool *s, uint64_t *seq)
{
	if (s->head == s->n)
		return 0;
	*seq = s->v[s->head].seq;
	return 1;
}

int kp_spool__read(struct kp_spool *s, uint64_t seq, uint8_t **buf,
		   size_t *len, struct kp_err *err)
{
	char name[32];
	struct stat st;
	uint8_t *b;
	ssize_t r;
	int fd, rc = 0;

	entry_name(seq, name, sizeof(name));
	fd = openat(s->dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return kp_err_set(err, -errno, "%s/%s: %s", s->path, name, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size <= 0 || (uint64_t)st.st_size > MAX_ENTRY)
		rc = -EPERM;
	b = rc ? NULL : malloc((size_t)st.st_size);
	if (!rc && !b)
		rc = -ENOMEM;
	if (!rc) {
		r = pread(fd, b, (size_t)st.st_size, 0);
		rc = r == st.st_size ? 0 : -EIO;
	}
	close(fd);
	if (rc) {
		free(b);
		return kp_err_set(err, rc, "%s/%s: %s", s->path, name,
				  rc == -EPERM ? "not a regular file of ours, or too big"
					       : strerror(-rc));
	}
	*buf = b;
	*len = (size_t)st.st_size;
	return 0;
}

void kp_spool__remove(struct kp_spool *s, uint64_t seq)
{
	if (s->head == s->n || s->v[s->head].seq != seq)
		return;	/* dropped meanwhile, or not the oldest */
	drop_oldest(s);
}

void kp_spool__usage(const struct kp_spool *s, uint64_t *entries, uint64_t *bytes)
{
	*entries = s->n - s->head;
	*bytes = s->bytes;
}

const char *kp_spool__path(const struct kp_spool *s)
{
	return s->path;
}
