/* SPDX-License-Identifier: GPL-2.0-only */
/* stk.h — the distinct stacks: records found by a hash of the raw
 * sample (feed.c; m->st). feed.c adds them and counts their samples,
 * time.c and the baseline change their counts, the fold and merge.c
 * renumber them. The hash covers the process identity, tid, cgroup,
 * flags, kernel and user pcs; the pcs themselves are not kept. Two raw
 * stacks with the same 64-bit hash share a record: about 1 in 10^7 for
 * a million stacks, accepted for the memory (the pcs are most of a
 * stack's size). Cgroups interned below KP_CGROUP_MAX. Internal to
 * src/model/.
 */
#ifndef KP_MODEL_STK_H
#define KP_MODEL_STK_H

#include "model/model-util.h"

struct kp_mem;

/* 40 bytes. The 64-bit hash of the raw sample is split: its low half is
 * the record's hash in stk_tab, its high half is kept here. The process
 * identity and tid are the thread's; the cgroup id is interned; the CPU
 * is kept only when the model keys by it (opts.by_cpu). A stack
 * whose path a fold cut ends at an [other] node and keeps its leaf's
 * function in lfr (a frame of it: kp_intern__fn_frame), so that
 * its function's counts stay exact (view-cache.c, stacks.c); the top
 * bit of lfr says that function is on the stack's path as well (its
 * total counts the stack once). */
struct kp_stk {
	uint32_t key;		/* high half of the raw sample's hash */
	uint32_t thr;		/* m->pr.threads: process identity and tid */
	uint32_t leaf;		/* trie node */
	uint32_t cgroup : 27;	/* m->pr.cgroups */
	uint32_t flags : 5;	/* KP_STK_* */
	double cur;		/* count in the time mode */
	uint64_t samples;	/* raw samples since the zero or the mark */
	uint32_t lfr;		/* a folded stack's leaf frame, else KP_NONE */
	uint32_t cpu;		/* 1 + the CPU when keyed by it (by_cpu), else 0 */
};
_Static_assert(sizeof(struct kp_stk) == 40, "a stack record stays 40 bytes");
#define KP_LFR_DUP 0x80000000u	/* lfr's function is on the path */
#define KP_LFR_FRAME(x) ((x) & ~KP_LFR_DUP)
#define KP_STK_IDLE 1u
#define KP_STK_FOLDED 2u	/* its path was cut: its leaf is an [other] node */
#define KP_STK_MERGED 4u	/* cold folded stacks merged: never sampled */
#define KP_STK_DIRTY 8u		/* changed since the last view (view-cache.c) */
#define KP_STK_OFFCPU 16u	/* off-CPU intervals, not CPU samples (offcpu.c) */
#define KP_STK_KEEP (KP_STK_IDLE | KP_STK_OFFCPU)	/* what a merge keeps */
#define KP_CGROUP_MAX (1u << 27)	/* interned cgroups */

/* Merged stacks (folded cold ones, and those of exited processes) are
 * keyed by thread, cgroup, CPU, leaf and leaf frame, never by a sample. */
static inline int kp_stk__same_merged(const struct kp_stk *a, const struct kp_stk *b)
{
	return a->key == b->key && (a->flags & KP_STK_MERGED) && a->thr == b->thr &&
	       a->leaf == b->leaf && a->cgroup == b->cgroup && a->lfr == b->lfr &&
	       a->cpu == b->cpu &&
	       (a->flags & KP_STK_KEEP) == (b->flags & KP_STK_KEEP);
}

/* The distinct stacks (feed.c). */
struct kp_stks {
	struct kp_stk *stks;
	size_t nr_stk, cap_stk;
	struct kp_htab stk_tab;
};

/* A new stack record, hash: the low half of its 64-bit hash. */
uint32_t kp_stk__new(struct kp_model *m, const struct kp_stk *s, uint32_t hash);
void kp_stk__fini(struct kp_model *m);
void kp_stk__bytes(const struct kp_stks *s, struct kp_mem *a);

#endif /* KP_MODEL_STK_H */
