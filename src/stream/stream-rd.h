/* SPDX-License-Identifier: GPL-2.0-only */
/* stream-rd.h — the bounded field reader of the stream decoder. Internal
 * to src/stream/stream-dec.c and stream-blk.c (man/kptop-stream.5,
 * "Encodings").
 *
 * A struct rd reads the fields of one record's payload [p, end). Every
 * reader checks the bytes it needs against end before it reads them. The
 * error is sticky: the first fault is kept in rc and err (with the byte
 * offset base + (position - buf) and the record's name), the cursor jumps
 * to end, and later reads return zeros, so a record decoder reads straight
 * through and checks rc once. Strings and frame arrays are copied into
 * the scratch area, which the caller has sized for the record. Not
 * thread-safe (one rd per decode); never allocates.
 */
#ifndef KP_STREAM_RD_H
#define KP_STREAM_RD_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stream/record.h"
#include "stream/varint.h"
#include "util/kp_err.h"

/* A bump area that decoded records point into, reset for every record. */
struct kp_rd_scratch {
	uint8_t *buf;
	size_t cap, used;
};

/* A reader over one record's payload. */
struct rd {
	const uint8_t *p, *end;		/* payload cursor and end */
	const uint8_t *buf;		/* buf[0], for offsets */
	uint64_t base;			/* offset of buf[0] in the stream */
	struct kp_rd_scratch *sc;		/* where strings and arrays go */
	struct kp_err *err;
	const char *what;		/* record type name */
	int rc;				/* sticky: first fault */
};

/* ---- faults ---- */

static uint64_t off_of(const struct rd *r, const uint8_t *at)
{
	return r->base + (uint64_t)(at - r->buf);
}

__attribute__((format(printf, 3, 4), cold))
static void fail(struct rd *r, const uint8_t *at, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (r->rc)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	r->rc = kp_err_set(r->err, KP_EFORMAT, "offset %" PRIu64 ": %s: %s",
			   off_of(r, at), r->what, what);
	r->p = r->end;
}

/* ---- field readers ---- */

static inline uint64_t get_u64(struct rd *r, const char *field)
{
	uint64_t v = 0;
	int n;

	if (r->p < r->end && *r->p < 0x80)
		return *r->p++;
	n = kp_varint_get(r->p, r->end, &v);
	if (n > 0) {
		r->p += n;
		return v;
	}
	if (!r->rc)
		fail(r, r->p, n == 0 ? "%s runs past the end of the record"
				     : "%s is a varint over 64 bits", field);
	return 0;
}

static inline uint32_t get_u32(struct rd *r, const char *field)
{
	const uint8_t *at = r->p;
	uint64_t v = get_u64(r, field);

	if (v > UINT32_MAX) {
		fail(r, at, "%s %" PRIu64 " does not fit in 32 bits", field, v);
		return 0;
	}
	return (uint32_t)v;
}

static inline int32_t get_i32(struct rd *r, const char *field)
{
	return (int32_t)kp_unzigzag(get_u32(r, field));
}

static inline uint64_t get_addr(struct rd *r, const char *field)
{
	uint64_t v;

	if (r->end - r->p < 8) {
		fail(r, r->p, "%s runs past the end of the record", field);
		return 0;
	}
	v = kp_le64_get(r->p);
	r->p += 8;
	return v;
}

