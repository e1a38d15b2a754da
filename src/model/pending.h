/* SPDX-License-Identifier: GPL-2.0-only */
/* pending.h — new stacks not hung in the trie yet (pending.c; m->pd):
 * deferred mode (kp_model_opts.defer_stacks). feed.c pushes them,
 * kp_feed__settle resolves them, proc.c names a process's user pcs
 * before its mappings change. Internal to src/model/.
 */
#ifndef KP_MODEL_PENDING_H
#define KP_MODEL_PENDING_H

#include "model/model-util.h"

struct kp_mem;

/* A new stack in deferred mode: counted in m->st.stks (leaf KP_NONE), its
 * pcs at m->pd.ppcs[off..]: nx pc keys of the frames below its kernel
 * frames (offcpu.c's), nk kernel pcs, innermost first, then nu user pcs,
 * innermost first; or, once user_named, nu user pc keys (root first,
 * kp_feed__user_pcks) in their place. */
struct kp_pend {
	uint32_t stk;
	uint32_t off;
	uint16_t nk, nu;
	uint8_t nx;
	uint8_t user_named;
};
#define KP_PEND_MAX_BYTES (8u << 20)	/* then every waiting stack is hung */
#define KP_PEND_KEEP_BYTES (256u << 10)	/* kept once all are hung */

/* New stacks not hung yet (pending.c). */
struct kp_pending {
	struct kp_pend *pend;		/* new stacks not hung yet */
	size_t nr_pend, cap_pend;
	uint64_t *ppcs;			/* their pcs */
	size_t nr_ppcs, cap_ppcs;
};

/* pending.c: new stacks wait (deferred mode) until kp_pend__resolve
 * hangs them all in the trie; kp_pend__name_user names the user pcs of
 * process proc's (its mappings are about to change or go), leaving the
 * rest (kernel names, the trie) for later. */
int kp_pend__push(struct kp_model *m, uint32_t stk, uint32_t proc,
		  const uint64_t *k, uint16_t nk, const uint64_t *u, uint16_t nu,
		  const uint64_t *x, uint8_t nx);
int kp_pend__resolve(struct kp_model *m);
void kp_pend__name_user(struct kp_model *m, uint32_t proc);
int kp_pend__full(const struct kp_model *m);
void kp_pend__bytes(const struct kp_pending *p, struct kp_mem *a);
void kp_pend__fini(struct kp_model *m);

#endif /* KP_MODEL_PENDING_H */
