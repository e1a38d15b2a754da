/* SPDX-License-Identifier: GPL-2.0-only */
/* summary.h — the summary's counters (m->sum, kept as records come) and
 * its sums over every stack (m->sums), read by kp_model__summary in
 * summary.c. Whoever changes a stack's count adds the change here or
 * clears sums.ok. Internal to src/model/.
 */
#ifndef KP_MODEL_SUMMARY_H
#define KP_MODEL_SUMMARY_H

#include "model/stk.h"

/* The summary's sums over every stack (kp_model__summary), kept so a
 * refresh does not walk every stack: a counted sample adds to them (whole
 * numbers, exact in any order); a change to many stacks (decay, a time
 * mode, zero, a fold) clears ok, and the next summary sums again. */
struct kp_sums {
	double total, idle;
	uint64_t folded;
	int ok;
};

static inline void kp_sums__add(struct kp_sums *u, const struct kp_stk *s,
				double dcur, uint64_t dsamples)
{
	if (!u->ok)
		return;
	if (s->flags & KP_STK_IDLE)
		u->idle += dcur;
	else
		u->total += dcur;
	if (s->flags & KP_STK_FOLDED)
		u->folded += dsamples;
}

#endif /* KP_MODEL_SUMMARY_H */
