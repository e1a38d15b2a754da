/* SPDX-License-Identifier: GPL-2.0-only */
/* pump.h — moves records from their source into the model, and into a
 * stream file while saving.
 *
 * Owns: the decoder of the live byte stream, the save-to-stream writer
 * (temporary name, renamed when complete, mode 0600), the spool (the last
 * N seconds of records, bounded, written first when a save starts) and the
 * reading of a saved stream for `kptop -i`.
 *
 * Who calls it: src/main/kptop.c (batch) and src/tui/ (live view), once per
 * loop turn. It sits above collect and model and wires them; it never
 * draws anything and never exits.
 *
 * Errors: 0 / count or negative errno, with a one-line message in kp_err.
 * A damaged stream file yields every record before the damage: load
 * returns 0 and sets *warning with the byte offset. Not thread-safe.
 */
#ifndef KP_PUMP_H
#define KP_PUMP_H

#include <stdint.h>

#include "collect/collect.h"
#include "model/model.h"
#include "util/kp_err.h"

struct kp_pump;

/* c may be NULL (reading a file: the pump then only loads and saves).
 * spool_s: seconds of records kept for a save started later (0: none). */
struct kp_pump *kp_pump__new(struct kp_collector *c, struct kp_model *m,
			     unsigned spool_s, struct kp_err *err);
void kp_pump__free(struct kp_pump *p);
/* The spool never holds more than bytes (default and most: 256 MiB). */
void kp_pump__set_spool_max(struct kp_pump *p, uint64_t bytes);

/* Drain what the collector has queued (waiting up to timeout_ms for the
 * first record) into the model and, when saving, the file. Returns the
 * number of records moved or -errno. */
int kp_pump__run(struct kp_pump *p, int timeout_ms, struct kp_err *err);

/* Start writing the stream to path: the header, a META record, every
 * process, thread, mapping, cgroup and JIT generation already known, the
 * spool, then the live records (and the JITGEN records the model's
 * check finds, before the records that follow them). Stop: append SYMTAB records for every frame seen, flush,
 * fsync and rename into place. */
int kp_pump__save_start(struct kp_pump *p, const char *path, struct kp_err *err);
int kp_pump__save_stop(struct kp_pump *p, struct kp_err *err);
/* 1 while saving; *path and *bytes describe the file (either may be NULL). */
int kp_pump__saving(const struct kp_pump *p, const char **path, uint64_t *bytes);

/* Read a saved stream into the model (SYMTAB records first, then the
 * rest), with pread through a bounded window (never mapped), checking
 * the blocks and the END record of a file of minor 2 or later. Refuses a
 * file owned by another user unless force (root may read any). On damage
 * (a bad record or block, a cut, a file that shrank while it was read):
 * the records before it are kept, 0 is returned and warning (if not
 * NULL) gets "FILE: damaged at byte N: what". The file stays open for a
 * save started later, which reads and checks it again. */
int kp_pump__load_file(struct kp_pump *p, const char *path, int force,
		       struct kp_err *warning, struct kp_err *err);

/* Python frames: every record goes through py (src/pump/python.h)
 * before the model, and a save carries its PYCODE records. py NULL: none.
 * Borrowed; set before the first run or load. */
struct kp_python;
void kp_pump__set_python(struct kp_pump *p, struct kp_python *py);

/* What the pump has learnt from the records (added for the reports). */
struct kp_pump_info {
	uint32_t freq_hz, ncpus;	/* from the newest META record */
	uint64_t start_mono_ns;		/* META: CLOCK_MONOTONIC at start */
	uint64_t start_real_ns;		/* META: CLOCK_REALTIME at the same instant */
	char hostname[64];		/* META: the host sampled, "" unknown */
	uint64_t records;		/* records read by kp_pump__load_file() */
	uint64_t spool_bytes;		/* bytes in the spool now */
	uint64_t live_bytes;		/* bytes taken from the collector */
};
void kp_pump__info(const struct kp_pump *p, struct kp_pump_info *out);

#endif /* KP_PUMP_H */
