// SPDX-License-Identifier: GPL-2.0-only
/* view-cache.c — the counts behind the views, kept from one view to the
 * next.
 *
 * Every view needs, per trie node, the counts ending at and passing
 * through it (after the filter and the time mode); the flat view needs
 * them per function, with the number of processes each runs in. Rather
 * than summing every stack and every node at each view, the cache keeps
 * these counts and, at the next view, applies only the stacks whose
 * counts changed since: feed.c and time.c call kp_vcache__touch() before
 * they change a stack, which logs its old counts once (KP_STK_DIRTY). A
 * changed stack walks its path up to its root.
 *
 * Exactness: the counts are redone from every stack (a rebuild) when
 * something else changed: the time mode, a decay step, zero, the
 * baseline, the filter (kp_vcache__invalidate), a process's comm under a
 * comm filter, or when many stacks changed. Updates are used only while
 * every count is a whole number (never in the decaying mode, nor with a
 * fractional baseline): sums of whole doubles are exact in any order, so
 * an updated cache equals a rebuilt one bit for bit (test-view-cache.c
 * checks it over random streams).
 *
 * Structure: each node's (function, process) pair and a list of each
 * function's nodes (for the callers of one function) are extended to the
 * nodes added since, at a view or (eager_views) as feed.c hangs stacks,
 * and redone after a fold or a SYMTAB (KP_VC_NODES).
 */
#include "model/view-cache.h"
#include "model/model-util.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/time-int.h"
#include "model/baseline.h"
#include "model/filter-int.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KP_VC_WHOLE_MAX 9007199254740992.0	/* 2^53 */

static int whole(double x)
{
	return x >= 0 && x < KP_VC_WHOLE_MAX && x == (double)(uint64_t)x;
}

/* Forget the changed stacks logged so far (their ids are still valid). */
static void drop_log(struct kp_model *m)
{
	struct kp_vcache *c = &m->vc;
	size_t i;

	for (i = 0; i < c->nr_log; i++)
		if (c->log[i].stk < m->st.nr_stk)
			m->st.stks[c->log[i].stk].flags &= ~KP_STK_DIRTY;
	c->nr_log = 0;
}

void kp_vcache__invalidate(struct kp_model *m, enum kp_vc_what what)
{
	struct kp_vcache *c = &m->vc;

	drop_log(m);
	c->counts_ok = 0;
	if (what >= KP_VC_FILTER)
		c->nr_prep = 0;
	if (what >= KP_VC_NODES) {
		c->nr_nodes = c->nr_fns = c->nr_pairs = c->nr_base = 0;
		kp_htab__clear(&c->pair_tab);
	}
}

void kp_vcache__shrink(struct kp_model *m)
{
	struct kp_vcache *c = &m->vc;

	size_t nr = m->tr.nr_nodes;

	if (c->nr_nodes || c->nr_pairs || c->nr_base)
		return;		/* only when the structure starts over */
	kp_shrink(&c->n, &c->cap_n, nr, sizeof(*c->n));
	kp_shrink(&c->pairs, &c->cap_pairs, nr, sizeof(*c->pairs));
	if (c->cap_b > 2 * nr + 64) {	/* a pair: both go, both grow again */
		free(c->bself);
		free(c->btotal);
		c->bself = c->btotal = NULL;
		c->cap_b = 0;
	}
	if (c->pair_tab.n > 8 * (nr + 64))
		kp_htab__fini(&c->pair_tab);	/* empty: it grows again */
	if (!c->nr_prep) {
		kp_shrink(&c->eff, &c->cap_eff, nr, sizeof(*c->eff));
		kp_shrink(&c->pm, &c->cap_pm, nr, sizeof(*c->pm));
	}
	kp_shrink(&c->log, &c->cap_log, c->nr_log, sizeof(*c->log));
}

