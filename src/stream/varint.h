/* SPDX-License-Identifier: GPL-2.0-only */
/* varint.h — LEB128 varints, zigzag and fixed little-endian helpers for
 * the stream codec (man/kptop-stream.5, "Encodings"). Internal to
 * src/stream/stream-*.c; not part of any public API.
 *
 * Writers: the caller has checked the room (kp_varint_len) beforehand.
 * Readers: never read at or past `end`. Pure functions, thread-safe.
 */
#ifndef KP_STREAM_VARINT_H
#define KP_STREAM_VARINT_H

#include <stdint.h>
#include <string.h>

#define KP_VARINT_MAX 10	/* bytes in the longest 64-bit varint */

/* Bytes needed to encode v as an unsigned LEB128 varint (1..10). */
static inline unsigned kp_varint_len(uint64_t v)
{
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);

	return (bits + 6) / 7;
}

static inline uint8_t *kp_varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t kp_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t kp_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Fixed 8-byte little-endian (the host is little-endian: configure checks). */
static inline uint8_t *kp_le64_put(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static inline uint64_t kp_le64_get(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Read a varint from [p, end). Returns the bytes it used (1..10), 0 if
 * the input ends inside it, -1 if it is malformed (more than 10 bytes, or
 * a value over 64 bits). */
static inline int kp_varint_get(const uint8_t *p, const uint8_t *end,
				uint64_t *out)
{
	uint64_t v = 0;
	int i;

	if (p < end && *p < 0x80) {
		*out = *p;
		return 1;
	}
	for (i = 0; i < KP_VARINT_MAX; i++) {
		if (p + i >= end)
			return 0;
		if (i == KP_VARINT_MAX - 1 && p[i] > 1)
			return -1;
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*out = v;
			return i + 1;
		}
	}
	return -1;
}

#endif /* KP_STREAM_VARINT_H */
