// SPDX-License-Identifier: GPL-2.0-only
/* summary.c — the summary (kp_model__summary) and the zero that starts
 * it over (kp_model__zero). The counters in m->sum are kept as records
 * come (feed.c, proc.c); the sums over every stack (m->sums) are redone
 * here only after a change to many stacks cleared them.
 */
#include "model/summary.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/feed.h"
#include "model/time-int.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <string.h>

void kp_model__zero(struct kp_model *m)
{
	(void)kp_feed__flush(m);
	kp_time__clear_counts(m);
	m->sum.samples = 0;
	memset(m->sum.lost, 0, sizeof(m->sum.lost));
	m->sum.unwound_dwarf = m->sum.unwound_fp = 0;
	m->sum.unknown_pid = 0;
	m->sum.first_ns = m->sum.last_ns = 0;
}

void kp_model__summary(const struct kp_model *m, struct kp_model_summary *out)
{
	size_t i;

	/* logically const: counting the batched samples and hanging the
	 * waiting stacks change no answer */
	(void)kp_feed__settle((struct kp_model *)m);
	if (!m->sums.ok) {
		struct kp_sums *u = (struct kp_sums *)&m->sums;

		memset(u, 0, sizeof(*u));
		u->ok = 1;
		for (i = 0; i < m->st.nr_stk; i++) {
			const struct kp_stk *s = kp_stk(m, (uint32_t)i);

			kp_sums__add(u, s, s->cur, s->samples);
		}
	}
	*out = m->sum;
	out->total = m->sums.total;
	out->idle = m->sums.idle;
	out->folded_samples = m->sums.folded;
	/* processes seen: the merged ones counted one by one */
	out->processes = m->pr.nr_procs - m->pr.nr_merged_rows + m->sum.merged_procs;
	out->model_bytes = kp_model__bytes(m);
	out->threads = m->pr.nr_threads;
	out->nodes = m->tr.nr_nodes;
	out->frames = m->in.nr_frames - 2;
	out->other_nodes = m->tr.nr_other;
}