int kp_vcache__log(struct kp_model *m, uint32_t stk)
{
	struct kp_vcache *c = &m->vc;
	struct kp_stk *s = &m->st.stks[stk];

	if (kp_grow(&c->log, &c->cap_log, c->nr_log + 1, sizeof(*c->log))) {
		kp_vcache__invalidate(m, KP_VC_COUNTS);
		return -ENOMEM;
	}
	c->log[c->nr_log].stk = stk;
	c->log[c->nr_log].cur = s->cur;
	c->log[c->nr_log].samples = s->samples;
	c->nr_log++;
	s->flags |= KP_STK_DIRTY;
	return 0;
}

void kp_vcache__fini(struct kp_model *m)
{
	struct kp_vcache *c = &m->vc;

	free(c->n);
	free(c->bself);
	free(c->btotal);
	free(c->f);
	kp_htab__fini(&c->pair_tab);
	free(c->pairs);
	free(c->eff);
	free(c->pm);
	free(c->comm);
	free(c->log);
	memset(c, 0, sizeof(*c));
}

void kp_vcache__bytes(const struct kp_vcache *c, struct kp_mem *a)
{
	kp_mem__put(a, "view cache",
		    c->cap_n * sizeof(*c->n) + c->cap_b * 2 * sizeof(double) +
		    c->cap_f * sizeof(*c->f) + kp_htab__bytes(&c->pair_tab) +
		    c->cap_pairs * sizeof(*c->pairs) +
		    c->cap_eff * sizeof(*c->eff) + c->cap_pm * sizeof(*c->pm) +
		    c->cap_comm * sizeof(*c->comm) + c->cap_log * sizeof(*c->log),
		    c->nr_nodes * sizeof(*c->n) + c->nr_fns * sizeof(*c->f) +
		    kp_htab__used(&c->pair_tab) + c->nr_pairs * sizeof(*c->pairs) +
		    c->nr_log * sizeof(*c->log));
}

/* ---- structure ---- */

/* The pair (fn, proc), made on first use; KP_NONE on -ENOMEM. */
static uint32_t pair_of(struct kp_vcache *c, uint32_t fn, uint32_t proc)
{
	uint32_t h = (uint32_t)kp_mix64((uint64_t)fn << 32 | proc), i = 0;
	uint64_t *found;

	KP_HTAB_FIND(&c->pair_tab, h, i, c->pairs[i].fn == fn && c->pairs[i].proc == proc,
		     found);
	if (found)
		return i;
	if (kp_grow(&c->pairs, &c->cap_pairs, c->nr_pairs + 1, sizeof(*c->pairs)) ||
	    kp_htab__insert(&c->pair_tab, h, (uint32_t)c->nr_pairs))
		return KP_NONE;
	c->pairs[c->nr_pairs].fn = fn;
	c->pairs[c->nr_pairs].proc = proc;
	c->pairs[c->nr_pairs].live = 0;
	return (uint32_t)c->nr_pairs++;
}

/* Room for `more` pairs, the table sized once rather than doubled (and
 * every slot rehashed) again and again on a first view. */
static int pairs_reserve(struct kp_vcache *c, size_t more)
{
	size_t need = c->nr_pairs + more;

	if (kp_grow(&c->pairs, &c->cap_pairs, need, sizeof(*c->pairs)))
		return -ENOMEM;
	return kp_htab__reserve(&c->pair_tab, need);
}

/* Zero counts for the functions and nodes added since, their pairs, and
 * each node at the head of its function's list. */
