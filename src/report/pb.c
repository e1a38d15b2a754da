// SPDX-License-Identifier: GPL-2.0-only
#include "report/pb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int grow(struct kp_pb *pb, size_t n)
{
	size_t cap;
	uint8_t *nb;

	if (pb->oom)
		return -ENOMEM;
	if (pb->len + n <= pb->cap)
		return 0;
	cap = pb->cap ? pb->cap : 256;
	while (cap < pb->len + n)
		cap *= 2;
	nb = realloc(pb->buf, cap);
	if (!nb) {
		pb->oom = 1;
		return -ENOMEM;
	}
	pb->buf = nb;
	pb->cap = cap;
	return 0;
}

void kp_pb_reset(struct kp_pb *pb)
{
	pb->len = 0;
}

void kp_pb_fini(struct kp_pb *pb)
{
	free(pb->buf);
	memset(pb, 0, sizeof(*pb));
}

void kp_pb_raw(struct kp_pb *pb, const void *p, size_t n)
{
	if (n == 0 || grow(pb, n))
		return;
	memcpy(pb->buf + pb->len, p, n);
	pb->len += n;
}

void kp_pb_varint(struct kp_pb *pb, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	kp_pb_raw(pb, b, n);
}

void kp_pb_uint(struct kp_pb *pb, unsigned field, uint64_t v)
{
	if (!v)
		return;
	kp_pb_varint(pb, (uint64_t)field << 3 | 0);
	kp_pb_varint(pb, v);
}

void kp_pb_bytes(struct kp_pb *pb, unsigned field, const void *p, size_t n)
{
	kp_pb_varint(pb, (uint64_t)field << 3 | 2);
	kp_pb_varint(pb, n);
	kp_pb_raw(pb, p, n);
}

void kp_pb_msg(struct kp_pb *pb, unsigned field, const struct kp_pb *sub)
{
	if (sub->oom)
		pb->oom = 1;
	kp_pb_bytes(pb, field, sub->buf, sub->len);
}

void kp_pb_packed(struct kp_pb *pb, unsigned field, const uint64_t *v,
		  size_t n, struct kp_pb *scratch)
{
	if (n == 0)
		return;
	kp_pb_reset(scratch);
	for (size_t i = 0; i < n; i++)
		kp_pb_varint(scratch, v[i]);
	kp_pb_msg(pb, field, scratch);
}

int kp_gzip_write(FILE *out, const uint8_t *buf, size_t len)
{
	uint8_t chunk[65536];
	z_stream zs;
	int zrc, rc = 0;

	memset(&zs, 0, sizeof(zs));
	/* windowBits 15 + 16: a gzip header and trailer instead of zlib's. */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)buf;
	zs.avail_in = (uInt)len;	/* reports stay far below 4 GiB */
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zrc = deflate(&zs, Z_FINISH);
		if (zrc == Z_STREAM_ERROR) {
			rc = -EIO;
			break;
		}
		if (fwrite(chunk, 1, sizeof(chunk) - zs.avail_out, out) !=
		    sizeof(chunk) - zs.avail_out) {
			rc = -EIO;
			break;
		}
	} while (zrc != Z_STREAM_END);
	deflateEnd(&zs);
	return rc;
}

/* ---- intern table: open addressing, FNV-1a ---- */

struct kp_ikey {
	uint64_t hash, val;
	size_t len;
	uint8_t *key;
};

struct kp_intern {
	struct kp_ikey *items;	/* in insertion order */
	size_t nr, cap_items;
	uint32_t *slots;	/* index + 1 into items; 0 = empty */
	size_t nr_slots;	/* power of two */
};

static uint64_t fnv1a(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 1469598103934665603ULL;

	while (n--) {
		h ^= *b++;
		h *= 1099511628211ULL;
	}
	return h;
}

struct kp_intern *kp_intern__new(void)
{
	struct kp_intern *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nr_slots = 1024;
	t->slots = calloc(t->nr_slots, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void kp_intern__free(struct kp_intern *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++)
		free(t->items[i].key);
	free(t->items);
	free(t->slots);
	free(t);
}

static void place(uint32_t *slots, size_t nr_slots, uint64_t hash, uint32_t idx)
{
	size_t s = hash & (nr_slots - 1);

	while (slots[s])
		s = (s + 1) & (nr_slots - 1);
	slots[s] = idx + 1;
}

static int rehash(struct kp_intern *t)
{
	size_t n = t->nr_slots * 2;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr; i++)
		place(slots, n, t->items[i].hash, (uint32_t)i);
	free(t->slots);
	t->slots = slots;
	t->nr_slots = n;
	return 0;
}

static int insert(struct kp_intern *t, const void *key, size_t len,
		  uint64_t hash, uint64_t val)
{
	struct kp_ikey *it;

	if (t->nr == t->cap_items) {
		size_t cap = t->cap_items ? t->cap_items * 2 : 256;
		struct kp_ikey *ni = realloc(t->items, cap * sizeof(*ni));

		if (!ni)
			return -ENOMEM;
		t->items = ni;
		t->cap_items = cap;
	}
	it = &t->items[t->nr];
	it->key = malloc(len ? len : 1);
	if (!it->key)
		return -ENOMEM;
	memcpy(it->key, key, len);
	it->len = len;
	it->hash = hash;
	it->val = val;
	place(t->slots, t->nr_slots, hash, (uint32_t)t->nr);
	t->nr++;
	return 0;
}

int kp_intern__get(struct kp_intern *t, const void *key, size_t len,
		   uint64_t *val)
{
	uint64_t h = fnv1a(key, len);
	size_t s = h & (t->nr_slots - 1);
	int rc;

	while (t->slots[s]) {
		struct kp_ikey *it = &t->items[t->slots[s] - 1];

		if (it->hash == h && it->len == len && !memcmp(it->key, key, len)) {
			*val = it->val;
			return 0;
		}
		s = (s + 1) & (t->nr_slots - 1);
	}
	if ((t->nr + 1) * 2 > t->nr_slots) {
		rc = rehash(t);
		if (rc)
			return rc;
	}
	rc = insert(t, key, len, h, *val);
	return rc ? rc : 1;
}

size_t kp_intern__count(const struct kp_intern *t)
{
	return t->nr;
}

const void *kp_intern__key(const struct kp_intern *t, size_t i, size_t *len)
{
	if (i >= t->nr)
		return NULL;
	*len = t->items[i].len;
	return t->items[i].key;
}

void kp_intern__set(struct kp_intern *t, size_t i, uint64_t val)
{
	if (i < t->nr)
		t->items[i].val = val;
}
