/* SPDX-License-Identifier: GPL-2.0-only */
/* stream.h — the kptop record stream codec (format: man/kptop-stream.5).
 *
 * Owns: the wire form of records. The encoder turns a struct kp_record
 * into bytes; the decoder turns bytes back into records, checking every
 * length, count and string end against the bytes it was handed before it
 * trusts it. Pure memory-to-memory code: no I/O, no dependency on the rest
 * of kptop but record.h and util/kp_err.h.
 *
 * Who calls it: collect encodes into its central queue; the stream writer
 * copies those bytes to a file; the model, the reports and `kptop -i`
 * decode them. Fuzzed by fuzz/fuzz-stream.c.
 *
 * Errors: 0 or a count on success, negative errno / KP_E* on failure with
 * a message (and the byte offset) in the kp_err. The decoder is not
 * thread-safe; use one per thread.
 */
#ifndef KP_STREAM_H
#define KP_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stream/record.h"
#include "util/kp_err.h"

#define KP_STREAM_MAGIC "KPTOPSTR"	/* 8 bytes, no NUL */
#define KP_STREAM_MAJOR 1
#define KP_STREAM_MINOR 12	/* 1: SAMPLE's weight; 2: CHECK and END; 3: CODE;
				 * 4: META's event, OFFCPU; 5: Python;
				 * 6: SYMTAB's unnamed functions;
				 * 7: OFFCPU's interrupt waker flag;
				 * 8: CODE's first lines; 9: Python 3.8-3.10;
				 * 10: SAMPLE's speculative stack flag;
				 * 11: CODE's eh_frame;
				 * 12: JITGEN, SYMTAB's owner */
#define KP_STREAM_HEADER_LEN 16

/* The longest record the encoder produces or the decoder accepts, in
 * bytes (envelope included). Anything claiming more is malformed. */
#define KP_STREAM_RECORD_MAX (1u << 24)

struct kp_stream_header {
	uint16_t major, minor;
	uint16_t header_len;	/* >= 16: skip this many bytes to the first record */
};

/* Write the 16-byte file header for this version into out. */
void kp_stream_header_encode(uint8_t out[KP_STREAM_HEADER_LEN]);

/* Check a file header: magic, byte order, major version. Returns 0, or
 * KP_ETRUNC (len too short), KP_EFORMAT (not a kptop stream), KP_EVERSION
 * (a major version this build cannot read). */
int kp_stream_header_decode(const uint8_t *buf, size_t len,
			    struct kp_stream_header *out, struct kp_err *err);

/* Encoded size of r, envelope included; 0 if r is invalid (unknown type,
 * a count over its limit, a NULL string). */
size_t kp_record_encoded_size(const struct kp_record *r);

/* Encode r into buf. Returns the number of bytes written, -ENOSPC if cap
 * is too small (nothing useful written), -EINVAL if r is invalid. */
ssize_t kp_record_encode(const struct kp_record *r, uint8_t *buf, size_t cap);

/* The decoder keeps the scratch space that decoded records point into
 * (aligned frame arrays, symbol arrays) and the counters below. */
struct kp_decoder;

struct kp_decoder_stats {
	uint64_t records;		/* records returned */
	uint64_t unknown_skipped;	/* records of an unknown type, skipped */
	uint64_t bytes;			/* bytes consumed */
};

struct kp_decoder *kp_decoder__new(void);
void kp_decoder__free(struct kp_decoder *d);

/* Decode the next record from buf[0..len). base_offset is the offset of
 * buf[0] in the whole stream, used only in error messages.
 *  returns 1: *out holds a record, *used bytes were consumed; out's
 *             pointers are valid until the next call or until buf changes.
 *  returns 0: buf holds no complete record (len == 0 or a record that
 *             continues past len); *used is 0, or the bytes of unknown
 *             records skipped before that point: drop *used bytes either
 *             way. At end of input that means the stream is cut: report
 *             KP_ETRUNC yourself if len > *used.
 *  returns <0: malformed record; err names the byte offset and the fault.
 * Records of an unknown type are skipped by their length and counted;
 * they are never returned. */
int kp_decoder__next(struct kp_decoder *d, const uint8_t *buf, size_t len,
		     uint64_t base_offset, size_t *used, struct kp_record *out,
		     struct kp_err *err);

void kp_decoder__stats(const struct kp_decoder *d, struct kp_decoder_stats *out);

/* Tell the decoder the stream's minor version (from its header). When this
 * build knows that minor (minor <= KP_STREAM_MINOR), payload bytes after a
 * record's last field mean damage and __next fails on them; otherwise, and
 * until this is called, they are a later minor's fields and are ignored.
 * Fields a minor added are read only from streams of that minor or later
 * (until this is called: this build's). */
void kp_decoder__set_minor(struct kp_decoder *d, uint16_t minor);

#endif /* KP_STREAM_H */