int kp_vcache__extend(struct kp_model *m)
{
	struct kp_vcache *c = &m->vc;
	size_t i;

	if (kp_grow(&c->f, &c->cap_f, m->in.nr_fns ? m->in.nr_fns : 1, sizeof(*c->f)) ||
	    kp_grow(&c->n, &c->cap_n, m->tr.nr_nodes ? m->tr.nr_nodes : 1, sizeof(*c->n)) ||
	    pairs_reserve(c, m->tr.nr_nodes - c->nr_nodes))
		return -ENOMEM;
	for (; c->nr_fns < m->in.nr_fns; c->nr_fns++) {
		memset(&c->f[c->nr_fns], 0, sizeof(*c->f));
		c->f[c->nr_fns].head = KP_NONE;
	}
	for (i = c->nr_nodes; i < m->tr.nr_nodes; i++) {
		struct kp_vnode *v = &c->n[i];
		uint32_t fn;

		memset(v, 0, sizeof(*v));
		v->pair = v->fn_next = KP_NONE;
		if (m->tr.nodes[i].parent == KP_NONE)
			continue;
		fn = kp_node_fn(m, (uint32_t)i);
		v->pair = pair_of(c, fn, m->tr.nodes[i].proc);
		if (v->pair == KP_NONE) {
			c->nr_nodes = i;
			return -ENOMEM;
		}
		v->fn_next = c->f[fn].head;
		c->f[fn].head = (uint32_t)i;
	}
	c->nr_nodes = m->tr.nr_nodes;
	/* The reserve was a pair per node; a process's nodes share their
	 * functions' pairs (after a merge of exited processes, some 12 nodes
	 * a pair): what the pairs did not take goes back. */
	kp_shrink(&c->pairs, &c->cap_pairs, c->nr_pairs, sizeof(*c->pairs));
	kp_htab__fit(&c->pair_tab);
	return 0;
}

/* The baseline per node: zero from node `from` on. */
static int base_ready(struct kp_model *m, size_t from)
{
	struct kp_vcache *c = &m->vc;
	size_t nr = m->tr.nr_nodes ? m->tr.nr_nodes : 1, cap = c->cap_b;

	if (kp_grow(&c->bself, &cap, nr, sizeof(*c->bself)))
		return -ENOMEM;
	cap = c->cap_b;
	if (kp_grow(&c->btotal, &cap, nr, sizeof(*c->btotal)))
		return -ENOMEM;
	c->cap_b = cap;
	if (from < m->tr.nr_nodes) {
		memset(c->bself + from, 0, (m->tr.nr_nodes - from) * sizeof(*c->bself));
		memset(c->btotal + from, 0, (m->tr.nr_nodes - from) * sizeof(*c->btotal));
	}
	c->nr_base = m->tr.nr_nodes;
	return 0;
}

/* ---- counts ---- */

static int live(const struct kp_model *m, uint32_t n)
{
	return kp_node_live(m->vc.n, m->bl.has_base ? m->vc.btotal : NULL, n);
}

/* The processes a process row stands for: a merged command counts the
 * processes merged into it (a merge starts the counts over). */
static uint32_t proc_weight(const struct kp_model *m, uint32_t proc)
{
	const struct kp_proc *p = &m->pr.procs[proc];

	return p->merged && p->nmerged > 1 ? p->nmerged : 1;
}

static void pair_up(struct kp_model *m, uint32_t pair)
{
	struct kp_vpair *p = &m->vc.pairs[pair];
	struct kp_vfn *f = &m->vc.f[p->fn];

	if (p->live++ == 0) {
		f->nprocs += proc_weight(m, p->proc);
		f->psum += p->proc;
	}
}

static void pair_down(struct kp_model *m, uint32_t pair)
{
	struct kp_vpair *p = &m->vc.pairs[pair];
	struct kp_vfn *f = &m->vc.f[p->fn];

	if (--p->live == 0) {
		f->nprocs -= proc_weight(m, p->proc);
		f->psum -= p->proc;
	}
}

/* A live node's share of its function (its counts are final): self from
 * every visible node but an [other] (its stacks' own leaf functions have
 * that: other_leaf), total only from the outermost call on its path. */
static void fold_node(struct kp_model *m, const struct kp_prep *p, uint32_t i)
{
	struct kp_vcache *c = &m->vc;
	const struct kp_vnode *v = &c->n[i];
	struct kp_vfn *f;

	if (v->pair == KP_NONE || kp_eff(p, i) != i)
		return;
	f = &c->f[c->pairs[v->pair].fn];
	if (!(m->tr.nflags[i] & KP_NODE_OTHER)) {
		f->self += v->self;
		if (m->bl.has_base)
			f->bself += c->bself[i];
	}
	if (m->tr.nflags[i] & KP_NODE_DUP)
		return;
	f->total += v->total;
	f->samp += v->samp;
	if (m->bl.has_base)
		f->btotal += c->btotal[i];
	pair_up(m, v->pair);
}

