/* SPDX-License-Identifier: GPL-2.0-only */
/* filter-int.h — the filter (filter.c; m->filt) and its per-node
 * preparation for a view or a stack walk. Set by kp_model__set_filter,
 * used by the views, the view cache and the stack writers; it never
 * changes a count. Internal to src/model/.
 */
#ifndef KP_MODEL_FILTER_INT_H
#define KP_MODEL_FILTER_INT_H

#include <regex.h>

#include "model/model-util.h"

struct kp_mem;
struct kp_stk;

struct kp_filt {
	struct kp_filter f;	/* strings point to the copies below */
	char *comm, *module, *name;
	regex_t re;
	int have_re;
	uint32_t module_idx_gen;
	uint8_t *fn_match;	/* per function: 0 unknown, 1 no, 2 yes */
	size_t cap_fn_match, nr_fn_match;
};

/* filter.c: per-node preparation for a view or a stack walk. */
struct kp_prep {
	uint32_t *eff;		/* nearest visible node on the path (self);
				 * NULL when nothing is hidden */
	uint8_t *pm;		/* bits of the frame filters matched on the path */
	uint8_t need;		/* bits a stack must have */
	size_t nr;
};
static inline uint32_t kp_eff(const struct kp_prep *p, uint32_t n)
{
	return p->eff ? p->eff[n] : n;
}
int kp_filter__prep(struct kp_model *m, struct kp_prep *p);
/* The preparation the views keep (m->vc), extended to the nodes added
 * since; p points into it. */
int kp_filter__prep_kept(struct kp_model *m, struct kp_prep *p);
/* Has a process's comm changed, under a comm filter, since the comms
 * were kept (kp_filter__comm_keep)? */
int kp_filter__comm_changed(const struct kp_model *m);
int kp_filter__comm_keep(struct kp_model *m);
void kp_filter__prep_free(struct kp_prep *p);
int kp_filter__stack(const struct kp_model *m, const struct kp_prep *p,
		     const struct kp_stk *s);
int kp_filter__visible(const struct kp_model *m, uint32_t frame);
void kp_filter__fini(struct kp_model *m);
void kp_filter__bytes(const struct kp_filt *f, struct kp_mem *a);

#endif /* KP_MODEL_FILTER_INT_H */
