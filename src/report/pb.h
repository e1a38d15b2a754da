/* SPDX-License-Identifier: GPL-2.0-only */
/* pb.h — a tiny protocol-buffers writer and a string-keyed intern table,
 * for the pprof report (private to src/report/).
 *
 * The writer appends to a growable byte buffer; after any allocation
 * failure it stops writing and remembers it (pb->oom), so callers check
 * once at the end. Keys of the intern table are copied; the table owns
 * them. Not thread-safe. */
#ifndef KP_REPORT_PB_H
#define KP_REPORT_PB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kp_pb {
	uint8_t *buf;
	size_t len, cap;
	int oom;
};

void kp_pb_reset(struct kp_pb *pb);	/* len = 0, keeps the memory */
void kp_pb_fini(struct kp_pb *pb);	/* frees the buffer */
void kp_pb_raw(struct kp_pb *pb, const void *p, size_t n);
void kp_pb_varint(struct kp_pb *pb, uint64_t v);
/* Field with wire type 0 (varint); omitted when v == 0 (proto3). */
void kp_pb_uint(struct kp_pb *pb, unsigned field, uint64_t v);
/* Field with wire type 2 (bytes, strings, embedded messages). */
void kp_pb_bytes(struct kp_pb *pb, unsigned field, const void *p, size_t n);
void kp_pb_msg(struct kp_pb *pb, unsigned field, const struct kp_pb *sub);
/* Packed repeated varints (wire type 2). */
void kp_pb_packed(struct kp_pb *pb, unsigned field, const uint64_t *v,
		  size_t n, struct kp_pb *scratch);

/* Write buf[0..len) to out gzip-compressed (zlib, windowBits 31).
 * Returns 0, -ENOMEM or -EIO. */
int kp_gzip_write(FILE *out, const uint8_t *buf, size_t len);

/* Intern table: byte-string key -> 64-bit value, with insertion order. */
struct kp_intern;
struct kp_intern *kp_intern__new(void);
void kp_intern__free(struct kp_intern *t);
/* Look key up; if absent, insert it with value *val. Sets *val to the
 * stored value. Returns 1 if inserted, 0 if found, -ENOMEM. */
int kp_intern__get(struct kp_intern *t, const void *key, size_t len,
		   uint64_t *val);
size_t kp_intern__count(const struct kp_intern *t);
/* The i-th inserted key (0-based); *len gets its length. */
const void *kp_intern__key(const struct kp_intern *t, size_t i, size_t *len);
/* Change the value of the i-th inserted key. */
void kp_intern__set(struct kp_intern *t, size_t i, uint64_t val);

#endif /* KP_REPORT_PB_H */