/* A stack that ends at a visible [other] node (its path cut by a fold)
 * counts dc (db of baseline, ds raw samples) as the self of the function
 * of its own leaf frame, and in that function's total unless it is on
 * its path as well; a stack without one (or whose leaf frame is hidden)
 * as [other]'s self. */
static void other_leaf(struct kp_model *m, const struct kp_prep *p,
		       const struct kp_stk *s, double dc, double db, uint64_t ds)
{
	uint32_t fr = s->lfr == KP_NONE ? KP_FRAME_OTHER : KP_LFR_FRAME(s->lfr);
	struct kp_vfn *f;

	if (fr != KP_FRAME_OTHER && !kp_filter__visible(m, fr))
		fr = KP_FRAME_OTHER;
	(void)p;
	f = &m->vc.f[m->in.frames[fr].fn];
	f->self += dc;
	f->bself += db;
	if (fr == KP_FRAME_OTHER || (s->lfr & KP_LFR_DUP))
		return;
	f->total += dc;
	f->btotal += db;
	f->samp += ds;
}

/* Every passing stack adds to its effective leaf; one backward pass over
 * the nodes (children after parents) sums the totals and folds each node,
 * once final, into its function. */
static int rebuild(struct kp_model *m, const struct kp_prep *p)
{
	struct kp_vcache *c = &m->vc;
	int exact = m->tm.mode != KP_TIME_DECAY;
	size_t i;

	drop_log(m);
	if (m->bl.has_base && base_ready(m, 0))
		return -ENOMEM;
	for (i = 0; i < m->tr.nr_nodes; i++) {
		c->n[i].self = c->n[i].total = 0;
		c->n[i].samp = c->n[i].sself = 0;
	}
	for (i = 0; i < m->in.nr_fns; i++) {
		uint32_t head = c->f[i].head;

		memset(&c->f[i], 0, sizeof(c->f[i]));
		c->f[i].head = head;
	}
	for (i = 0; i < c->nr_pairs; i++)
		c->pairs[i].live = 0;
	c->vtotal = c->vbase = 0;
	for (i = 0; i < m->st.nr_stk; i++) {
		const struct kp_stk *s = kp_stk(m, (uint32_t)i);
		double b = m->bl.has_base ? m->bl.base[i] : 0;
		uint32_t e;

		if ((s->cur == 0 && b == 0) || !kp_filter__stack(m, p, s))
			continue;
		exact &= whole(s->cur) && whole(b);
		e = kp_eff(p, s->leaf);
		c->n[e].self += s->cur;
		c->n[e].samp += s->samples;
		c->n[e].sself += s->samples;
		c->vtotal += s->cur;
		if (m->bl.has_base) {
			c->bself[e] += b;
			c->vbase += b;
		}
		if (m->tr.nflags[e] & KP_NODE_OTHER)
			other_leaf(m, p, s, s->cur, b, s->samples);
	}
	for (i = m->tr.nr_nodes; i-- > 0;) {
		struct kp_vnode *v = &c->n[i];
		uint32_t par;

		v->total += v->self;
		if (m->bl.has_base)
			c->btotal[i] += c->bself[i];
		if (!live(m, (uint32_t)i))
			continue;	/* no stack counts below: nothing to add */
		fold_node(m, p, (uint32_t)i);
		par = m->tr.nodes[i].parent;
		if (par == KP_NONE)
			continue;
		c->n[par].total += v->total;
		c->n[par].samp += v->samp;
		if (m->bl.has_base)
			c->btotal[par] += c->btotal[i];
	}
	c->counts_ok = exact;
	return 0;
}

/* Add a stack's change (dc counted, ds raw samples) along its path from
 * its effective leaf e, keeping each function's counts and processes. */
