// SPDX-License-Identifier: GPL-2.0-only
/* fuzz-stream.c — fuzz target for the stream decoder (stream/stream.h).
 *
 * Input: a whole stream file. Checks the header, then decodes records to
 * the end, a cut or the first fault. Beyond "no crash, no hang, no leak"
 * it checks two properties and aborts when they fail: every record the
 * decoder returns is valid input for the encoder (no longer than the
 * bytes it came from), decoding that encoding gives back the same bytes
 * (the codec is a fixed point after one round), and the record's bytes
 * less the last one decode as a cut (0), never as damage. It also walks
 * the file's blocks (stream/stream-blk.h): a sound block lies within the
 * input and, one byte short, is not whole (0), never sound or damage;
 * END records are checked against the records before them.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "stream/stream.h"
#include "stream/stream-blk.h"

/* Re-encode r, decode that, re-encode again: both encodings must match. */
static void check_roundtrip(const struct kp_record *r, size_t used)
{
	struct kp_decoder *d2;
	struct kp_record r2;
	size_t n = kp_record_encoded_size(r), n2, used2 = 0;
	uint8_t *a, *b;

	if (n == 0 || n > used)
		abort();	/* decoded something the encoder refuses */
	a = malloc(n);
	b = malloc(n);
	d2 = kp_decoder__new();
	if (!a || !b || !d2)
		goto out;
	if (kp_record_encode(r, a, n) != (ssize_t)n)
		abort();
	kp_decoder__set_minor(d2, KP_STREAM_MINOR);
	if (kp_decoder__next(d2, a, n, 0, &used2, &r2, NULL) != 1 || used2 != n)
		abort();
	n2 = kp_record_encoded_size(&r2);
	if (n2 != n || kp_record_encode(&r2, b, n) != (ssize_t)n || memcmp(a, b, n))
		abort();
out:
	kp_decoder__free(d2);
	free(b);
	free(a);
}

/* The same bytes one short of the record just returned: a cut, never
 * damage and never a record. */
static void check_cut(struct kp_decoder *d, const uint8_t *rec, size_t used,
		      size_t off)
{
	struct kp_record r;
	size_t used2 = 0;

	if (kp_decoder__next(d, rec, used - 1, off, &used2, &r, NULL) != 0 ||
	    used2 >= used)
		abort();
}

/* Walk the blocks from offset 0, the first record at skip. */
static void walk_blocks(const uint8_t *data, size_t size, size_t skip,
			uint16_t minor)
{
	struct kp_err err;
	size_t pos = 0, blen, b2;

	while (pos < size) {
		if (kp_stream_block(data + pos, size - pos, skip, pos, minor, &blen,
				    &err) != 1)
			return;
		if (blen <= skip || blen > size - pos)
			abort();
		if (kp_stream_block(data + pos, blen - 1, skip, pos, minor, &b2,
				    &err) != 0)
			abort();
		pos += blen;
		skip = 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kp_stream_tally t;
	struct kp_stream_header h;
	struct kp_decoder *d;
	struct kp_record r;
	struct kp_err err;
	size_t off, used;
	int rc;

	if (kp_stream_header_decode(data, size, &h, &err) < 0)
		return 0;
	off = h.header_len;
	if (off > size)
		return 0;
	d = kp_decoder__new();
	if (!d)
		return 0;
	kp_decoder__set_minor(d, h.minor);
	walk_blocks(data, size, off, h.minor);
	memset(&t, 0, sizeof(t));
	do {
		used = 0;
		rc = kp_decoder__next(d, data + off, size - off, off, &used, &r, &err);
		if (used > size - off)
			abort();
		if (rc == 1) {
			if (r.type == KP_REC_END)
				kp_stream_tally__check(&t, &r.end, off, &err);
			kp_stream_tally__add(&t, &r);
			check_roundtrip(&r, used);
			check_cut(d, data + off, used, off);
		}
		off += used;
	} while (rc == 1);
	kp_decoder__free(d);
	return 0;
}
