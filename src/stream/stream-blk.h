/* SPDX-License-Identifier: GPL-2.0-only */
/* stream-blk.h — the blocks and the END record of a saved stream file
 * (man/kptop-stream.5, "BLOCKS AND THE END").
 *
 * Owns: the writer's running checksum and tally (struct kp_stream_sum),
 * which says when a block is due and encodes the CHECK and END records;
 * the reader's block check (kp_stream_block), which finds the CHECK
 * record that closes a block and verifies it before the caller uses any
 * record of the block; and the END record's check against what a reader
 * found. Pure memory to memory, like stream.h: no I/O, no allocation.
 *
 * Who calls it: the stream file writer and reader (src/pump/pump-save.c,
 * src/pump/pump-load.c), the tests and fuzz/fuzz-stream.c.
 *
 * Errors: negative KP_E* codes with the byte offset and the fault in the
 * kp_err, as stream.h does.
 */
#ifndef KP_STREAM_BLK_H
#define KP_STREAM_BLK_H

#include <stddef.h>
#include <stdint.h>

#include "stream/record.h"
#include "stream/stream.h"
#include "util/kp_err.h"

/* A writer closes a block once it holds this many bytes; a reader
 * refuses a block (its CHECK record excluded) longer than the MAX. */
#define KP_STREAM_BLOCK (64u << 10)
#define KP_STREAM_BLOCK_MAX (KP_STREAM_BLOCK + KP_STREAM_RECORD_MAX)
/* Room for the records kp_stream_sum__check / __end encode. */
#define KP_STREAM_TAIL_MAX 256

/* What a stream holds: what an END record says, and what a reader or a
 * writer counted. */
struct kp_stream_tally {
	uint64_t samples;			/* SAMPLE weights summed */
	uint64_t counts[KP_END_MAX_TYPES];	/* records of type i + 1 */
};

/* Count one record: its type and, for a SAMPLE, its weight. */
void kp_stream_tally__add(struct kp_stream_tally *t, const struct kp_record *r);

/* Compare the END record e (at stream offset off) with what was counted
 * before it, for the types this build knows. 0, or KP_EFORMAT with the
 * first difference in err. */
int kp_stream_tally__check(const struct kp_stream_tally *t,
			   const struct kp_rec_end *e, uint64_t off,
			   struct kp_err *err);

/* The writer's side. Everything written to the file goes through
 * __bytes (the header, then whole records), every record also through
 * __count. */
struct kp_stream_sum {
	uint32_t crc;		/* CRC32C of the open block so far */
	uint64_t block;		/* bytes in the open block */
	uint64_t block_bytes;	/* a block is due at this many */
	struct kp_stream_tally t;
};

/* block_bytes: 0 for KP_STREAM_BLOCK (tests use smaller blocks). */
void kp_stream_sum__init(struct kp_stream_sum *s, uint64_t block_bytes);
void kp_stream_sum__bytes(struct kp_stream_sum *s, const void *buf, size_t len);
static inline void kp_stream_sum__count(struct kp_stream_sum *s,
					const struct kp_record *r)
{
	kp_stream_tally__add(&s->t, r);
}
/* 1 when the open block holds enough bytes to be closed. */
static inline int kp_stream_sum__due(const struct kp_stream_sum *s)
{
	return s->block >= s->block_bytes;
}
/* Encode into buf (KP_STREAM_TAIL_MAX bytes) the CHECK record that closes
 * the open block, and start the next one. Returns its length. */
size_t kp_stream_sum__check(struct kp_stream_sum *s, uint8_t *buf);
/* Encode into buf the END record and the CHECK record that closes the
 * last block. Returns their length. */
size_t kp_stream_sum__end(struct kp_stream_sum *s, uint8_t *buf);

/* The reader's side. buf[0..len) are the stream's bytes from the start
 * of a block (at stream offset base); its first record is at buf[skip]
 * (the header length for the first block, else 0). minor: the stream's
 * (from its header), for the strictness of the CHECK record's payload.
 *  1: the block is whole and sound; *block_len is its length with its
 *     CHECK record (which is the block's last record).
 *  0: buf ends before the block's CHECK record does (read more; at the
 *     end of the file the stream was cut).
 * <0: damage: a record envelope that is malformed or makes the block too
 *     long, or a CHECK record that is malformed or does not match. */
int kp_stream_block(const uint8_t *buf, size_t len, size_t skip,
		    uint64_t base, uint16_t minor, size_t *block_len,
		    struct kp_err *err);

#endif /* KP_STREAM_BLK_H */
