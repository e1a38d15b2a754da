// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/jitmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "symbols/procfs.h"

#define KP_JITMAP_CHUNK (256u << 10)	/* read() size */

struct kp_jitsym {
	uint64_t start;
	uint32_t size;
	uint32_t name;		/* offset in names */
};

/* A source line of JIT code (jitdump debug info): from addr on. */
struct kp_jitline {
	uint64_t addr;
	uint32_t line;
	uint32_t file;		/* offset in names */
};

/* The call frame information of the code loaded at addr (jitdump
 * unwinding info): len bytes at off in names, read at eh_vaddr. */
struct kp_jitunw {
	uint64_t addr, eh_vaddr;
	uint32_t off, len;
};

struct kp_jittab {
	struct kp_jitsym *syms;
	size_t nr, cap;
	char *names;
	size_t len, names_cap;
	struct kp_jitline *lines;
	size_t nr_lines, lines_cap;
	struct kp_jitunw *unw;
	size_t nr_unw, unw_cap;
	uint32_t last_file;	/* the file of the last line added (+1; 0: none) */
	size_t max;		/* bytes the table may hold */
};

/* The trust checks on an O_PATH descriptor (taken): a readable fd of
 * the same file, or -EPERM. */
static int open_trusted(int pfd, uint32_t owner, struct stat *st)
{
	if (fstat(pfd, st) != 0 || !S_ISREG(st->st_mode) ||
	    (st->st_uid != 0 && st->st_uid != owner) ||
	    st->st_size > (off_t)KP_JITMAP_MAX_BYTES) {
		close(pfd);
		return -EPERM;
	}
	return kp_procfs__reopen_regular(pfd);
}

int kp_jitmap__open(const char *path, uint32_t owner, struct stat *st)
{
	/* O_PATH|O_NOFOLLOW: a symlink is seen as one (and refused), and
	 * nothing but a regular file is ever opened for reading */
	int pfd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);

	if (pfd < 0)
		return -errno;
	return open_trusted(pfd, owner, st);
}

int kp_jitmap__open_mapped(const char *map_file, uint32_t owner, struct stat *st)
{
	/* the magic link is followed (it is the kernel's, to the very file
	 * mapped); the file itself is checked as any other */
	int pfd = open(map_file, O_PATH | O_CLOEXEC);

	if (pfd < 0)
		return -errno;
	return open_trusted(pfd, owner, st);
}

int kp_jitmap__open_in_root(const char *proc_root, uint32_t pid, const char *path,
			    uint32_t owner, struct stat *st)
{
	/* resolved inside the process's root; a symbolic link anywhere on
	 * the path (the container's to plant) fails with ELOOP: refused */
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS,
	};
	char root[128];
	int dfd, pfd;

	if (path[0] != '/')
		return -ENOENT;
	snprintf(root, sizeof(root), "%s/%u/root", proc_root, pid);
	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	pfd = (int)syscall(SYS_openat2, dfd, path + 1, &how, sizeof(how));
	if (pfd < 0)
		pfd = errno == ELOOP ? -EPERM : -errno;
	close(dfd);
	if (pfd < 0)
		return pfd;
	return open_trusted(pfd, owner, st);
}

size_t kp_jittab__bytes(const struct kp_jittab *t)
{
	return t ? sizeof(*t) + t->cap * sizeof(*t->syms) + t->names_cap +
			   t->lines_cap * sizeof(*t->lines) +
			   t->unw_cap * sizeof(*t->unw) : 0;
}

/* Make room for need more units of size unit in *p (capacity *cap
 * units), doubling but never past the table's byte limit: -E2BIG. */
