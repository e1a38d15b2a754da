// SPDX-License-Identifier: GPL-2.0-only
/* srcline.c — source lines from world-readable files (srcline.h). */
#include "util/srcline.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct srcfile {
	char *path;		/* as asked; NULL: slot free */
	char *text;		/* NULL: cannot be read (remembered) */
	uint32_t *starts;	/* offset of each line */
	uint32_t nr;
	uint64_t used;
};

struct kp_srclines {
	struct srcfile f[KP_SRCLINE_FILES];
	uint64_t clock;
	char *line;
	size_t cap;
};

struct kp_srclines *kp_srclines__new(void)
{
	return calloc(1, sizeof(struct kp_srclines));
}

static void drop(struct srcfile *f)
{
	free(f->path);
	free(f->text);
	free(f->starts);
	memset(f, 0, sizeof(*f));
}

void kp_srclines__free(struct kp_srclines *s)
{
	if (!s)
		return;
	for (int i = 0; i < KP_SRCLINE_FILES; i++)
		drop(&s->f[i]);
	free(s->line);
	free(s);
}

/* Every directory above the file real may be searched by every user. */
static int dirs_open(const char *real)
{
	char buf[PATH_MAX];
	struct stat st;
	char *slash;

	if (strlen(real) >= sizeof(buf))
		return 0;
	strcpy(buf, real);
	while ((slash = strrchr(buf, '/'))) {
		*slash = 0;
		if (stat(buf[0] ? buf : "/", &st) || !S_ISDIR(st.st_mode) ||
		    !(st.st_mode & S_IXOTH))
			return 0;
	}
	return 1;
}

/* The file's bytes, NUL-terminated, when every user could read them. */
static char *read_open(const char *path, size_t *len)
{
	char real[PATH_MAX], *buf = NULL;
	struct stat st;
	ssize_t n;
	int fd;

	if (path[0] != '/' || !realpath(path, real) || !dirs_open(real))
		return NULL;
	fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(st.st_mode & S_IROTH) ||
	    st.st_size > KP_SRCLINE_MAX_BYTES)
		goto out;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto out;
	n = read(fd, buf, (size_t)st.st_size);
	if (n < 0) {
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[n] = 0;
	*len = (size_t)n;
out:
	close(fd);
	return buf;
}

static int push(struct srcfile *f, size_t *cap, size_t at)
{
	if (f->nr == *cap) {
		size_t n = *cap ? *cap * 2 : 256;
		uint32_t *p = realloc(f->starts, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		f->starts = p;
		*cap = n;
	}
	f->starts[f->nr++] = (uint32_t)at;
	return 0;
}

/* Read the file and index its lines; a file that cannot be had keeps
 * text NULL (and is not tried again while it stays cached). */
static void load(struct srcfile *f)
{
	size_t len = 0, cap = 0;

	f->text = read_open(f->path, &len);
	if (!f->text)
		return;
	if (push(f, &cap, 0))
		goto fail;
	for (size_t i = 0; i + 1 < len; i++)
		if (f->text[i] == '\n' && push(f, &cap, i + 1))
			goto fail;
	return;
fail:
	free(f->text);
	f->text = NULL;
	f->nr = 0;
}

static struct srcfile *file_of(struct kp_srclines *s, const char *path)
{
	struct srcfile *lru = &s->f[0];

	for (int i = 0; i < KP_SRCLINE_FILES; i++) {
		struct srcfile *f = &s->f[i];

		if (f->path && !strcmp(f->path, path)) {
			f->used = ++s->clock;
			return f;
		}
		if (!f->path || f->used < lru->used)
			lru = f;
	}
	drop(lru);
	lru->path = strdup(path);
	if (!lru->path)
		return NULL;
	lru->used = ++s->clock;
	load(lru);
	return lru;
}

const char *kp_srclines__get(struct kp_srclines *s, const char *path, uint32_t line)
{
	struct srcfile *f;
	const char *from, *nl;
	size_t n;

	if (!s || !path || !line)
		return NULL;
	f = file_of(s, path);
	if (!f || !f->text || line > f->nr)
		return NULL;
	from = f->text + f->starts[line - 1];
	nl = strchr(from, '\n');
	n = nl ? (size_t)(nl - from) : strlen(from);
	if (n + 1 > s->cap) {
		char *p = realloc(s->line, n + 1);

		if (!p)
			return NULL;
		s->line = p;
		s->cap = n + 1;
	}
	memcpy(s->line, from, n);
	s->line[n] = 0;
	return s->line;
}
