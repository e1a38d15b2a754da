// SPDX-License-Identifier: GPL-2.0-only
/* view-group.c — the views by process, thread, cgroup and module.
 *
 * Process rows come from the per-node totals (a process's root node);
 * thread and cgroup rows add up the passing stacks by their key; module
 * rows walk each stack once, counting a module's total once per stack and
 * its self for the module of the stack's leaf.
 */
#include "model/view-int.h"
#include "model/model-util.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/baseline.h"
#include "model/filter-int.h"
#include "model/view-cache.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int grow_rows(struct kp_view *v)
{
	if (kp_grow(&v->rows, &v->cap_rows, v->nr_rows + 1, sizeof(*v->rows)))
		return -ENOMEM;
	memset(&v->rows[v->nr_rows], 0, sizeof(*v->rows));
	return 0;
}

int kp_view__process(struct kp_model *m, const struct kp_agg *a, struct kp_view *v)
{
	size_t i;

	for (i = 0; i < m->pr.nr_procs; i++) {
		const struct kp_proc *pr = &m->pr.procs[i];
		uint32_t r = pr->root;
		struct kp_row *row;

		if (!kp_node_live(a->n, a->btotal, r))
			continue;
		if (grow_rows(v))
			return -ENOMEM;
		row = &v->rows[v->nr_rows++];
		row->id = kp_proc__row_id(m, (uint32_t)i);
		row->self = row->total = a->n[r].total;
		row->base_self = row->base_total = a->btotal ? a->btotal[r] : 0;
		row->samples = a->n[r].samp;
		row->name = row->comm = pr->comm;
		if (pr->merged)
			row->name = pr->label;
		row->nr_procs = pr->nmerged;
		row->pid = pr->pid;
	}
	return 0;
}

/* Rows keyed by a 64-bit key (thread, cgroup, module), made on first use. */
struct keyed {
	struct kp_htab tab;
	uint64_t *keys;
	size_t cap_keys;
};

static struct kp_row *keyed_row(struct keyed *k, struct kp_view *v, uint64_t key,
				int *created)
{
	uint32_t h = (uint32_t)kp_mix64(key), i = 0;
	uint64_t *found;

	*created = 0;
	KP_HTAB_FIND(&k->tab, h, i, k->keys[i] == key, found);
	if (found)
		return &v->rows[i];
	if (grow_rows(v) ||
	    kp_grow(&k->keys, &k->cap_keys, v->nr_rows + 1, sizeof(*k->keys)) ||
	    kp_htab__insert(&k->tab, h, (uint32_t)v->nr_rows))
		return NULL;
	k->keys[v->nr_rows] = key;
	*created = 1;
	return &v->rows[v->nr_rows++];
}

static void add_counts(struct kp_row *r, const struct kp_stk *s, double b, int self)
{
	r->total += s->cur;
	r->base_total += b;
	r->samples += s->samples;
	if (self) {
		r->self += s->cur;
		r->base_self += b;
	}
}

static int group_stack(struct kp_model *m, enum kp_view_kind kind, struct keyed *k,
		       struct kp_view *v, uint32_t i)
{
	const struct kp_stk *s = kp_stk(m, i);
	uint32_t proc = kp_stk_proc(m, s), tid = kp_stk_tid(m, s);
	const struct kp_proc *pr = &m->pr.procs[proc];
	double b = m->bl.has_base ? m->bl.base[i] : 0;
	uint64_t cg = kp_stk_cgroup(m, s);
	uint64_t key = kind == KP_VIEW_THREAD ? (uint64_t)proc << 32 | tid : cg;
	int created;
	struct kp_row *r = keyed_row(k, v, key, &created);

	if (!r)
		return -ENOMEM;
	if (created && kind == KP_VIEW_THREAD) {
		uint32_t t = kp_proc__thread(m, proc, tid);

		r->id = kp_hash2(kp_proc__row_id(m, proc), tid) | 1;
		r->nr_procs = pr->nmerged;
		r->name = t != KP_NONE ? m->pr.threads[t].name : pr->comm;
		r->comm = pr->comm;
		r->pid = pr->pid;
		r->tid = tid;
	} else if (created) {
		r->id = cg;
		r->name = kp_proc__cgroup_name(m, cg);
		if (!r->name)
			return -ENOMEM;
	}
	add_counts(r, s, b, 1);
	return 0;
}

/* The module row mod of stack i: counted once per stack (stamp). */
static int module_add(struct kp_model *m, struct keyed *k, struct kp_view *v,
		      uint32_t mod, uint32_t i, uint32_t *stamp, double b, int self)
{
	struct kp_row *r;
	int created;

	if (stamp[mod] == i + 1)
		return 0;
	stamp[mod] = i + 1;
	r = keyed_row(k, v, mod, &created);
	if (!r)
		return -ENOMEM;
	if (created) {
		r->id = mod + 1;
		r->name = r->module = m->in.mods[mod].name;
		r->kernel = m->in.mods[mod].kernel;
	}
	add_counts(r, kp_stk(m, i), b, self);
	return 0;
}

/* Modules: total once per stack per module, self for the leaf's module
 * (a folded stack's own leaf frame's, past its [other] node). */
static int module_stack(struct kp_model *m, const struct kp_prep *p, struct keyed *k,
			struct kp_view *v, uint32_t i, uint32_t *stamp)
{
	const struct kp_stk *s = kp_stk(m, i);
	double b = m->bl.has_base ? m->bl.base[i] : 0;
	uint32_t n, leaf = kp_eff(p, s->leaf), fr = KP_LFR_FRAME(s->lfr);
	int err = 0, self_done = 0;

	if ((m->tr.nflags[leaf] & KP_NODE_OTHER) && s->lfr != KP_NONE &&
	    kp_filter__visible(m, fr)) {
		err = module_add(m, k, v, m->in.fns[m->in.frames[fr].fn].module, i, stamp, b, 1);
		self_done = 1;
	}
	for (n = leaf; !err && m->tr.nodes[n].parent != KP_NONE; n = m->tr.nodes[n].parent)
		if (kp_eff(p, n) == n)
			err = module_add(m, k, v, m->in.fns[kp_node_fn(m, n)].module, i, stamp,
					 b, n == leaf && !self_done);
	return err;
}

int kp_view__grouped(struct kp_model *m, const struct kp_prep *p,
		     enum kp_view_kind kind, struct kp_view *v)
{
	struct keyed k;
	uint32_t *stamp = NULL;
	size_t i;
	int err = 0;

	memset(&k, 0, sizeof(k));
	if (kind == KP_VIEW_MODULE) {
		stamp = calloc(m->in.nr_mods, sizeof(*stamp));
		if (!stamp)
			return -ENOMEM;
	}
	for (i = 0; i < m->st.nr_stk && !err; i++) {
		const struct kp_stk *s = kp_stk(m, (uint32_t)i);
		double b = m->bl.has_base ? m->bl.base[i] : 0;

		if ((s->cur == 0 && b == 0) || !kp_filter__stack(m, p, s))
			continue;
		v->total += s->cur;
		v->base_total += b;
		if (kind == KP_VIEW_MODULE)
			err = module_stack(m, p, &k, v, (uint32_t)i, stamp);
		else
			err = group_stack(m, kind, &k, v, (uint32_t)i);
	}
	free(stamp);
	free(k.keys);
	kp_htab__fini(&k.tab);
	return err;
}

