/* SPDX-License-Identifier: GPL-2.0-only */
/* pump-state.h — the pump's own copy of the control records that left
 * the spool: the processes, execs, threads, mappings and cgroups still
 * alive, kept as their encoded bytes, so a save started later begins with
 * everything known (the model has no export API).
 *
 * Who calls it: src/pump/pump.c only. Owns copies of the bytes it is given.
 * Errors: 0 or -ENOMEM. Not thread-safe.
 */
#ifndef KP_PUMP_STATE_H
#define KP_PUMP_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stream/record.h"

struct kp_ctlstate;

struct kp_ctlstate *kp_ctlstate__new(void);
void kp_ctlstate__free(struct kp_ctlstate *s);

/* Fold one decoded record r (whose encoded form is bytes[0..len)) into the
 * state: PROCESS, EXEC, THREAD, MMAP, CGROUP and JITGEN are kept (the
 * newest per process / thread / cgroup; every mapping of a live
 * process), EXIT forgets the thread or process, META is kept as the
 * newest. Other types are ignored. */
int kp_ctlstate__fold(struct kp_ctlstate *s, const struct kp_record *r,
		      const uint8_t *bytes, size_t len);

/* 1 if records of this type are folded (control records and META). */
int kp_ctlstate__wants(uint32_t type);

/* Write META, cgroups, processes, execs, threads, mappings, JIT
 * generations to f, adding
 * the byte count to *bytes. Returns 0 or -EIO. */
int kp_ctlstate__write(const struct kp_ctlstate *s, FILE *f, uint64_t *bytes);

#endif /* KP_PUMP_STATE_H */
