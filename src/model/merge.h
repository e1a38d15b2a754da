/* SPDX-License-Identifier: GPL-2.0-only */
/* merge.h — exited processes merged into one per command, and the
 * model's budget: when to merge and fold (merge.c; m->td). feed.c calls
 * kp_merge__tidy once every stack is hung. Internal to src/model/.
 */
#ifndef KP_MODEL_MERGE_H
#define KP_MODEL_MERGE_H

#include "model/model-util.h"

/* When to merge and fold (merge.c). */
struct kp_tidy {
	size_t merge_at;		/* merge when nr_gone reaches it */
	size_t max_bytes;		/* kp_model_opts.max_bytes, 0: none */
	uint64_t flushes;		/* counted batches, to check memory now and then */
	size_t checked_nodes;		/* trie nodes at the last check */
};

/* merge.c: the call trees, stacks and threads of exited processes are
 * merged into one pseudo process per command (procs[].merged), and
 * their mappings freed; procs, threads and nodes are renumbered. Only
 * when every stack is hung and no sample waits. */
int kp_merge__gone(struct kp_model *m);
/* Merge if many have exited, fold if the trie is big or the model over
 * its memory budget (feed.c calls it once every stack is hung). */
int kp_merge__tidy(struct kp_model *m, int err);

#endif /* KP_MODEL_MERGE_H */
