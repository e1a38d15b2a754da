// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/jitdump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/jitmap.h"

#define JD_MAGIC 0x4A695444u
#define JD_HDR_MIN 40u
#define JD_PREFIX 16u
#define JD_LOAD_FIXED 40u	/* pid, tid, vma, code_addr, code_size, code_index */
#define JD_MOVE_FIXED 48u
#define JD_DEBUG_FIXED 16u	/* code_addr, nr_entry */
#define JD_ENTRY_FIXED 16u	/* addr, lineno, discrim */
#define JD_UNWIND_FIXED 24u	/* unwinding_size, eh_frame_hdr_size, mapped_size */
#define JD_NAME_MAX 4096u	/* a longer name is a bad record */
#define JD_WINDOW (256u << 10)	/* bytes read at once */

enum { JD_LOAD = 0, JD_MOVE = 1, JD_DEBUG = 2, JD_CLOSE = 3, JD_UNWIND = 4 };

/* A loaded code's name, by code index (for moves): where it is in the
 * file, so that it is not kept twice. */
struct jd_idx {
	uint64_t index;
	uint64_t name_off;	/* 0: free slot (a name is never at 0) */
	uint32_t name_len;
};

struct jd {
	int fd;
	uint8_t *win;		/* file bytes [win_off, win_off + win_len) */
	uint64_t win_off;
	size_t win_len;
	struct kp_jittab *t;
	uint8_t *buf;		/* the record being read */
	size_t cap;
	struct jd_idx *idx;	/* open addressing, cap_idx a power of two */
	size_t nr_idx, cap_idx;
	uint64_t bad;
	/* the last unwinding info record's .eh_frame, for the next code load */
	uint8_t *eh;
	size_t eh_len;
};

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Up to n bytes at off into p: the count, or -EIO. */
static ssize_t pread_full(int fd, uint64_t off, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)p + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -EIO;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* n bytes at off (through the window when they fit in it): 0, 1 at the
 * end of the file (short), or -EIO. Small records cost no read each. */
static int read_at(struct jd *d, uint64_t off, void *p, size_t n)
{
	ssize_t r;

	if (n > JD_WINDOW) {
		r = pread_full(d->fd, off, p, n);
		return r < 0 ? (int)r : (size_t)r < n;
	}
	if (off < d->win_off || off + n > d->win_off + d->win_len) {
		r = pread_full(d->fd, off, d->win, JD_WINDOW);
		if (r < 0)
			return (int)r;
		d->win_off = off;
		d->win_len = (size_t)r;
		if ((size_t)r < n)
			return 1;
	}
	memcpy(p, d->win + (off - d->win_off), n);
	return 0;
}

static uint64_t idx_hash(uint64_t v)
{
	return (v * 0x9e3779b97f4a7c15ull) >> 17;
}

static int idx_grow(struct jd *d)
{
	size_t cap = d->cap_idx ? d->cap_idx * 2 : 1024;
	struct jd_idx *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < d->cap_idx; i++) {
		size_t j;

		if (!d->idx[i].name_off)
			continue;
		for (j = idx_hash(d->idx[i].index) & (cap - 1); n[j].name_off;
		     j = (j + 1) & (cap - 1))
			;
		n[j] = d->idx[i];
	}
	free(d->idx);
	d->idx = n;
	d->cap_idx = cap;
	return 0;
}

static struct jd_idx *idx_slot(struct jd *d, uint64_t index)
{
	size_t j;

	if (!d->cap_idx)
		return NULL;
	for (j = idx_hash(index) & (d->cap_idx - 1); d->idx[j].name_off;
	     j = (j + 1) & (d->cap_idx - 1))
		if (d->idx[j].index == index)
			return &d->idx[j];
	return &d->idx[j];
}

