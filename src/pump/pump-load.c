// SPDX-License-Identifier: GPL-2.0-only
/* pump-load.c — reading a saved stream (`kptop -i`): check the owner,
 * check the header, feed the SYMTAB records (pass 1), then everything
 * else (pass 2). The file is read with pread through a bounded window,
 * never mapped: its owner may truncate it while kptop reads it. In a
 * file of minor 2 or later every block is checked (stream-blk.h) before
 * any of its records is used, and the END record must come. Damage (a
 * bad record or block, a cut, a file that shrank) ends both passes: what
 * came before it is kept and a warning names the byte offset. */
#include "pump/pump.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pump/pump-int.h"

#define WINDOW_BYTES (1u << 20)	/* what one read asks for at first */
#define WINDOW_MAX (KP_STREAM_BLOCK_MAX + KP_STREAM_TAIL_MAX)

_Static_assert(WINDOW_MAX >= KP_STREAM_RECORD_MAX, "a record fits");

void kp_pump_load_release(struct kp_pump *p)
{
	if (!p->in)
		return;
	close(p->in->fd);
	free(p->in->buf);
	free(p->in);
	p->in = NULL;
}

static int open_checked(const char *path, int force, struct stat *st,
			struct kp_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0)
		return kp_err_set(err, -errno, "%s: cannot open: %s", path,
				  strerror(errno));
	if (fstat(fd, st)) {
		e = -errno;
		close(fd);
		return kp_err_set(err, e, "%s: %s", path, strerror(-e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return kp_err_set(err, -EINVAL, "%s: not a regular file", path);
	}
	if (!force && geteuid() != 0 && st->st_uid != geteuid()) {
		close(fd);
		return kp_err_set(err, -EPERM, "%s: owned by uid %u, not by you "
				  "(uid %u); use --force to read it anyway", path,
				  (unsigned)st->st_uid, (unsigned)geteuid());
	}
	if (st->st_size < KP_STREAM_HEADER_LEN) {
		close(fd);
		return kp_err_set(err, KP_ETRUNC, "%s: too short to be a kptop "
				  "stream (%jd bytes)", path, (intmax_t)st->st_size);
	}
	return fd;
}

/* ---- the window ---- */

/* Read into the window until it holds want bytes; a file that ends
 * early has shrunk: its end moves there (the caller reports it). */
static int fill(struct kp_pump_file *f, size_t want, struct kp_err *err)
{
	while (f->len < want) {
		size_t n = f->cap - f->len;
		ssize_t got;

		if (n > f->size - (f->off + f->len))
			n = (size_t)(f->size - (f->off + f->len));
		got = pread(f->fd, f->buf + f->len, n, (off_t)(f->off + f->len));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return kp_err_set(err, -errno, "offset %" PRIu64 ": read "
					  "error: %s", f->off + f->len, strerror(errno));
		if (got == 0) {
			struct stat st;

			f->shrunk_from = f->size;
			f->shrunk_to = fstat(f->fd, &st) ? f->off + f->len
							  : (uint64_t)st.st_size;
			f->size = f->off + f->len;	/* what was read stays */
			if (f->end > f->size)
				f->end = f->size;
			return 0;
		}
		f->len += (size_t)got;
	}
	return 0;
}

/* Point *out at the file's bytes [at, at + want), or fewer at its valid
 * end. Returns how many, or a negative errno (err set): out of memory,
 * a read error. */
static ssize_t win(struct kp_pump_file *f, uint64_t at, size_t want,
		   const uint8_t **out, struct kp_err *err)
{
	size_t keep = 0;
	int rc;

	if (at > f->end)
		at = f->end;
	if (want > f->end - at)
		want = (size_t)(f->end - at);
	if (at < f->off || at + want > f->off + f->len) {
		if (at >= f->off && at < f->off + f->len) {
			keep = (size_t)(f->off + f->len - at);
			memmove(f->buf, f->buf + (at - f->off), keep);
		}
		f->off = at;
		f->len = keep;
		if (want > f->cap) {
			uint8_t *nb = realloc(f->buf, want);

			if (!nb)
				return kp_err_set(err, -ENOMEM, "out of memory "
						  "reading %zu bytes", want);
			f->buf = nb;
			f->cap = want;
		}
		rc = fill(f, want, err);
		if (rc)
			return rc;
		if (want > f->end - at)
			want = (size_t)(f->end - at);	/* it shrank */
	}
	*out = f->buf + (at - f->off);
	return (ssize_t)want;
}

/* ---- walking the records ---- */

struct walk {
	kp_pump_each each;
	void *ctx;
	struct kp_stream_tally t;
	int seen_end;
	uint64_t unknown;	/* the decoder's count of skipped records */
	uint64_t *bad_at;
	struct kp_err *derr, *err;
};

/* Damage at off: the first one counts. Returns 1. */
__attribute__((format(printf, 3, 4)))
static int damage(struct walk *w, uint64_t off, const char *fmt, ...)
{
	char msg[sizeof(w->derr->msg)];	/* the arguments may be derr's */
	va_list ap;

	*w->bad_at = off;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(w->derr->msg, msg, sizeof(msg));
	w->derr->code = KP_EFORMAT;
	return 1;
}

static int nomem(struct walk *w)
{
	*w->err = *w->derr;
	return -ENOMEM;
}

/* Records of an unknown type skipped by the last decode, in a file whose
 * version this build knows: damage (the decoder skips them for a later
 * minor's sake). */
static int skipped_unknown(struct kp_pump *p, struct walk *w, uint64_t off)
{
	struct kp_decoder_stats st;

	kp_decoder__stats(p->dec, &st);
	if (st.unknown_skipped == w->unknown || p->in->minor > KP_STREAM_MINOR) {
		w->unknown = st.unknown_skipped;
		return 0;
	}
	return damage(w, off, "a record of a type unknown to version 1.%u",
		      p->in->minor);
}

/* One decoded record at offset off: checks for CHECK and END, the
 * callback for the rest. 0, 1 (damage) or <0 (the callback's error). */
static int take(struct kp_pump *p, struct walk *w, const struct kp_record *r,
		const uint8_t *bytes, size_t len, uint64_t off, int in_block)
{
	struct kp_pump_file *f = p->in;

	if ((r->type == KP_REC_CHECK || r->type == KP_REC_END) && f->minor < 2)
		return damage(w, off, "a %s record in a stream of version 1.%u",
			      r->type == KP_REC_CHECK ? "CHECK" : "END", f->minor);
	if (r->type == KP_REC_CODE && f->minor < 3)
		return damage(w, off, "a CODE record in a stream of version 1.%u",
			      f->minor);
	if (r->type == KP_REC_CHECK) {
		kp_stream_tally__add(&w->t, r);
		if (in_block)
			return 0;	/* the block's last: checked already */
		return damage(w, off, "a CHECK record out of place");
	}
	if (w->seen_end)
		return damage(w, off, "a record after the END record");
	if (r->type == KP_REC_END) {
		w->seen_end = 1;
		if (kp_stream_tally__check(&w->t, &r->end, off, w->derr))
			return damage(w, off, "%s", w->derr->msg);
		return 0;
	}
	kp_stream_tally__add(&w->t, r);
	return w->each(p, r, bytes, len, w->ctx, w->err);
}

/* Decode the records of buf[0..len) (at offset base), which all lie in
 * memory: a checked block. */
static int block_records(struct kp_pump *p, struct walk *w, const uint8_t *buf,
			 size_t len, uint64_t base)
{
	size_t off = 0, used;
	struct kp_record r;
	int rc;

	while (off < len) {
		rc = kp_decoder__next(p->dec, buf + off, len - off, base + off,
				      &used, &r, w->derr);
		if (rc < 0)
			return damage(w, base + off, "%s", w->derr->msg);
		if (rc == 0)	/* cannot be: the block's envelopes were walked */
			return damage(w, base + off, "a record cut short in a block");
		if (skipped_unknown(p, w, base + off))
			return 1;
		rc = take(p, w, &r, buf + off, used, base + off, 1);
		if (rc)
			return rc;
		off += used;
	}
	return 0;
}

/* The reason a stream that ends at f->end is cut. */
static int cut(struct kp_pump_file *f, struct walk *w, uint64_t off,
	       const char *what)
{
	if (f->shrunk_from)
		return damage(w, off, "the file shrank from %" PRIu64 " to %" PRIu64
			      " bytes while it was read%s%s", f->shrunk_from,
			      f->shrunk_to, *what ? "; " : "", what);
	return damage(w, off, "%s", what);
}

/* The window's bytes from at, up to the valid end (0 if at is not in
 * it); nothing is read. */
static size_t win_have(const struct kp_pump_file *f, uint64_t at,
		       const uint8_t **out)
{
	uint64_t end = f->off + f->len < f->end ? f->off + f->len : f->end;

	if (at < f->off || at >= end)
		return 0;
	*out = f->buf + (at - f->off);
	return (size_t)(end - at);
}

/* Read more at at: twice what the window had there, at least
 * WINDOW_BYTES, at most WINDOW_MAX. Returns the bytes from at, 0 when
 * nothing more can come (the end, or the window at its largest), or -1
 * with the walk's result in *rc (1: damage, a read error; -ENOMEM). */
static ssize_t win_more(struct kp_pump_file *f, struct walk *w, uint64_t at,
			size_t had, const uint8_t **out, int *rc)
{
	size_t want = had < WINDOW_BYTES / 2 ? WINDOW_BYTES : 2 * had;
	ssize_t n;

	if (at + had >= f->end || had >= WINDOW_MAX)
		return 0;
	if (want > WINDOW_MAX)
		want = WINDOW_MAX;
	n = win(f, at, want, out, w->derr);
	if (n < 0) {
		*rc = n == -ENOMEM ? nomem(w) : damage(w, at, "%s", w->derr->msg);
		return -1;
	}
	return (size_t)n > had ? n : 0;
}

/* The end of a walk that stopped at f->end without damage on the way. */
static int at_end(struct kp_pump_file *f, struct walk *w)
{
	if (f->shrunk_from)
		return cut(f, w, f->end, "");
	if (f->minor < 2)
		return 0;
	if (!w->seen_end)
		return damage(w, f->end, "the stream ends without its END record "
			      "(cut short)");
	return damage(w, f->end, "the END record is not followed by its CHECK "
		      "record (cut short)");
}

/* Decode records from offset from to f->end through the window: a file
 * of minor 0 or 1, or the last, unchecked block of a later one. */
static int stream_records(struct kp_pump *p, struct walk *w, uint64_t from)
{
	struct kp_pump_file *f = p->in;
	const uint8_t *buf = NULL;
	size_t n = win_have(f, from, &buf), used;
	struct kp_record r;
	ssize_t more;
	int rc;

	while (from < f->end) {
		rc = n ? kp_decoder__next(p->dec, buf, n, from, &used, &r, w->derr) : 0;
		if (rc < 0)
			return damage(w, from, "%s", w->derr->msg);
		if (rc == 0 && !n)
			used = 0;
		if (used && skipped_unknown(p, w, from))
			return 1;
		if (rc == 1) {
			int t = take(p, w, &r, buf, used, from, 0);

			if (t)
				return t;
		}
		from += used;
		buf += used;
		n -= used;
		if (rc == 1 || from >= f->end)
			continue;
		more = win_more(f, w, from, n, &buf, &rc);	/* a record goes on */
		if (more < 0)
			return rc;
		if (more == 0)
			return cut(f, w, from, "the last record is cut short");
		n = (size_t)more;
	}
	return at_end(f, w);
}

/* The block at pos in *b (its records from skip), or 0 when the file's
 * valid part ends before its CHECK record: a last, unchecked block. */
static int get_block(struct kp_pump_file *f, struct walk *w, uint64_t pos,
		     size_t skip, const uint8_t **b, size_t *blen)
{
	size_t n = win_have(f, pos, b);
	ssize_t more;
	int rc;

	for (;;) {
		rc = n ? kp_stream_block(*b, n, skip, pos, f->minor, blen, w->derr) : 0;
		if (rc < 0)
			return damage(w, pos, "%s", w->derr->msg);
		if (rc == 1)
			return 2;
		if (pos + n >= f->end)
			return 0;
		more = win_more(f, w, pos, n, b, &rc);
		if (more < 0)
			return rc;
		if (more == 0)
			return damage(w, pos, "the block at offset %" PRIu64 " and its "
				      "CHECK record are over %u bytes", pos, WINDOW_MAX);
		n = (size_t)more;
	}
}

static int walk_blocks(struct kp_pump *p, struct walk *w)
{
	struct kp_pump_file *f = p->in;
	uint64_t pos = 0;
	size_t skip = (size_t)f->start, blen;
	const uint8_t *b;
	int rc;

	while (pos < f->end) {
		rc = get_block(f, w, pos, skip, &b, &blen);
		if (rc == 0)
			return stream_records(p, w, pos + skip);
		if (rc != 2)
			return rc;
		if (pos + blen > f->end)	/* a shortened valid part */
			return stream_records(p, w, pos + skip);
		rc = block_records(p, w, b + skip, blen - skip, pos + skip);
		if (rc)
			return rc;
		pos += blen;
		skip = 0;
		if (w->seen_end && pos < f->end)
			return damage(w, pos, "%" PRIu64 " bytes after the END "
				      "record's block", f->end - pos);
	}
	if (w->seen_end && !f->shrunk_from)
		return 0;
	return stream_records(p, w, pos + skip);
}

int kp_pump_load_walk(struct kp_pump *p, kp_pump_each each, void *ctx,
		      uint64_t *bad_at, struct kp_err *derr, struct kp_err *err)
{
	struct walk w = { .each = each, .ctx = ctx, .bad_at = bad_at,
			  .derr = derr, .err = err };

	struct kp_decoder_stats st;

	if (!p->in)
		return 0;
	p->in->len = 0;		/* every walk reads the file again */
	kp_decoder__set_minor(p->dec, p->in->minor);
	kp_decoder__stats(p->dec, &st);
	w.unknown = st.unknown_skipped;
	if (p->in->minor < 2)
		return stream_records(p, &w, p->in->start);
	return walk_blocks(p, &w);
}

/* ---- loading ---- */

int kp_pump_load_damage(struct kp_err *err, int code, const char *path,
			uint64_t at, const char *msg)
{
	uint64_t off;
	int k = 0;

	/* The fault's own offset, when the message starts with it. */
	if (sscanf(msg, "offset %" SCNu64 ": %n", &off, &k) == 1 && k > 0) {
		at = off;
		msg += k;
	}
	return kp_err_set(err, code, "%s: damaged at byte %" PRIu64 ": %s", path,
			  at, msg);
}

struct feed {
	int symtab;	/* pass 1: SYMTAB and CODE records only; pass 2: the rest */
	const char *path;
};

static int feed(struct kp_pump *p, const struct kp_record *r,
		const uint8_t *bytes, size_t len, void *ctx, struct kp_err *err)
{
	const struct feed *fd = ctx;
	int rc;

	(void)bytes;
	(void)len;
	if ((r->type == KP_REC_SYMTAB || r->type == KP_REC_CODE) != fd->symtab)
		return 0;
	kp_pump_note_meta(p, r);
	rc = kp_python__record(p->py, r, kp_pump_py_emit, p);
	if (rc == 0)
		rc = kp_model__feed(p->m, r);
	if (rc)
		return kp_err_set(err, rc, "%s: feeding the model: %s", fd->path,
				  kp_strerror(rc));
	p->info.records++;
	return 0;
}

/* One pass; on damage the valid part ends there and warning says so
 * (the earliest damage of the two passes is the one reported). */
static int pass(struct kp_pump *p, const char *path, int symtab,
		struct kp_err *warning, struct kp_err *err)
{
	struct feed fd = { symtab, path };
	struct kp_err derr = { 0 };
	uint64_t bad_at = 0, end = p->in->end;
	int rc = kp_pump_load_walk(p, feed, &fd, &bad_at, &derr, err);

	if (rc != 1)
		return rc;
	if (bad_at < end || !warning || !warning->code)
		kp_pump_load_damage(warning, derr.code, path, bad_at, derr.msg);
	if (bad_at < p->in->end)
		p->in->end = bad_at;
	return 0;
}

static int open_input(struct kp_pump *p, const char *path, int force,
		      struct kp_err *err)
{
	struct kp_pump_file *f;
	struct stat st;
	int fd = open_checked(path, force, &st, err);

	if (fd < 0)
		return fd;
	f = calloc(1, sizeof(*f));
	if (f)
		f->buf = malloc(WINDOW_BYTES);
	if (!f || !f->buf) {
		free(f);
		close(fd);
		return kp_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	f->fd = fd;
	f->cap = WINDOW_BYTES;
	f->size = f->end = (uint64_t)st.st_size;
	p->in = f;
	return 0;
}

int kp_pump__load_file(struct kp_pump *p, const char *path, int force,
		       struct kp_err *warning, struct kp_err *err)
{
	struct kp_stream_header hdr;
	struct kp_err herr = { 0 };
	const uint8_t *h;
	ssize_t n;
	int rc;

	if (warning)
		warning->code = 0, warning->msg[0] = '\0';
	kp_pump_load_release(p);
	rc = open_input(p, path, force, err);
	if (rc)
		return rc;
	n = win(p->in, 0, KP_STREAM_HEADER_LEN, &h, &herr);
	if (n < 0)
		return kp_err_set(err, (int)n, "%s: %s", path, herr.msg);
	rc = kp_stream_header_decode(h, (size_t)n, &hdr, &herr);
	if (rc)
		return kp_err_set(err, rc, "%s: %s", path, herr.msg);
	p->in->minor = hdr.minor;
	p->in->start = hdr.header_len;
	if (p->in->start > p->in->end)
		return kp_err_set(err, KP_ETRUNC, "%s: header length %" PRIu64
				  " beyond the end of the file", path, p->in->start);
	rc = pass(p, path, 1, warning, err);
	if (rc == 0)
		rc = pass(p, path, 0, warning, err);
	return rc;
}
