/* pending.c — new stacks whose frames are not named yet (deferred mode,
 * kp_model_opts.defer_stacks).
 *
 * A new stack is counted at once, but its pcs wait here until something
 * needs its place in the trie: a view, a report, a refresh, a process
 * whose mappings are about to change or that goes away (its pcs must be
 * named with the mappings they were sampled in), or KP_PEND_MAX_BYTES of
 * waiting pcs. Naming the frames (symbol tables, DWARF) is most of what a
 * new stack costs, so a batch run pays for it when it reports, as perf
 * record + perf report do, and not while the workload runs.
 */
#include "model/model-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int kp_pend__push(struct kp_model *m, uint32_t stk, uint32_t proc,
		  const uint64_t *k, uint16_t nk, const uint64_t *u, uint16_t nu)
{
	struct kp_pend *p;

	if (kp_grow(&m->pend, &m->cap_pend, m->nr_pend + 1, sizeof(*m->pend)) ||
	    kp_grow(&m->ppcs, &m->cap_ppcs, m->nr_ppcs + nk + nu, sizeof(*m->ppcs)))
		return -ENOMEM;
	p = &m->pend[m->nr_pend++];
	p->stk = stk;
	p->off = m->nr_ppcs;
	p->nk = nk;
	p->nu = nu;
	if (nk)
		memcpy(m->ppcs + m->nr_ppcs, k, nk * sizeof(*k));
	if (nu)
		memcpy(m->ppcs + m->nr_ppcs + nk, u, nu * sizeof(*u));
	m->nr_ppcs += (size_t)nk + nu;
	m->procs[proc].npend++;
	return 0;
}

/* Hang one waiting stack in its process's trie. Without the memory for
 * its nodes it is counted at the process's root. */
static int hang(struct kp_model *m, const struct kp_pend *p)
{
	struct kp_stk *s = kp_stk(m, p->stk);
	uint32_t proc = kp_stk_proc(m, s);
	const uint64_t *pcs = m->ppcs + p->off;

	s->leaf = kp_feed__stack_leaf(m, proc, pcs, p->nk, pcs + p->nk, p->nu);
	if (m->procs[proc].npend)
		m->procs[proc].npend--;
	if (s->leaf != KP_NONE)
		return 0;
	s->leaf = m->procs[proc].root;
	return -ENOMEM;
}

int kp_pend__resolve(struct kp_model *m, uint32_t proc)
{
	size_t i, kept = 0, nr_pcs = 0;
	int err = 0, e;

	if (!m->nr_pend || (proc != KP_NONE && !m->procs[proc].npend))
		return 0;
	for (i = 0; i < m->nr_pend; i++) {
		struct kp_pend p = m->pend[i];

		if (proc == KP_NONE || kp_stk_proc(m, kp_stk(m, p.stk)) == proc) {
			e = hang(m, &p);
			err = err ? err : e;
			continue;
		}
		/* keep it, its pcs moved down to stay packed */
		if (p.off != nr_pcs)
			memmove(m->ppcs + nr_pcs, m->ppcs + p.off,
				((size_t)p.nk + p.nu) * sizeof(*m->ppcs));
		p.off = (uint32_t)nr_pcs;
		nr_pcs += (size_t)p.nk + p.nu;
		m->pend[kept++] = p;
	}
	m->nr_pend = kept;
	m->nr_ppcs = nr_pcs;
	return err;
}

int kp_pend__full(const struct kp_model *m)
{
	return m->nr_ppcs * sizeof(*m->ppcs) + m->nr_pend * sizeof(*m->pend) >=
	       KP_PEND_MAX_BYTES;
}

size_t kp_pend__bytes(const struct kp_model *m, size_t *used)
{
	*used = m->nr_pend * sizeof(*m->pend) + m->nr_ppcs * sizeof(*m->ppcs);
	return m->cap_pend * sizeof(*m->pend) + m->cap_ppcs * sizeof(*m->ppcs);
}

void kp_pend__fini(struct kp_model *m)
{
	free(m->pend);
	free(m->ppcs);
	m->pend = NULL;
	m->ppcs = NULL;
	m->nr_pend = m->cap_pend = m->nr_ppcs = m->cap_ppcs = 0;
}
