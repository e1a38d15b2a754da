/* pump-int.h — the pump's insides, shared by pump.c (live records and
 * the spool), pump-save.c (the stream writer) and pump-load.c (reading a
 * saved stream). Private to those three files; same conventions as
 * pump.h. */
#ifndef KP_PUMP_INT_H
#define KP_PUMP_INT_H

#include <stdint.h>
#include <stdio.h>

#include "pump.h"
#include "pump-state.h"
#include "model/stream.h"

#define KP_SPOOL_MAX_BYTES (256u << 20)	/* the spool never holds more */
#define KP_PUMP_MAX_READS 16		/* collector reads per kp_pump__run */
#define KP_PUMP_READ_BYTES (1u << 20)	/* per read; grown for a bigger record */
#define KP_PUMP_BUDGET_NS 50000000ull	/* no new read after 50 ms of work */

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
	uint8_t *buf;			/* one collector read */
	size_t cap;
	uint64_t live_off;		/* bytes taken from the collector */

	uint64_t spool_ns;		/* 0: no spool, fold at once */
	struct kp_spool_chunk *spool_head, *spool_tail;
	uint64_t spool_bytes;
	uint64_t spool_max;		/* bytes, at most KP_SPOOL_MAX_BYTES */
	uint32_t *ctl;			/* control offsets of the chunk at hand */
	size_t nr_ctl, cap_ctl;
	struct kp_ctlstate *state;	/* control records older than the spool */

	/* a loaded stream file (kp_pump__load_file), kept for a re-save */
	const uint8_t *file_map;
	size_t file_size;
	size_t file_start, file_end;	/* its valid records */

	/* saving */
	FILE *save;
	char *save_path, *save_tmp;
	uint64_t save_bytes;

	struct kp_pump_info info;
};

void kp_pump_note_meta(struct kp_pump *p, const struct kp_record *r);

/* While saving, append live bytes; 0 when not saving. */
int kp_pump_save_bytes(struct kp_pump *p, const uint8_t *buf, size_t len,
		       struct kp_err *err);
/* Close and delete an unfinished save (on free). */
void kp_pump_save_abort(struct kp_pump *p);
/* Unmap a loaded file. */
void kp_pump_load_release(struct kp_pump *p);

#endif /* KP_PUMP_INT_H */
