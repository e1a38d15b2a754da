/* SPDX-License-Identifier: GPL-2.0-only */
/* coalesce.h — runs of identical idle samples sent as one weighted SAMPLE
 * record (collect-internal; the rule is in kptop-stream(5), SAMPLE weight).
 *
 * Owns: per CPU, the run it holds back: a copy of the run's first sample
 * (its kernel frames included) and the run's weight. It needs no BPF, no
 * queue and no lock: records leave it only through the caller's emit
 * callback, so it is tested alone (tests/test-coalesce.c).
 *
 * Who calls it: the collector's drain (collect.c), under the collector's
 * lock, with every sample of a pass over the per-CPU buffers, then
 * kp_coalesce__flush at the end of the pass, so nothing is held across
 * passes (no added latency, nothing held at stop).
 *
 * A sample joins the run held for its CPU when both are idle samples
 * (KP_SAMPLE_IDLE, no user frames, registers or stack bytes), equal in
 * every field but time_ns, and it was taken less than KP_COALESCE_SPAN_NS
 * after the run's first one. Any other sample of that CPU emits the held
 * run first, so a CPU's records keep the order of its samples.
 *
 * Errors: the callback counts what it could not queue (the whole weight);
 * __sample and __flush return 0 or the first non-zero callback result.
 * Never: merges a sample that is not idle; holds a run past a flush;
 * changes the record it is handed.
 */
#ifndef KP_COLLECT_COALESCE_H
#define KP_COLLECT_COALESCE_H

#include <stdint.h>

#include "stream/record.h"

#define KP_COALESCE_SPAN_NS 250000000ull	/* a run's last sample: < 250 ms in */

/* Emit one SAMPLE record (r->sample.weight >= 1) of CPU index cpu. */
typedef int (*kp_coalesce_emit_fn)(void *ctx, const struct kp_record *r,
				   uint32_t cpu);

struct kp_coalesce;

/* Runs for CPU indexes 0..nr_cpus-1. NULL with errno set on failure. */
struct kp_coalesce *kp_coalesce__new(uint32_t nr_cpus);
void kp_coalesce__free(struct kp_coalesce *co);

/* May s start a run: an idle sample with no user stack, regs or stack? */
int kp_coalesce__can_start(const struct kp_rec_sample *s);
/* Does s join run (a run's first sample, its weight so far in
 * run->weight)? */
int kp_coalesce__joins(const struct kp_rec_sample *run,
		       const struct kp_rec_sample *s);

/* One SAMPLE record r of CPU index cpu (< nr_cpus, else it is emitted
 * at once): added to the run held for cpu, or that run emitted and r
 * held as a new run or emitted. */
int kp_coalesce__sample(struct kp_coalesce *co, const struct kp_record *r,
			uint32_t cpu, kp_coalesce_emit_fn emit, void *ctx);
/* Emit every held run, CPU by CPU. */
int kp_coalesce__flush(struct kp_coalesce *co, kp_coalesce_emit_fn emit,
		       void *ctx);

#endif /* KP_COLLECT_COALESCE_H */
