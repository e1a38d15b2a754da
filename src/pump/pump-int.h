/* SPDX-License-Identifier: GPL-2.0-only */
/* pump-int.h — the pump's insides, shared by pump.c (live records and
 * the spool), pump-save.c (the stream writer) and pump-load.c (reading a
 * saved stream). Private to those three files; same conventions as
 * pump.h. */
#ifndef KP_PUMP_INT_H
#define KP_PUMP_INT_H

#include <stdint.h>
#include <stdio.h>

#include "pump/pump.h"
#include "pump/pump-state.h"
#include "pump/python.h"
#include "stream/stream.h"
#include "stream/stream-blk.h"

#define KP_SPOOL_MAX_BYTES (256u << 20)	/* the spool never holds more */
#define KP_PUMP_MAX_READS 16		/* collector reads per kp_pump__run */
#define KP_PUMP_BUDGET_NS 50000000ull	/* no new read after 50 ms of work */
#define KP_PUMP_TRIM_NS 30000000000ull	/* malloc_trim at most every 30 s */
#define KP_PUMP_JITGENS 8		/* JITGEN records per check, at most */

/* One chunk of live bytes (whole records), as read from the collector. */
struct kp_spool_chunk {
	struct kp_spool_chunk *next;
	uint64_t t_ns;		/* CLOCK_MONOTONIC when it arrived */
	size_t len;
	uint32_t nr_ctl;	/* control records in it, by offset */
	uint32_t *ctl_off;
	uint8_t *data;
};

struct kp_pump {
	struct kp_collector *c;		/* NULL when reading a file */
	struct kp_model *m;
	struct kp_decoder *dec;
	uint64_t live_off;		/* bytes taken from the collector */

	uint64_t spool_ns;		/* 0: no spool, fold at once */
	struct kp_spool_chunk *spool_head, *spool_tail;
	uint64_t spool_bytes;
	uint64_t spool_max;		/* bytes, at most KP_SPOOL_MAX_BYTES */
	uint32_t *ctl;			/* control offsets of the chunk at hand */
	size_t nr_ctl, cap_ctl;
	struct kp_ctlstate *state;	/* control records older than the spool */
	uint64_t trim_at;		/* next malloc_trim (CLOCK_MONOTONIC) */

	/* a loaded stream file (kp_pump__load_file), kept for a re-save */
	struct kp_pump_file *in;

	/* saving */
	FILE *save;			/* the stream of save_file */
	struct kp_safefile *save_file;
	char *save_path;
	uint64_t save_bytes;
	struct kp_decoder *save_dec;	/* counts what is written, for END */
	struct kp_stream_sum sum;	/* the open block's checksum, the tally */

	struct kp_pump_info info;

	struct kp_python *py;		/* Python frames (python.h), or NULL */
};

/* A loaded stream file, read through a window of at most
 * KP_STREAM_BLOCK_MAX + KP_STREAM_TAIL_MAX bytes (never mapped: a file
 * that shrinks while it is read is damage, not a SIGBUS). */
struct kp_pump_file {
	int fd;
	uint64_t size;		/* at open; bytes beyond are never read */
	uint64_t start;		/* the first record (the header length) */
	uint64_t end;		/* the end of its valid part */
	uint64_t shrunk_from;	/* the size at open, if it shrank since */
	uint64_t shrunk_to;	/* its size then */
	uint16_t minor;
	uint8_t *buf;		/* bytes [off, off + len) of the file */
	size_t cap, len;
	uint64_t off;
};

/* Calls each(p, r, bytes, len, ctx) for every record of the loaded file
 * up to the end of its valid part, in order: CHECK and END records are
 * checked, never passed on. Returns 0, or 1 when it met damage (the
 * first: *bad_at is the offset where the sound part ends, derr says
 * what), or the callback's negative error (err set by it), or -ENOMEM. */
typedef int (*kp_pump_each)(struct kp_pump *p, const struct kp_record *r,
			    const uint8_t *bytes, size_t len, void *ctx,
			    struct kp_err *err);
int kp_pump_load_walk(struct kp_pump *p, kp_pump_each each, void *ctx,
		      uint64_t *bad_at, struct kp_err *derr, struct kp_err *err);

/* Set err to "PATH: damaged at byte N: what", N being the offset msg
 * starts with ("offset N: ...") or else at. Returns code. */
int kp_pump_load_damage(struct kp_err *err, int code, const char *path,
			uint64_t at, const char *msg);

void kp_pump_note_meta(struct kp_pump *p, const struct kp_record *r);

/* While saving, append live bytes; 0 when not saving. */
int kp_pump_save_bytes(struct kp_pump *p, const uint8_t *buf, size_t len,
		       struct kp_err *err);
/* Close and delete an unfinished save (on free). */
void kp_pump_save_abort(struct kp_pump *p);
/* A record python.c makes (a PYCODE record, the pseudo module's MMAP):
 * the MMAP to the model, the PYCODE to the save file. */
int kp_pump_py_emit(void *ctx, const struct kp_record *r);

/* Close a loaded file. */
void kp_pump_load_release(struct kp_pump *p);

#endif /* KP_PUMP_INT_H */