static inline uint32_t get_le32(struct rd *r, const char *field)
{
	uint32_t v;

	if (r->end - r->p < 4) {
		fail(r, r->p, "%s runs past the end of the record", field);
		return 0;
	}
	v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 |
	    (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
	r->p += 4;
	return v;
}

/* Reserve n bytes of scratch aligned to align (a power of two). The
 * caller sized the scratch for the record, so this only fails on a codec
 * bug. */
static void *take(struct rd *r, size_t n, size_t align)
{
	struct kp_rd_scratch *sc = r->sc;
	size_t at = (sc->used + align - 1) & ~(align - 1);

	if (at > sc->cap || n > sc->cap - at) {
		fail(r, r->p, "internal: scratch bound exceeded");
		return NULL;
	}
	sc->used = at + n;
	return sc->buf + at;
}

/* A length-prefixed field of at most max bytes: returns its start and sets
 * *len, or NULL (with a fault) if it does not fit. */
static const uint8_t *get_span(struct rd *r, size_t max, size_t *len,
			       const char *field)
{
	const uint8_t *at = r->p, *s;
	uint64_t n = get_u64(r, field);

	*len = 0;
	if (r->rc)
		return NULL;
	if (n > max) {
		fail(r, at, "%s length %" PRIu64 " is over the limit %zu", field, n, max);
		return NULL;
	}
	if (n > (uint64_t)(r->end - r->p)) {
		fail(r, at, "%s of %" PRIu64 " bytes runs past the end of the record",
		     field, n);
		return NULL;
	}
	s = r->p;
	r->p += n;
	*len = (size_t)n;
	return s;
}

/* A string copied into dst (dst has room for max + 1 bytes), NUL added. */
static void get_str_into(struct rd *r, char *dst, size_t max, const char *field)
{
	size_t n;
	const uint8_t *s = get_span(r, max, &n, field);
	const uint8_t *nul;

	dst[0] = 0;
	if (!s)
		return;
	nul = memchr(s, 0, n);
	if (nul) {
		fail(r, nul, "%s holds a NUL byte", field);
		return;
	}
	memcpy(dst, s, n);
	dst[n] = 0;
}

static inline const char *get_str(struct rd *r, size_t max, const char *field)
{
	const uint8_t *at = r->p;
	uint64_t n = 0;
	char *dst;

	/* Peek the length to reserve exactly n + 1 bytes. */
	if (kp_varint_get(at, r->end, &n) <= 0 || n > max)
		n = 0;		/* get_str_into reports it */
	dst = take(r, (size_t)n + 1, 1);
	if (!dst)
		return "";
	get_str_into(r, dst, max, field);
	return dst;
}

static inline uint8_t get_build_id(struct rd *r, uint8_t id[KP_BUILD_ID_MAX])
{
	uint8_t n;

	if (r->p >= r->end) {
		fail(r, r->p, "build-id runs past the end of the record");
		return 0;
	}
	n = *r->p;
	if (n > KP_BUILD_ID_MAX) {
		fail(r, r->p, "build-id length %u is over the limit %d", n,
		     KP_BUILD_ID_MAX);
		return 0;
	}
	if (r->end - r->p - 1 < n) {
		fail(r, r->p, "build-id of %u bytes runs past the end of the record", n);
		return 0;
	}
	memcpy(id, r->p + 1, n);
	r->p += 1 + n;
	return n;
}

/* A count of at most max, then that many addrs; into dst when given (the
 * regs array) or else into scratch. Returns the count. */
static inline uint32_t get_addrs(struct rd *r, size_t max, uint64_t *dst,
			  const uint64_t **out, const char *field)
{
	const uint8_t *at = r->p;
	uint64_t n = get_u64(r, field);

	if (out)
		*out = NULL;
	if (r->rc)
		return 0;
	if (n > max) {
		fail(r, at, "%s %" PRIu64 " is over the limit %zu", field, n, max);
		return 0;
	}
	if (n * 8 > (uint64_t)(r->end - r->p)) {
		fail(r, at, "%s %" PRIu64 " runs past the end of the record", field, n);
		return 0;
	}
	if (!dst && n) {
		dst = take(r, n * 8, 8);
		if (!dst)
			return 0;
	}
	if (n)
		memcpy(dst, r->p, n * 8);	/* little-endian host */
	r->p += n * 8;
	if (out)
		*out = dst;
	return (uint32_t)n;
}


#endif /* KP_STREAM_RD_H */