static void walk(struct kp_model *m, const struct kp_prep *p, uint32_t e,
		 double dc, uint64_t ds)
{
	struct kp_vcache *c = &m->vc;
	uint32_t n, par;

	c->n[e].self += dc;
	c->n[e].sself += ds;
	for (n = e; n != KP_NONE; n = par) {
		struct kp_vnode *v = &c->n[n];
		int was = live(m, n), now;
		struct kp_vfn *f;

		par = m->tr.nodes[n].parent;
		v->total += dc;
		v->samp += ds;
		now = live(m, n);
		if (v->pair == KP_NONE || kp_eff(p, n) != n)
			continue;
		f = &c->f[c->pairs[v->pair].fn];
		if (n == e && !(m->tr.nflags[n] & KP_NODE_OTHER))
			f->self += dc;	/* an [other]'s: other_leaf */
		if (m->tr.nflags[n] & KP_NODE_DUP)
			continue;
		f->total += dc;
		if (now)
			f->samp += was ? ds : v->samp;
		else if (was)
			f->samp -= v->samp - ds;
		if (now && !was)
			pair_up(m, v->pair);
		else if (was && !now)
			pair_down(m, v->pair);
	}
}

/* Apply the logged stacks; a stack counts (samples included) only while
 * its count or baseline is not zero, as in a rebuild. */
static int apply(struct kp_model *m, const struct kp_prep *p)
{
	struct kp_vcache *c = &m->vc;
	size_t i;

	for (i = 0; i < c->nr_log; i++) {
		const struct kp_vdirty *d = &c->log[i];
		struct kp_stk *s;
		double b, dc;
		uint64_t ds;

		if (d->stk >= m->st.nr_stk)	/* cannot happen: folds drop the log */
			return rebuild(m, p);
		s = &m->st.stks[d->stk];
		s->flags &= ~KP_STK_DIRTY;
		if (!whole(s->cur))
			return rebuild(m, p);
		b = m->bl.has_base ? m->bl.base[d->stk] : 0;
		if (!kp_filter__stack(m, p, s))
			continue;
		dc = s->cur - d->cur;
		ds = (s->cur != 0 || b != 0 ? s->samples : 0) -
		     (d->cur != 0 || b != 0 ? d->samples : 0);
		if (dc == 0 && ds == 0)
			continue;
		walk(m, p, kp_eff(p, s->leaf), dc, ds);
		if (m->tr.nflags[kp_eff(p, s->leaf)] & KP_NODE_OTHER)
			other_leaf(m, p, s, dc, 0, ds);
		c->vtotal += dc;
	}
	c->nr_log = 0;
	return 0;
}

int kp_vcache__update(struct kp_model *m, struct kp_prep *p, struct kp_agg *a)
{
	struct kp_vcache *c = &m->vc;
	int err;

	memset(a, 0, sizeof(*a));
	if (c->nr_nodes > m->tr.nr_nodes || c->nr_fns > m->in.nr_fns)
		kp_vcache__invalidate(m, KP_VC_NODES);	/* renumbered: start again */
	err = kp_vcache__extend(m);
	err = err ? err : kp_filter__prep_kept(m, p);
	if (!err && m->bl.has_base && c->counts_ok)
		err = base_ready(m, c->nr_base);
	if (err) {
		kp_vcache__invalidate(m, KP_VC_COUNTS);
		return err;
	}
	/* many changed stacks: summing them all again is no slower */
	if (!c->counts_ok || kp_filter__comm_changed(m) ||
	    (c->nr_log > 4096 && c->nr_log * 4 > m->st.nr_stk))
		err = rebuild(m, p);
	else
		err = apply(m, p);
	err = err ? err : kp_filter__comm_keep(m);
	if (err) {
		kp_vcache__invalidate(m, KP_VC_COUNTS);
		return err;
	}
	a->n = c->n;
	a->f = c->f;
	a->bself = m->bl.has_base ? c->bself : NULL;
	a->btotal = m->bl.has_base ? c->btotal : NULL;
	a->vtotal = c->vtotal;
	a->vbase = c->vbase;
	return 0;
}
