/* SPDX-License-Identifier: GPL-2.0-only */
/* view-cache.h — the per-node and per-function counts of the views
 * (view-cache.c; m->vc), kept between views and updated from the stacks
 * changed since. Told of changes by whoever changes a stack's count
 * (kp_vcache__touch), a filter, a fold or a merge (kp_vcache__invalidate).
 * Internal to src/model/.
 */
#ifndef KP_MODEL_VIEW_CACHE_H
#define KP_MODEL_VIEW_CACHE_H

#include "model/model-util.h"

struct kp_mem;
struct kp_prep;

struct kp_vnode {		/* per trie node, for the filter and time mode */
	double self, total;	/* counts ending at / through the node */
	uint64_t samp, sself;	/* raw samples through / ending at the node */
	uint32_t pair;		/* its (function, process) pair; KP_NONE: a root */
	uint32_t fn_next;	/* next node of the same function */
};

struct kp_vpair {		/* a function in a process */
	uint32_t fn, proc;
	uint32_t live;		/* its live first-call nodes */
};

struct kp_vfn {			/* per function: the flat view's row */
	double self, total, bself, btotal;
	uint64_t samp;
	uint64_t psum;		/* sum of the processes it runs in ... */
	uint32_t nprocs;	/* ... and their number (a merged
				 * command's processes one by one) */
	uint32_t head;		/* its first node (list by fn_next) */
};

struct kp_vdirty {		/* a stack's counts as of the last view */
	uint32_t stk;
	double cur;
	uint64_t samples;
};

struct kp_vcache {
	size_t nr_nodes, nr_fns;	/* covered by the arrays below */
	struct kp_vnode *n;
	double *bself, *btotal;		/* per node, with a baseline */
	size_t nr_base;			/* nodes bself/btotal cover */
	struct kp_vfn *f;
	size_t cap_n, cap_b, cap_f;
	struct kp_htab pair_tab;	/* (fn, proc) -> pair */
	struct kp_vpair *pairs;
	size_t nr_pairs, cap_pairs;
	uint32_t *eff;		/* the filter's preparation (filter.c) */
	uint8_t *pm;
	size_t nr_prep, cap_eff, cap_pm;
	const char **comm;	/* process comms the counts were taken with */
	size_t nr_comm, cap_comm;
	double vtotal, vbase;
	int counts_ok;		/* the counts match the model: log changes */
	struct kp_vdirty *log;	/* stacks changed since (KP_STK_DIRTY) */
	size_t nr_log, cap_log;
};

enum kp_vc_what {
	KP_VC_COUNTS,	/* counts changed wholesale (time mode, zero, baseline) */
	KP_VC_FILTER,	/* ... and the filter */
	KP_VC_NODES,	/* ... and nodes or functions renumbered or renamed */
};
void kp_vcache__invalidate(struct kp_model *m, enum kp_vc_what what);
int kp_vcache__log(struct kp_model *m, uint32_t stk);
/* After KP_VC_NODES: give back the arrays sized for the old nodes. */
void kp_vcache__shrink(struct kp_model *m);
/* Cover the functions and nodes added since (at a view, or as stacks are
 * hung with eager_views); -ENOMEM leaves the rest to the next call. */
int kp_vcache__extend(struct kp_model *m);
/* Does node i count in a view: a count or a baseline through it
 * (btotal NULL without a baseline)? */
static inline int kp_node_live(const struct kp_vnode *n, const double *btotal,
			       uint32_t i)
{
	return n[i].total != 0 || (btotal && btotal[i] != 0);
}
struct kp_agg {			/* the counts for one view (the cache's) */
	const struct kp_vnode *n;	/* per trie node */
	const double *bself, *btotal;	/* per node; NULL without a baseline */
	const struct kp_vfn *f;		/* per function */
	double vtotal, vbase;
};
/* Bring the counts up to date with the model; p gets the filter's
 * preparation (owned by the cache). */
int kp_vcache__update(struct kp_model *m, struct kp_prep *p, struct kp_agg *a);
void kp_vcache__fini(struct kp_model *m);
void kp_vcache__bytes(const struct kp_vcache *c, struct kp_mem *a);

#endif /* KP_MODEL_VIEW_CACHE_H */
