/* SPDX-License-Identifier: GPL-2.0-only */
/* view-int.h — the steps of kp_model__view: sorting rows, the process,
 * grouped, tree and flame views (view.c, view-group.c, view-tree.c,
 * view-flame.c). Each
 * reads the counts of the view cache and allocates only the view it
 * returns. Internal to src/model/.
 */
#ifndef KP_MODEL_VIEW_INT_H
#define KP_MODEL_VIEW_INT_H

#include "model/model.h"

struct kp_agg;
struct kp_prep;

int kp_view__sort_rows(struct kp_model *m, struct kp_row *rows, size_t nr,
		       enum kp_sort sort, double vtotal, double vbase);
int kp_view__process(struct kp_model *m, const struct kp_agg *a, struct kp_view *v);
int kp_view__grouped(struct kp_model *m, const struct kp_prep *p,
		     enum kp_view_kind kind, struct kp_view *v);
int kp_view__tree(struct kp_model *m, const struct kp_view_opts *o,
		  const struct kp_prep *p, const struct kp_agg *a,
		  struct kp_view *v);
int kp_view__flame(struct kp_model *m, const struct kp_view_opts *o,
		   const struct kp_prep *p, const struct kp_agg *a,
		   struct kp_view *v);

#endif /* KP_MODEL_VIEW_INT_H */