/* Remember where code index's name is (the latest load wins). */
static int idx_put(struct jd *d, uint64_t index, uint64_t name_off, uint32_t len)
{
	struct jd_idx *e;
	int err;

	if ((d->nr_idx + 1) * 2 > d->cap_idx) {
		if (d->nr_idx >= KP_JITDUMP_MAX_INDEX)
			return 0;	/* full: later moves of new codes go unnamed */
		if ((err = idx_grow(d)))
			return err;
	}
	e = idx_slot(d, index);
	if (!e->name_off)
		d->nr_idx++;
	*e = (struct jd_idx){ .index = index, .name_off = name_off, .name_len = len };
	return 0;
}

/* A code load record rec[0, size) at file offset off. */
static int code_load(struct jd *d, const uint8_t *rec, size_t size, uint64_t off)
{
	const uint8_t *f = rec + JD_PREFIX, *name = f + JD_LOAD_FIXED, *nul;
	uint64_t addr, len;
	size_t room;
	int err;

	if (size < JD_PREFIX + JD_LOAD_FIXED + 1)
		return -EINVAL;
	addr = u64(f + 16);
	len = u64(f + 24);
	room = size - JD_PREFIX - JD_LOAD_FIXED;
	nul = memchr(name, '\0', room < JD_NAME_MAX ? room : JD_NAME_MAX);
	/* the code bytes follow the name, inside the record */
	if (!nul || len > room - (size_t)(nul - name) - 1)
		return -EINVAL;
	err = kp_jittab__add(d->t, addr, len, (const char *)name, (size_t)(nul - name));
	if (!err && d->eh_len) {
		/* laid out after the code, as perf's reader does (genelf.c) */
		err = kp_jittab__add_unwind(d->t, addr, addr + ((len + 7) & ~7ull),
					    d->eh, d->eh_len);
		d->eh_len = 0;
	}
	if (err)
		return err;
	return idx_put(d, u64(f + 32), off + (uint64_t)(name - rec),
		       (uint32_t)(nul - name));
}

/* An unwinding info record: its .eh_frame (the data less the trailing
 * .eh_frame_hdr) is kept for the next code load, which it describes.
 * One that is all header is code without call frame information (V8
 * writes one before every code load, most of them so). */
static int unwind_info(struct jd *d, const uint8_t *rec, size_t size)
{
	const uint8_t *f = rec + JD_PREFIX;
	uint64_t all, hdr;

	d->eh_len = 0;
	if (size < JD_PREFIX + JD_UNWIND_FIXED)
		return -EINVAL;
	all = u64(f);
	hdr = u64(f + 8);
	if (all > size - JD_PREFIX - JD_UNWIND_FIXED || hdr > all ||
	    all - hdr > KP_JIT_EH_MAX)
		return -EINVAL;
	if (hdr == all)
		return 0;
	if (!d->eh && !(d->eh = malloc(KP_JIT_EH_MAX)))
		return -ENOMEM;
	d->eh_len = (size_t)(all - hdr);
	memcpy(d->eh, f + JD_UNWIND_FIXED, d->eh_len);
	return 0;
}

/* A code move record: the name of its code index at the new address. */
static int code_move(struct jd *d, const uint8_t *rec, size_t size)
{
	const uint8_t *f = rec + JD_PREFIX;
	struct jd_idx *e;
	char name[JD_NAME_MAX];

	if (size < JD_PREFIX + JD_MOVE_FIXED)
		return -EINVAL;
	e = idx_slot(d, u64(f + 40));
	if (!e || !e->name_off || e->name_len >= sizeof(name) ||
	    read_at(d, e->name_off, name, e->name_len) != 0)
		return -EINVAL;
	return kp_jittab__add(d->t, u64(f + 24), u64(f + 32), name, e->name_len);
}

