// SPDX-License-Identifier: GPL-2.0-only
/* baseline.c — the baseline: every stack's count at the mark, kept in
 * m->bl.base; the counts start over from the mark and the views show
 * them against it (view-cache.c).
 */
#include "model/baseline.h"
#include "model/stk.h"
#include "model/feed.h"
#include "model/time-int.h"
#include "model/view-cache.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <stdlib.h>

void kp_model__baseline_mark(struct kp_model *m)
{
	size_t i;
	double *b;

	(void)kp_feed__flush(m);
	b = realloc(m->bl.base, (m->st.cap_stk ? m->st.cap_stk : 1) * sizeof(*b));
	if (!b)
		return;	/* no memory: keep the current state, no baseline */
	m->bl.base = b;
	m->bl.cap_base = m->st.cap_stk ? m->st.cap_stk : 1;
	for (i = 0; i < m->st.nr_stk; i++)
		b[i] = kp_stk(m, (uint32_t)i)->cur;
	m->bl.has_base = 1;
	kp_time__clear_counts(m);
}

void kp_model__baseline_clear(struct kp_model *m)
{
	(void)kp_feed__flush(m);
	kp_vcache__invalidate(m, KP_VC_COUNTS);
	free(m->bl.base);
	m->bl.base = NULL;
	m->bl.cap_base = 0;
	m->bl.has_base = 0;
}

int kp_model__has_baseline(const struct kp_model *m)
{
	return m->bl.has_base;
}

/* nr_stk: the stacks the baseline covers while there is one. */
void kp_base__bytes(const struct kp_base *b, size_t nr_stk, struct kp_mem *a)
{
	KP_MEM_ARR(a, "baseline", b->base, b->has_base ? nr_stk : 0, b->cap_base);
}
