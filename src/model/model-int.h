/* SPDX-License-Identifier: GPL-2.0-only */
/* model-int.h — struct kp_model, made of one sub-struct per part (each
 * part's header says what it owns and who calls it), and the inline
 * accessors that span parts. Included only by the .c files of
 * src/model/; the model's overview is in model.h. Errors: 0 or -errno
 * (-ENOMEM). Not thread-safe.
 */
#ifndef KP_MODEL_INT_H
#define KP_MODEL_INT_H

#include "model/model-util.h"
#include "model/scratch.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/feed.h"
#include "model/pending.h"
#include "model/time-int.h"
#include "model/baseline.h"
#include "model/summary.h"
#include "model/filter-int.h"
#include "model/view-cache.h"
#include "model/merge.h"
#include "model/view-int.h"
#include "model/annot.h"

struct kp_model {
	struct kp_resolver res;
	struct kp_strpool strs;
	struct kp_intern in;
	struct kp_procs pr;
	struct kp_trie tr;
	struct kp_stks st;
	struct kp_base bl;
	struct kp_time tm;
	struct kp_filt filt;
	struct kp_vcache vc;
	struct kp_feed fd;
	struct kp_pending pd;
	struct kp_tidy td;
	struct kp_scratch sc[KP_SC_MAX];
	struct kp_model_summary sum;	/* counters kept as they come */
	struct kp_sums sums;
	struct kp_codes codes;		/* CODE records of a stream (annot.h) */
};

static inline struct kp_stk *kp_stk(const struct kp_model *m, uint32_t i)
{
	return &m->st.stks[i];
}

static inline uint32_t kp_stk_proc(const struct kp_model *m, const struct kp_stk *s)
{
	return m->pr.threads[s->thr].proc;
}

static inline uint32_t kp_stk_tid(const struct kp_model *m, const struct kp_stk *s)
{
	return m->pr.threads[s->thr].tid;
}

static inline uint64_t kp_stk_cgroup(const struct kp_model *m, const struct kp_stk *s)
{
	return m->pr.cgroups[s->cgroup].id;
}

static inline uint32_t kp_node_fn(const struct kp_model *m, uint32_t n)
{
	return m->in.frames[m->tr.nodes[n].frame].fn;
}

static inline const char *kp_frame_file(const struct kp_model *m,
					const struct kp_frame *f)
{
	return f->file ? m->strs.strs[f->file - 1] : NULL;
}

static inline int kp_frame_kernel(const struct kp_model *m, uint32_t f)
{
	return m->in.fns[m->in.frames[f].fn].kernel;
}

/* Call before changing a stack's cur or samples. */
static inline void kp_vcache__touch(struct kp_model *m, uint32_t stk)
{
	if (m->vc.counts_ok && !(m->st.stks[stk].flags & KP_STK_DIRTY))
		(void)kp_vcache__log(m, stk);	/* on -ENOMEM the counts are redone */
}

#endif /* KP_MODEL_INT_H */