/* A debug info record: one source line per entry. */
static int debug_info(struct jd *d, const uint8_t *rec, size_t size)
{
	const uint8_t *p = rec + JD_PREFIX + JD_DEBUG_FIXED, *end = rec + size;
	uint64_t n;
	int err;

	if (size < JD_PREFIX + JD_DEBUG_FIXED)
		return -EINVAL;
	n = u64(rec + JD_PREFIX + 8);
	if (n > (size - JD_PREFIX - JD_DEBUG_FIXED) / (JD_ENTRY_FIXED + 1))
		return -EINVAL;
	for (uint64_t i = 0; i < n; i++) {
		const char *file = (const char *)p + JD_ENTRY_FIXED;
		const uint8_t *nul;
		int32_t line;

		if ((size_t)(end - p) < JD_ENTRY_FIXED + 1 ||
		    !(nul = memchr(file, '\0', (size_t)(end - p) - JD_ENTRY_FIXED)))
			return -EINVAL;
		memcpy(&line, p + 8, 4);
		err = kp_jittab__add_line(d->t, u64(p), (uint8_t)file[0] == 0xff &&
					  !file[1] ? NULL : file, line > 0 ? (uint32_t)line : 0);
		if (err)
			return err;
		p = nul + 1;
	}
	return 0;
}

/* The record at off of size bytes (type id) into d->buf, then its parts.
 * 0, 1 (the file ends inside it), -EINVAL (bad), or a fatal -errno. */
static int record(struct jd *d, uint64_t off, uint32_t id, uint32_t size)
{
	int r;

	if (id != JD_LOAD && id != JD_MOVE && id != JD_DEBUG && id != JD_UNWIND)
		return 0;	/* close, unknown: skipped */
	if (size > d->cap) {
		uint8_t *n = realloc(d->buf, size);

		if (!n)
			return -ENOMEM;
		d->buf = n;
		d->cap = size;
	}
	if ((r = read_at(d, off, d->buf, size)))
		return r;
	if (id == JD_LOAD)
		return code_load(d, d->buf, size, off);
	if (id == JD_MOVE) {
		d->eh_len = 0;	/* moved code's pointers would be wrong */
		return code_move(d, d->buf, size);
	}
	if (id == JD_UNWIND)
		return unwind_info(d, d->buf, size);
	return debug_info(d, d->buf, size);
}

/* The header: 0 and the offset of the first record, or -EPROTO. */
static int header(struct jd *d, uint64_t *first)
{
	uint8_t h[JD_HDR_MIN];

	if (read_at(d, 0, h, sizeof(h)) != 0 || u32(h) != JD_MAGIC || u32(h + 4) != 1 ||
	    u32(h + 8) < JD_HDR_MIN)
		return -EPROTO;
	*first = u32(h + 8);
	return 0;
}

static int read_records(struct jd *d, const int *stop)
{
	uint64_t off;
	uint8_t pre[JD_PREFIX];
	int err;

	if ((err = header(d, &off)))
		return err;
	for (;;) {
		uint32_t id, size;

		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			return -ECANCELED;
		if ((err = read_at(d, off, pre, sizeof(pre))))
			return err > 0 ? 0 : err;
		id = u32(pre);
		size = u32(pre + 4);
		if (size < JD_PREFIX)
			return d->bad++, 0;	/* no way to the next record */
		if (size > KP_JITDUMP_REC_MAX) {
			d->bad++;
			off += size;
			continue;
		}
		err = record(d, off, id, size);
		if (err == 1)
			return 0;	/* the last record, still being written */
		if (err == -EINVAL)
			d->bad++;
		else if (err)
			return err;
		off += size;
	}
}

int kp_jitdump__read(int fd, size_t max_bytes, struct kp_jittab **out,
		     uint64_t *bad_records, const int *stop)
{
	struct jd d = { .fd = fd };
	int err;

	*out = NULL;
	d.win = malloc(JD_WINDOW);
	if (!d.win || !(d.t = kp_jittab__new(max_bytes))) {
		free(d.win);
		return -ENOMEM;
	}
	err = read_records(&d, stop);
	free(d.win);
	free(d.buf);
	free(d.idx);
	free(d.eh);
	*bad_records += d.bad;
	if (err) {
		kp_jittab__free(d.t);
		return err;
	}
	kp_jittab__finish(d.t);
	*out = d.t;
	return 0;
}

int kp_jitdump__is_name(const char *base)
{
	const char *p = base;

	if (strncmp(p, "jit-", 4))
		return 0;
	p += 4;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return !strcmp(p, ".dump");
}