static int grow(struct kp_jittab *t, void **p, size_t *cap, size_t used,
		size_t need, size_t unit)
{
	size_t held = kp_jittab__bytes(t) - *cap * unit, room, ncap;
	void *n;

	if (used + need <= *cap)
		return 0;
	if (held >= t->max)
		return -E2BIG;
	room = (t->max - held) / unit;	/* units the limit leaves */
	if (used + need > room)
		return -E2BIG;
	ncap = *cap ? *cap * 2 : 1024;
	if (ncap < used + need)
		ncap = used + need;
	if (ncap > room)
		ncap = room;
	n = realloc(*p, ncap * unit);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = ncap;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A hex number at *p ending in a space; *p moves past the space. */
static int hex_field(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d, n = 0;

	if (s + 2 < end && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	for (; s < end && (d = hexval((unsigned char)*s)) >= 0; s++, n++) {
		if (v >> 60)
			return -EINVAL;	/* more than 64 bits */
		v = v << 4 | (uint64_t)d;
	}
	if (!n || s >= end || *s != ' ')
		return -EINVAL;
	*p = s + 1;
	*out = v;
	return 0;
}

/* name[0, n) into the string block: its offset, or -errno. */
static int64_t add_string(struct kp_jittab *t, const char *name, size_t n)
{
	int err;
	size_t at = t->len;

	if (t->len + n + 1 > UINT32_MAX)
		return -E2BIG;
	if ((err = grow(t, (void **)&t->names, &t->names_cap, t->len, n + 1, 1)))
		return err;
	memcpy(t->names + t->len, name, n);
	t->names[t->len + n] = '\0';
	t->len += n + 1;
	return (int64_t)at;
}

int kp_jittab__add(struct kp_jittab *t, uint64_t start, uint64_t size,
		   const char *name, size_t n)
{
	int64_t off;
	int err;

	if (!size || size > UINT32_MAX || start + size < start || !n ||
	    memchr(name, '\0', n))
		return -EINVAL;
	if ((err = grow(t, (void **)&t->syms, &t->cap, t->nr, 1, sizeof(*t->syms))))
		return err;
	if ((off = add_string(t, name, n)) < 0)
		return (int)off;
	t->syms[t->nr++] = (struct kp_jitsym){ .start = start,
		.size = (uint32_t)size, .name = (uint32_t)off };
	return 0;
}

int kp_jittab__add_line(struct kp_jittab *t, uint64_t addr, const char *file,
			uint32_t line)
{
	int64_t off;
	int err;

	if ((err = grow(t, (void **)&t->lines, &t->lines_cap, t->nr_lines, 1,
			sizeof(*t->lines))))
		return err;
	if (file) {
		if ((off = add_string(t, file, strlen(file))) < 0)
			return (int)off;
		t->last_file = (uint32_t)off + 1;
	} else if (!t->last_file) {
		return -EINVAL;	/* "the same file" with none before */
	}
	t->lines[t->nr_lines++] = (struct kp_jitline){ .addr = addr, .line = line,
		.file = t->last_file - 1 };
	return 0;
}

int kp_jittab__add_unwind(struct kp_jittab *t, uint64_t addr, uint64_t eh_vaddr,
			  const uint8_t *eh, size_t len)
{
	int64_t off;
	int err;

	if (!len || len > KP_JIT_EH_MAX)
		return -EINVAL;
	if ((err = grow(t, (void **)&t->unw, &t->unw_cap, t->nr_unw, 1, sizeof(*t->unw))))
		return err;
	/* the bytes in the string block (names are found by offset only) */
	off = (int64_t)t->len;
	if (t->len + len > UINT32_MAX)
		return -E2BIG;
	if ((err = grow(t, (void **)&t->names, &t->names_cap, t->len, len, 1)))
		return err;
	memcpy(t->names + t->len, eh, len);
	t->len += len;
	t->unw[t->nr_unw++] = (struct kp_jitunw){ .addr = addr, .eh_vaddr = eh_vaddr,
		.off = (uint32_t)off, .len = (uint32_t)len };
	return 0;
}

/* One line [s, end) without its newline: 0, -EINVAL (bad), -E2BIG,
 * -ENOMEM. */
static int add_line(struct kp_jittab *t, const char *s, const char *end)
{
	uint64_t start, size;

	if (end > s && end[-1] == '\r')
		end--;
	if (hex_field(&s, end, &start) || hex_field(&s, end, &size) || s >= end)
		return -EINVAL;
	return kp_jittab__add(t, start, size, s, (size_t)(end - s));
}

/* Address order; at one address the later line (higher name offset)
 * last, so that the dedup below keeps it. */
static int sym_cmp(const void *a, const void *b)
{
	const struct kp_jitsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int line_cmp(const void *a, const void *b)
{
	const struct kp_jitline *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Address order; at one address the later record (higher offset) last. */
static int unw_cmp(const void *a, const void *b)
{
	const struct kp_jitunw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void finish_unwind(struct kp_jittab *t)
{
	size_t out = 0;

	if (t->nr_unw > 1)
		qsort(t->unw, t->nr_unw, sizeof(*t->unw), unw_cmp);
	for (size_t i = 0; i < t->nr_unw; i++) {
		if (out && t->unw[out - 1].addr == t->unw[i].addr)
			out--;	/* the newer load's */
		t->unw[out++] = t->unw[i];
	}
	t->nr_unw = out;
}

static void finish(struct kp_jittab *t)
{
	size_t out = 0, i;
	void *n;

	finish_unwind(t);
	if (t->nr_lines > 1)	/* stable enough: equal addresses are rare */
		qsort(t->lines, t->nr_lines, sizeof(*t->lines), line_cmp);

	for (i = 1; i < t->nr && t->syms[i - 1].start < t->syms[i].start; i++)
		;
	if (i < t->nr)	/* maps are often written in address order */
		qsort(t->syms, t->nr, sizeof(*t->syms), sym_cmp);
	for (i = 0; i < t->nr; i++) {
		if (out && t->syms[out - 1].start == t->syms[i].start)
			out--;	/* the same address again: the newer wins */
		t->syms[out++] = t->syms[i];
	}
	t->nr = out;
	/* give back what doubling left over (names of replaced entries stay
	 * in the block: they were counted when read) */
	if (t->nr && t->nr < t->cap && (n = realloc(t->syms, t->nr * sizeof(*t->syms)))) {
		t->syms = n;
		t->cap = t->nr;
	}
	if (t->len && t->len < t->names_cap && (n = realloc(t->names, t->len))) {
		t->names = n;
		t->names_cap = t->len;
	}
}

/* The lines in buf[0, *have): all complete ones are added; a partial one
 * is moved to the front (eof: it is a line too). *skip: inside an
 * overlong line, dropping bytes up to its newline. */
static int parse(struct kp_jittab *t, char *buf, size_t *have, int eof,
		 int *skip, uint64_t *bad)
{
	char *p = buf, *end = buf + *have, *nl;
	int err;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl && !eof) {
			if (end - p >= KP_JITMAP_LINE_MAX && !*skip) {
				*skip = 1;	/* overlong: a bad line */
				(*bad)++;
			}
			if (*skip)
				p = end;
			break;
		}
		if (!nl)
			nl = end;
		if (*skip)
			*skip = 0;
		else if (nl - p >= KP_JITMAP_LINE_MAX)
			(*bad)++;
		else if ((err = add_line(t, p, nl)) == -EINVAL)
			(*bad)++;
		else if (err)
			return err;
		p = nl + 1;
	}
	*have = p < end ? (size_t)(end - p) : 0;
	memmove(buf, p < end ? p : buf, *have);
	return 0;
}

static int read_all(int fd, struct kp_jittab *t, char *buf, uint64_t *bad,
		    const int *stop)
{
	size_t have = 0;
	int skip = 0, err = 0;

	for (;;) {
		ssize_t n;

		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			return -ECANCELED;
		n = read(fd, buf + have, KP_JITMAP_CHUNK - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -EIO;
		have += (size_t)n;
		err = parse(t, buf, &have, n == 0, &skip, bad);
		if (err || n == 0)
			return err;
	}
}

struct kp_jittab *kp_jittab__new(size_t max_bytes)
{
	struct kp_jittab *t = calloc(1, sizeof(*t));

	if (t)
		t->max = max_bytes;
	return t;
}

void kp_jittab__finish(struct kp_jittab *t)
{
	finish(t);
}

int kp_jitmap__read(int fd, size_t max_bytes, struct kp_jittab **out,
		    uint64_t *bad_lines, const int *stop)
{
	struct kp_jittab *t = calloc(1, sizeof(*t));
	char *buf = malloc(KP_JITMAP_CHUNK);
	uint64_t bad = 0;
	int err = -ENOMEM;

	*out = NULL;
	if (t && buf) {
		t->max = max_bytes;
		err = kp_jittab__bytes(t) > max_bytes ? -E2BIG :
						       read_all(fd, t, buf, &bad, stop);
	}
	free(buf);
	*bad_lines += bad;
	if (err) {
		kp_jittab__free(t);
		return err;
	}
	finish(t);
	*out = t;
	return 0;
}

/* The entry holding addr, or NULL. */
static const struct kp_jitsym *find_sym(const struct kp_jittab *t, uint64_t addr)
{
	size_t lo = 0, hi = t ? t->nr : 0;

	while (lo < hi) {	/* the last entry starting at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - t->syms[lo - 1].start >= t->syms[lo - 1].size)
		return NULL;
	return &t->syms[lo - 1];
}

const char *kp_jittab__lookup(const struct kp_jittab *t, uint64_t addr)
{
	const struct kp_jitsym *e = find_sym(t, addr);

	return e ? t->names + e->name : NULL;
}

int kp_jittab__range(const struct kp_jittab *t, uint64_t addr, uint64_t *start,
		     uint64_t *size)
{
	const struct kp_jitsym *e = find_sym(t, addr);

	if (!e)
		return 0;
	*start = e->start;
	*size = e->size;
	return 1;
}

int kp_jittab__unwind(const struct kp_jittab *t, uint64_t start, const uint8_t **eh,
		      size_t *len, uint64_t *eh_vaddr)
{
	size_t lo = 0, hi = t ? t->nr_unw : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->unw[mid].addr < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == (t ? t->nr_unw : 0) || t->unw[lo].addr != start)
		return 0;
	*eh = (const uint8_t *)t->names + t->unw[lo].off;
	*len = t->unw[lo].len;
	*eh_vaddr = t->unw[lo].eh_vaddr;
	return 1;
}

size_t kp_jittab__count(const struct kp_jittab *t)
{
	return t ? t->nr : 0;
}

int kp_jittab__source(const struct kp_jittab *t, uint64_t addr, const char **file,
		      uint32_t *line)
{
	const struct kp_jitsym *e = find_sym(t, addr);
	size_t lo = 0, hi = e ? t->nr_lines : 0;

	while (lo < hi) {	/* the last line starting at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->lines[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t->lines[lo - 1].addr < e->start)
		return 0;	/* none, or one of other code before it */
	*file = t->names + t->lines[lo - 1].file;
	*line = t->lines[lo - 1].line;
	return 1;
}

const char *kp_jittab__name(const struct kp_jittab *t, size_t i)
{
	return t->names + t->syms[i].name;
}

void kp_jittab__free(struct kp_jittab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->names);
	free(t->lines);
	free(t->unw);
	free(t);
}
