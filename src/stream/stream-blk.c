// SPDX-License-Identifier: GPL-2.0-only
/* stream-blk.c — blocks, CHECK and END records of a saved stream file
 * (man/kptop-stream.5, "BLOCKS AND THE END"; contract in stream-blk.h).
 */
#include "stream/stream-blk.h"

#include <inttypes.h>
#include <string.h>

#include "stream/stream-rd.h"
#include "stream/varint.h"
#include "util/crc32c.h"

void kp_stream_tally__add(struct kp_stream_tally *t, const struct kp_record *r)
{
	if (r->type >= 1 && r->type <= KP_END_MAX_TYPES)
		t->counts[r->type - 1]++;
	if (r->type == KP_REC_SAMPLE)
		t->samples += kp_sample_weight(&r->sample);
}

static const char *const type_names[KP_REC_TYPE_MAX + 1] = {
	"", "META", "PROCESS", "EXEC", "EXIT", "MMAP", "SAMPLE", "LOST",
	"SYMTAB", "THREAD", "CGROUP", "CHECK", "END", "CODE", "OFFCPU",
	[KP_REC_PYCODE] = "PYCODE", [KP_REC_JITGEN] = "JITGEN",
};

int kp_stream_tally__check(const struct kp_stream_tally *t,
			   const struct kp_rec_end *e, uint64_t off,
			   struct kp_err *err)
{
	if (e->samples != t->samples)
		return kp_err_set(err, KP_EFORMAT, "offset %" PRIu64 ": END record: "
				  "%" PRIu64 " samples, but the file holds %" PRIu64,
				  off, e->samples, t->samples);
	for (uint32_t i = 0; i < KP_REC_TYPE_MAX; i++) {
		uint64_t said = i < e->nr_types ? e->counts[i] : 0;

		if (said != t->counts[i])
			return kp_err_set(err, KP_EFORMAT, "offset %" PRIu64 ": END "
					  "record: %" PRIu64 " %s records, but the file "
					  "holds %" PRIu64, off, said,
					  type_names[i + 1] ? type_names[i + 1] : "unknown",
					  t->counts[i]);
	}
	return 0;
}

void kp_stream_sum__init(struct kp_stream_sum *s, uint64_t block_bytes)
{
	memset(s, 0, sizeof(*s));
	s->block_bytes = block_bytes ? block_bytes : KP_STREAM_BLOCK;
}

void kp_stream_sum__bytes(struct kp_stream_sum *s, const void *buf, size_t len)
{
	s->crc = kp_crc32c(s->crc, buf, len);
	s->block += len;
}

/* Encode r into buf, count it and checksum it into the open block. */
static size_t put(struct kp_stream_sum *s, const struct kp_record *r, uint8_t *buf)
{
	ssize_t n = kp_record_encode(r, buf, KP_STREAM_TAIL_MAX);

	if (n <= 0)
		return 0;	/* cannot happen: both fit by far */
	kp_stream_sum__count(s, r);
	kp_stream_sum__bytes(s, buf, (size_t)n);
	return (size_t)n;
}

size_t kp_stream_sum__check(struct kp_stream_sum *s, uint8_t *buf)
{
	struct kp_record r = { .type = KP_REC_CHECK,
			       .check = { .length = s->block, .crc32c = s->crc } };
	size_t n = put(s, &r, buf);

	s->crc = 0;
	s->block = 0;
	return n;
}

size_t kp_stream_sum__end(struct kp_stream_sum *s, uint8_t *buf)
{
	struct kp_record r = { .type = KP_REC_END };
	uint64_t counts[KP_REC_TYPE_MAX];
	size_t n;

	memcpy(counts, s->t.counts, sizeof(counts));
	r.end = (struct kp_rec_end){ .samples = s->t.samples,
				     .nr_types = KP_REC_TYPE_MAX, .counts = counts };
	n = put(s, &r, buf);
	return n + kp_stream_sum__check(s, buf + n);
}

/* ---- the reader's block check ---- */

/* The CHECK record at rec (payload [pay, pay + plen)) against the block
 * buf[0 .. rec). */
static int check_block(struct rd *r, const uint8_t *rec, const uint8_t *pay,
		       size_t plen, uint16_t minor)
{
	uint64_t len = (uint64_t)(rec - r->buf), length;
	uint32_t crc, want;

	r->what = "CHECK record";
	r->p = pay;
	r->end = pay + plen;
	length = get_u64(r, "length");
	want = get_le32(r, "crc32c");
	if (!r->rc && minor <= KP_STREAM_MINOR && r->p != r->end)
		fail(r, r->p, "%zu bytes after the last field", (size_t)(r->end - r->p));
	if (r->rc)
		return r->rc;
	if (length != len)
		return kp_err_set(r->err, KP_EFORMAT, "offset %" PRIu64 ": the block "
				  "holds %" PRIu64 " bytes, its CHECK record at offset "
				  "%" PRIu64 " says %" PRIu64, r->base, len,
				  off_of(r, rec), length);
	crc = kp_crc32c(0, r->buf, (size_t)len);
	if (crc != want)
		return kp_err_set(r->err, KP_EFORMAT, "offset %" PRIu64 ": the block "
				  "of %" PRIu64 " bytes fails its checksum (CRC32C "
				  "%08" PRIx32 ", its CHECK record at offset %" PRIu64
				  " says %08" PRIx32 ")", r->base, len, crc,
				  off_of(r, rec), want);
	return 1;
}

int kp_stream_block(const uint8_t *buf, size_t len, size_t skip,
		    uint64_t base, uint16_t minor, size_t *block_len,
		    struct kp_err *err)
{
	struct rd r = { .p = buf + skip, .end = buf + len, .buf = buf,
			.base = base, .err = err, .what = "record envelope" };
	uint64_t type, n;
	int k, m, rc;

	*block_len = 0;
	if (!buf || skip > len)
		return 0;
	for (;;) {
		const uint8_t *rec = r.p;

		k = kp_varint_get(rec, r.end, &type);
		m = k > 0 ? kp_varint_get(rec + k, r.end, &n) : 0;
		if (k == 0 || m == 0)
			return 0;
		if (k < 0 || type > UINT32_MAX) {
			fail(&r, rec, "record type is not a 32-bit varint");
			return r.rc;
		}
		if (m < 0 || n > KP_STREAM_RECORD_MAX - (uint64_t)(k + m)) {
			fail(&r, rec + k, "record length is over the limit %u bytes",
			     KP_STREAM_RECORD_MAX);
			return r.rc;
		}
		if (type != KP_REC_CHECK &&
		    (uint64_t)(rec - buf) + (uint64_t)(k + m) + n > KP_STREAM_BLOCK_MAX) {
			fail(&r, rec, "no CHECK record in the %u bytes of the block "
			     "from offset %" PRIu64, KP_STREAM_BLOCK_MAX, base);
			return r.rc;
		}
		if (n > (uint64_t)(r.end - rec - k - m))
			return 0;
		if (type != KP_REC_CHECK) {
			r.p = rec + k + m + n;
			continue;
		}
		rc = check_block(&r, rec, rec + k + m, (size_t)n, minor);
		if (rc == 1)
			*block_len = (size_t)(rec + k + m + n - buf);
		return rc;
	}
}
