// SPDX-License-Identifier: GPL-2.0-only
/* pending.c — new stacks whose frames are not named yet (deferred mode,
 * kp_model_opts.defer_stacks).
 *
 * A new stack is counted at once, but its pcs wait here until something
 * needs its place in the trie: a view, a report, a refresh, or
 * KP_PEND_MAX_BYTES of waiting pcs. A process whose mappings are about to
 * change or that goes away has its user pcs turned into pc keys then
 * (module + offset, with the mappings they were sampled in, while the
 * resolver still knows the process); the resolver holds those modules,
 * and names, kernel pcs and the trie wait on. Naming the frames (symbol
 * tables, DWARF) is most of what a new stack costs, so a batch run pays
 * for it when it reports, as perf record + perf report do, and not while
 * the workload runs.
 */
#include "model/pending.h"
#include "model/model-util.h"
#include "model/proc-int.h"
#include "model/stk.h"
#include "model/feed.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int kp_pend__push(struct kp_model *m, uint32_t stk, uint32_t proc,
		  const uint64_t *k, uint16_t nk, const uint64_t *u, uint16_t nu,
		  const uint64_t *x, uint8_t nx)
{
	size_t n = (size_t)nx + nk + nu;
	uint64_t *to;
	struct kp_pend *p;

	if (kp_grow(&m->pd.pend, &m->pd.cap_pend, m->pd.nr_pend + 1, sizeof(*m->pd.pend)) ||
	    kp_grow(&m->pd.ppcs, &m->pd.cap_ppcs, m->pd.nr_ppcs + n, sizeof(*m->pd.ppcs)))
		return -ENOMEM;
	p = &m->pd.pend[m->pd.nr_pend++];
	p->stk = stk;
	p->off = m->pd.nr_ppcs;
	p->nx = nx;
	p->nk = nk;
	p->nu = nu;
	p->user_named = 0;
	to = m->pd.ppcs + m->pd.nr_ppcs;
	if (nx)
		memcpy(to, x, nx * sizeof(*x));
	if (nk)
		memcpy(to + nx, k, nk * sizeof(*k));
	if (nu)
		memcpy(to + nx + nk, u, nu * sizeof(*u));
	m->pd.nr_ppcs += n;
	if (!m->pr.procs[proc].npend++)
		m->pr.procs[proc].pend_from = (uint32_t)(m->pd.nr_pend - 1);
	return 0;
}

/* Put pc keys in place of the user pcs of waiting stack p (late: their
 * names wait too, kp_intern__user_pc). */
static void name_user(struct kp_model *m, struct kp_pend *p, int late)
{
	uint32_t proc = kp_stk_proc(m, kp_stk(m, p->stk));
	uint64_t *u = m->pd.ppcs + p->off + p->nx + p->nk, upck[KP_MAX_FRAMES + 1];
	size_t n;

	n = kp_feed__user_pcks(m, proc, u, p->nu, upck, late);	/* n <= nu */
	memcpy(u, upck, n * sizeof(*u));
	p->nu = (uint16_t)n;
	p->user_named = 1;
	if (m->pr.procs[proc].npend)
		m->pr.procs[proc].npend--;
}

/* Hang one waiting stack in its process's trie. Without the memory for
 * its nodes it is counted at the process's root. */
static int hang(struct kp_model *m, struct kp_pend *p)
{
	struct kp_stk *s = kp_stk(m, p->stk);
	uint32_t proc = kp_stk_proc(m, s);
	const uint64_t *x = m->pd.ppcs + p->off, *k = x + p->nx;

	if (!p->user_named)
		name_user(m, p, 0);
	s->leaf = kp_feed__hang(m, proc, k + p->nk, p->nu, k, p->nk, x, p->nx);
	if (s->leaf != KP_NONE)
		return 0;
	s->leaf = m->pr.procs[proc].root;
	return -ENOMEM;
}

int kp_pend__resolve(struct kp_model *m)
{
	size_t i;
	int err = 0, e;

	for (i = 0; i < m->pd.nr_pend; i++) {
		e = hang(m, &m->pd.pend[i]);
		err = err ? err : e;
	}
	m->pd.nr_pend = m->pd.nr_ppcs = 0;
	/* a big batch (a saved stream read at once, a batch run's 8 MB)
	 * gives its room back: the memory budget counts it, and a live
	 * refresh's few new stacks need a fraction of it */
	if (m->pd.cap_pend * sizeof(*m->pd.pend) + m->pd.cap_ppcs * sizeof(*m->pd.ppcs) >
	    KP_PEND_KEEP_BYTES)
		kp_pend__fini(m);
	return err;
}

void kp_pend__name_user(struct kp_model *m, uint32_t proc)
{
	size_t i;

	if (!m->pr.procs[proc].npend)
		return;
	/* from its first waiting stack: the scan of every process's waiting
	 * stacks at each exit was most of a batch run's CPU under churn */
	for (i = m->pr.procs[proc].pend_from;
	     i < m->pd.nr_pend && m->pr.procs[proc].npend; i++) {
		struct kp_pend *p = &m->pd.pend[i];

		if (!p->user_named && kp_stk_proc(m, kp_stk(m, p->stk)) == proc)
			name_user(m, p, 1);
	}
}

int kp_pend__full(const struct kp_model *m)
{
	return m->pd.nr_ppcs * sizeof(*m->pd.ppcs) + m->pd.nr_pend * sizeof(*m->pd.pend) >=
	       KP_PEND_MAX_BYTES;
}

void kp_pend__bytes(const struct kp_pending *p, struct kp_mem *a)
{
	kp_mem__put(a, "waiting stacks",
		    p->cap_pend * sizeof(*p->pend) + p->cap_ppcs * sizeof(*p->ppcs),
		    p->nr_pend * sizeof(*p->pend) + p->nr_ppcs * sizeof(*p->ppcs));
}

void kp_pend__fini(struct kp_model *m)
{
	free(m->pd.pend);
	free(m->pd.ppcs);
	m->pd.pend = NULL;
	m->pd.ppcs = NULL;
	m->pd.nr_pend = m->pd.cap_pend = m->pd.nr_ppcs = m->pd.cap_ppcs = 0;
}
