/* model-int.h — the model's internal structures, shared by the .c files of src/model/
 * (never included outside src/model/).
 *
 * Layout: everything lives in growable arrays indexed by uint32_t; ids
 * handed out in views are derived from those indices (plus one, so that 0
 * means "none") or hashed from them. Strings live in a pool owned by the
 * model until kp_model__free(): interned (one copy, found by the pool's
 * table), except function names, which only fn_tab finds.
 *
 * Memory (kp_model__mem() breaks it down; bench/model-bench prints it):
 * per distinct stack a 32-byte record and a stk_tab entry; per
 * trie node 20 bytes + 1 of flags; per distinct pc a 16-byte pc key, a
 * 16-byte frame per name (inlined ones too) and a pck_tab entry; per
 * function 12 bytes, its name and a fn_tab entry. Arrays grow by 1.125x
 * past 256 KB (util.c), hash tables keep a load of 0.6-0.75: 11-13
 * bytes per entry. Bitfields are bounded where they are set: modules
 * below KP_MODULE_MAX, cgroups below KP_CGROUP_MAX, pc key frame counts
 * at KP_MAX_INLINE (intern.c), a source line past 2^31 - 1 becomes 0.
 *
 * Distinct stacks: a hash table keyed by a 64-bit hash of the raw sample
 * (process identity, tid, cgroup, flags, kernel pcs, user pcs) points to
 * a fixed-size record (struct kp_stk, 32 bytes; the table keeps the low
 * half of the hash, the record the high half). The pcs themselves are not
 * kept: a new stack is mapped to frames once and hung in the call trie
 * (one trie per process identity; a node's children are a list, searched
 * only when a new stack is hung in; a node with many children, such as
 * the root of a process whose frame-pointer stacks end in junk, has them
 * indexed in a hash table as well), and its record keeps its leaf node,
 * its thread (identity and tid) and its interned cgroup. Two different
 * raw stacks with the same 64-bit hash would share a record: about 1 in
 * 10^7 for a million stacks, accepted for the memory (the pcs are most
 * of a stack's size).
 * Node counts are derived from the per-stack counts for the views, and
 * kept between views (view-cache.c).
 *
 * Errors: 0 or -errno (-ENOMEM). Not thread-safe.
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
