/* SPDX-License-Identifier: GPL-2.0-only */
/* baseline.h — the baseline: every stack's count at the mark (m->bl;
 * kp_model__baseline_mark in baseline.c). The views show counts against it;
 * merge.c and the fold renumber it with the stacks. Internal to
 * src/model/.
 */
#ifndef KP_MODEL_BASELINE_H
#define KP_MODEL_BASELINE_H

#include "model/model-util.h"

struct kp_mem;

/* The baseline (baseline.c). */
struct kp_base {
	double *base;			/* per stack, with a baseline */
	size_t cap_base;
	int has_base;
};

void kp_base__bytes(const struct kp_base *b, size_t nr_stk, struct kp_mem *a);

#endif /* KP_MODEL_BASELINE_H */
