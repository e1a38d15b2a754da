// SPDX-License-Identifier: GPL-2.0-only
/* mem.c — the model's memory by structure (kp_model__mem): each part
 * reports its own entries (kp_<part>__bytes), in the order below; and
 * their sum, the model's heap (kp_model__bytes).
 */
#include "model/mem.h"
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
#include "model/filter-int.h"
#include "model/view-cache.h"
#include "model/model-int.h"	/* struct kp_model */

size_t kp_htab__bytes(const struct kp_htab *h)
{
	return h->n * sizeof(*h->slots);
}

size_t kp_htab__used(const struct kp_htab *h)
{
	return h->nr * sizeof(*h->slots);
}

void kp_mem__put(struct kp_mem *a, const char *name, size_t bytes, size_t used)
{
	if (a->n < a->max) {
		a->out[a->n].name = name;
		a->out[a->n].bytes = bytes;
		a->out[a->n].used = used;
	}
	a->n++;
}

size_t kp_model__mem(const struct kp_model *m, struct kp_model_mem *out, size_t max)
{
	struct kp_mem a = { .out = out, .max = max };

	kp_tree__bytes(&m->tr, &a);
	kp_stk__bytes(&m->st, &a);
	kp_base__bytes(&m->bl, m->st.nr_stk, &a);
	kp_intern__bytes(&m->in, &a);
	kp_strpool__bytes(&m->strs, &a);
	kp_proc__bytes(&m->pr, &a);
	kp_time__bytes(&m->tm, m->st.nr_stk, &a);
	kp_scratch__bytes(m->sc, &a);
	kp_vcache__bytes(&m->vc, &a);
	kp_filter__bytes(&m->filt, &a);
	kp_feed__bytes(&m->fd, &a);
	kp_pend__bytes(&m->pd, &a);
	kp_codes__bytes(&m->codes, &a);
	kp_mem__put(&a, "model struct", sizeof(*m), sizeof(*m));
	return a.n;
}

size_t kp_model__bytes(const struct kp_model *m)
{
	struct kp_model_mem it[48];
	size_t i, n = kp_model__mem(m, it, 48), sum = 0;

	for (i = 0; i < n && i < 48; i++)
		sum += it[i].bytes;
	return sum;
}
