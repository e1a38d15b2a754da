/* SPDX-License-Identifier: GPL-2.0-only */
/* jitgen.h — generations of a process's JIT code (jitgen.c): a runtime
 * that puts other code where code was (V8 and HotSpot after a GC) starts
 * a new generation, so that the samples before keep the names they had
 * and those after are named afresh.
 *
 * Who calls it: kp_model__jit_check (model.h) finds the processes, the
 * pump turns them into JITGEN records, and proc.c applies each record
 * (live or from a file) with kp_jitgen__apply; rename.c asks JIT keys
 * again through the same helpers. Internal to src/model/. Never fetches
 * but through the resolver; never writes a record.
 */
#ifndef KP_MODEL_JITGEN_H
#define KP_MODEL_JITGEN_H

#include "model/model-util.h"

struct kp_frame_info;
struct kp_pck;
struct kp_proc;

/* 1 when pc key k is a JIT key the resolver names: one frame of a
 * process's anonymous module, not named by a stream's SYMTAB. */
int kp_jitgen__key(const struct kp_model *m, const struct kp_pck *k);
/* For each module, the live process it is private to (KP_NONE: none):
 * with all_gens, every generation's modules; else those its mappings
 * hold now (its current generation's). NULL without memory; the caller
 * frees. */
uint32_t *kp_jitgen__owners(const struct kp_model *m, int all_gens);
/* The resolver's frames for JIT key k now, through the mapping of
 * process p that holds its address (of any generation): their number
 * (0: none). */
int kp_jitgen__ask(struct kp_model *m, uint32_t k, const struct kp_proc *p,
		   struct kp_frame_info *fi, int max);
/* Process proc's JIT code is of generation gen from now on: its waiting
 * stacks are named first, then its anonymous mappings get that
 * generation's modules. 0 or -ENOMEM. */
int kp_jitgen__apply(struct kp_model *m, uint32_t proc, uint32_t gen);

#endif /* KP_MODEL_JITGEN_H */
