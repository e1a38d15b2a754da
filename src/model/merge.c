// SPDX-License-Identifier: GPL-2.0-only
/* merge.c — exited processes merged by command, and the memory budget.
 *
 * A process that has exited (or exec'd, or whose pid was reused) gets no
 * more samples, but its call tree, stacks, threads and mappings would
 * stay for as long as the model: under a churn of short processes (a
 * shell loop, a build) that is most of the model, and thousands of cold
 * one-process trees also left the node limit nothing but whole trees to
 * fold. Once merge_at of them have exited, each one's tree is hung under
 * the root of one pseudo process per command (procs[].merged, pid 0,
 * named "comm xN"), its stacks are re-keyed there (equal leaves, cgroups
 * and idleness merge into one stack), and its nodes, threads, mappings
 * and process record are dropped; procs, threads and nodes are then
 * renumbered, keeping their order (parents before children). Counts are
 * kept exactly: every total, function and module row is what it was (pcs
 * in no mapping are the one "[unknown]" frame already: feed.c). A merged tree
 * tells frames apart by function and source line (and inlinedness), not
 * by pc: the pcs of one line (every instruction a sample can land on,
 * most of a tree's leaves) are one node, whose pc is the first of them
 * seen (pprof's location address); where there is no line, one node per
 * function. That is what keeps a merged tree's size at its command's
 * distinct paths, not its samples'.
 *
 * In deferred mode most stacks of a short process are hung after its
 * EXIT: kp_feed__hang hangs them straight into the merged tree (through
 * kp_intern__line_frame), so the merge has no nodes of theirs to move; their
 * stack records keep their thread until the merge re-keys them.
 *
 * The memory budget (kp_model_opts.max_bytes): past it the exited
 * processes are merged at once and the node limit is lowered in
 * proportion, a little under the budget, so the coldest paths fold into
 * [other] (a sixteenth of the limit at a time: KP_FOLD_FREE).
 *
 * Who calls it: feed.c, once every waiting stack is hung and the sample
 * batch is empty (kp_merge__tidy). Errors: -ENOMEM leaves the model as
 * it was, but for empty nodes added under merged roots.
 */
#include "model/merge.h"
#include "model/model-util.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/time-int.h"
#include "model/baseline.h"
#include "model/summary.h"
#include "model/view-cache.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct merge {
	size_t old_procs, old_nodes, nr;
	uint32_t *tgt;		/* per old proc: its merged proc, or KP_NONE */
	uint32_t *tthr;		/* per proc: a merged proc's thread */
	uint32_t *nmap;		/* per old node: the node it goes to */
	uint8_t *drop;		/* per node: to drop */
	uint32_t *lo;		/* per stack: the low half of its hash */
	uint32_t *remap;	/* per old stack: its new index */
	uint32_t *idx;		/* renumbering scratch */
};

static void merge_free(struct merge *g)
{
	free(g->tgt);
	free(g->tthr);
	free(g->nmap);
	free(g->drop);
	free(g->lo);
	free(g->remap);
	free(g->idx);
}

static uint32_t target_of(const struct merge *g, uint32_t proc)
{
	return proc < g->old_procs ? g->tgt[proc] : KP_NONE;
}

/* The exited processes and the merged process (and thread) of each. */
static int pick(struct kp_model *m, struct merge *g)
{
	size_t i;

	g->old_procs = m->pr.nr_procs;
	g->tgt = malloc((g->old_procs ? g->old_procs : 1) * sizeof(*g->tgt));
	if (!g->tgt)
		return -ENOMEM;
	for (i = 0; i < g->old_procs; i++) {
		const struct kp_proc *p = &m->pr.procs[i];
		const char *comm = p->comm;

		g->tgt[i] = KP_NONE;
		if (!p->gone || p->merged || p->npend)
			continue;
		g->tgt[i] = kp_proc__merged(m, comm);
		if (g->tgt[i] == KP_NONE)
			return -ENOMEM;
		g->nr++;
	}
	g->tthr = malloc(m->pr.nr_procs * sizeof(*g->tthr));
	if (!g->tthr)
		return -ENOMEM;
	for (i = 0; i < m->pr.nr_procs; i++)
		g->tthr[i] = KP_NONE;
	for (i = 0; i < g->old_procs; i++) {
		uint32_t t = g->tgt[i];

		if (t == KP_NONE || g->tthr[t] != KP_NONE)
			continue;
		g->tthr[t] = kp_proc__seen_thread(m, t, 0, m->pr.procs[t].comm);
		if (g->tthr[t] == KP_NONE)
			return -ENOMEM;
	}
	return 0;
}

/* Node i (not a root) of an exited process under node np of its merged
 * tree: the node it becomes there, found or made; KP_NONE on -ENOMEM. */
static uint32_t rehang_one(struct kp_model *m, uint32_t i, uint32_t np)
{
	uint32_t fr = kp_intern__line_frame(m, m->tr.nodes[i].frame);

	if (fr == KP_NONE)
		return KP_NONE;
	return kp_tree__child_dup(m, np, fr, !!(m->tr.nflags[i] & KP_NODE_DUP));
}

/* Each node of an exited process, parents first, to the same path under
 * its merged process's root (found or made there). */
static int rehang(struct kp_model *m, struct merge *g)
{
	size_t i;

	g->old_nodes = m->tr.nr_nodes;
	g->nmap = malloc((g->old_nodes ? g->old_nodes : 1) * sizeof(*g->nmap));
	if (!g->nmap)
		return -ENOMEM;
	for (i = 0; i < g->old_nodes; i++) {
		uint32_t t = target_of(g, m->tr.nodes[i].proc), parent = m->tr.nodes[i].parent;

		if (t == KP_NONE)
			g->nmap[i] = (uint32_t)i;
		else if (parent == KP_NONE)
			g->nmap[i] = m->pr.procs[t].root;
		else
			g->nmap[i] = rehang_one(m, (uint32_t)i, g->nmap[parent]);
		if (g->nmap[i] == KP_NONE)
			return -ENOMEM;
	}
	g->drop = calloc(m->tr.nr_nodes, 1);
	if (!g->drop)
		return -ENOMEM;
	for (i = 0; i < g->old_nodes; i++)
		g->drop[i] = target_of(g, m->tr.nodes[i].proc) != KP_NONE;
	return 0;
}

/* A stack of an exited process moves to its merged process; merged
 * stacks (these, and the cold ones a fold merged) are keyed by thread,
 * cgroup and leaf and never found by a sample. Equal ones add up. */
static uint32_t restack_one(struct kp_model *m, struct merge *g, struct kp_stk s,
			    double b, uint32_t h, size_t *j)
{
	uint32_t t = target_of(g, m->pr.threads[s.thr].proc), v = 0;
	uint64_t *found = NULL;

	if (t != KP_NONE) {
		s.leaf = g->nmap[s.leaf];
		s.thr = g->tthr[t];
		s.flags = (s.flags & (KP_STK_KEEP | KP_STK_FOLDED)) | KP_STK_MERGED;
	}
	if (s.flags & KP_STK_MERGED) {
		uint64_t key = kp_tree__merged_key(&s, s.leaf);

		s.key = (uint32_t)(key >> 32);
		h = (uint32_t)key;
		KP_HTAB_FIND(&m->st.stk_tab, h, v, kp_stk__same_merged(&m->st.stks[v], &s), found);
	}
	if (found) {
		m->st.stks[v].cur += s.cur;
		m->st.stks[v].samples += s.samples;
		if (m->bl.has_base)
			m->bl.base[v] += b;
		return v;
	}
	v = (uint32_t)(*j)++;
	m->st.stks[v] = s;
	if (m->bl.has_base)
		m->bl.base[v] = b;
	g->lo[v] = h;
	if (kp_htab__insert(&m->st.stk_tab, h, v))
		return KP_NONE;	/* cannot happen: the table had room for all */
	return v;
}

static int restack(struct kp_model *m, struct merge *g)
{
	size_t i, j = 0;

	g->lo = kp_tree__stack_hashes(m);
	g->remap = malloc((m->st.nr_stk ? m->st.nr_stk : 1) * sizeof(*g->remap));
	if (!g->lo || !g->remap)
		return -ENOMEM;
	kp_htab__clear(&m->st.stk_tab);
	for (i = 0; i < m->st.nr_stk; i++) {
		struct kp_stk s = m->st.stks[i];

		s.flags &= ~KP_STK_DIRTY;	/* the view cache starts over */
		g->remap[i] = restack_one(m, g, s, m->bl.has_base ? m->bl.base[i] : 0,
					  g->lo[i], &j);
		if (g->remap[i] == KP_NONE)
			return -ENOMEM;
	}
	m->st.nr_stk = j;
	return 0;
}

/* Drop the exited processes and their threads; renumber the rest (the
 * nodes were renumbered already). */
static void compact_procs(struct kp_model *m, struct merge *g)
{
	size_t i, j = 0, n = m->pr.nr_procs > m->pr.nr_threads ? m->pr.nr_procs : m->pr.nr_threads;
	uint32_t *pidx = g->idx + n;	/* g->idx: 2n entries at least */

	/* counted before any moves: a merged process made by a hang
	 * (feed.c) sits among the exited ones, not after them */
	for (i = 0; i < m->pr.nr_procs; i++)
		if (target_of(g, (uint32_t)i) != KP_NONE)
			m->pr.procs[g->tgt[i]].nmerged++;
	for (i = 0; i < m->pr.nr_procs; i++) {
		struct kp_proc *p = &m->pr.procs[i];

		if (target_of(g, (uint32_t)i) != KP_NONE) {
			m->sum.mappings -= p->nr_maps;
			free(p->maps);
			free(p->map_mod);
			pidx[i] = KP_NONE;
			continue;
		}
		pidx[i] = (uint32_t)j;
		m->pr.procs[j++] = *p;
	}
	m->pr.nr_procs = j;
	for (i = 0; i < m->tr.nr_nodes; i++)
		m->tr.nodes[i].proc = pidx[m->tr.nodes[i].proc];
	for (i = j = 0; i < m->pr.nr_threads; i++) {
		uint32_t p = pidx[m->pr.threads[i].proc];

		g->idx[i] = p == KP_NONE ? KP_NONE : (uint32_t)j;
		if (p == KP_NONE)
			continue;
		m->pr.threads[j] = m->pr.threads[i];
		m->pr.threads[j++].proc = p;
	}
	m->pr.nr_threads = j;
	for (i = 0; i < m->st.nr_stk; i++)
		m->st.stks[i].thr = g->idx[m->st.stks[i].thr];
	(void)kp_proc__reindex(m);	/* no table grows: they hold fewer now */
}

/* The stack table again, with the merged stacks keyed by their new
 * thread and leaf indices. */
static int rekey(struct kp_model *m, struct merge *g)
{
	size_t i;

	kp_htab__clear(&m->st.stk_tab);
	for (i = 0; i < m->st.nr_stk; i++) {
		struct kp_stk *s = &m->st.stks[i];
		uint32_t h = g->lo[i];

		if (s->flags & KP_STK_MERGED) {
			uint64_t key = kp_tree__merged_key(s, s->leaf);

			s->key = (uint32_t)(key >> 32);
			h = (uint32_t)key;
		}
		if (kp_htab__insert(&m->st.stk_tab, h, (uint32_t)i))
			return -ENOMEM;
	}
	return 0;
}

/* The merged processes' names, "comm xN", rewritten in place: a view
 * made before still points to a live string. */
static void relabel(struct kp_model *m)
{
	size_t i;

	for (i = 0; i < m->pr.nr_procs; i++) {
		struct kp_proc *p = &m->pr.procs[i];

		if (p->merged)
			snprintf(p->label, KP_LABEL_LEN, "%s x%u", p->comm, p->nmerged);
	}
}

static void shrink(struct kp_model *m, int fit);

int kp_merge__gone(struct kp_model *m)
{
	struct merge g = { 0 };
	size_t n;
	int err;

	kp_vcache__invalidate(m, KP_VC_NODES);	/* first: it clears DIRTY flags */
	m->sums.ok = 0;
	err = pick(m, &g);
	if (!err && g.nr)
		err = rehang(m, &g);
	if (err || !g.nr)
		goto out;
	n = m->pr.nr_procs > m->pr.nr_threads ? m->pr.nr_procs : m->pr.nr_threads;
	if (n < m->tr.nr_nodes)
		n = m->tr.nr_nodes;
	g.idx = malloc(n * 2 * sizeof(*g.idx));	/* all that is needed below */
	err = g.idx ? restack(m, &g) : -ENOMEM;
	if (err)
		goto out;
	/* past here nothing fails */
	kp_time__remap(m, g.remap);
	kp_tree__compact(m, g.drop, g.old_nodes, g.idx);
	compact_procs(m, &g);
	err = rekey(m, &g);
	relabel(m);
	m->sum.merged_procs += g.nr;
	m->pr.nr_gone = 0;
	shrink(m, 0);
out:
	merge_free(&g);
	return err;
}

/* After a merge or fold: the arrays sized for the trie and stacks before
 * it give back their room, so that the memory follows the model down;
 * all of it past a sixteenth when fit (a fold for the memory budget,
 * which must see its bytes fall), else when it is more than twice. */
static void shrink(struct kp_model *m, int fit)
{
	void (*give)(void *, size_t *, size_t, size_t) = fit ? kp_fit : kp_shrink;
	size_t cap;

	cap = m->tr.cap_nodes;
	give(&m->tr.nodes, &m->tr.cap_nodes, m->tr.nr_nodes, sizeof(*m->tr.nodes));
	if (m->tr.cap_nodes != cap)
		give(&m->tr.nflags, &m->tr.cap_nflags, m->tr.nr_nodes, 1);
	cap = m->st.cap_stk;
	give(&m->st.stks, &m->st.cap_stk, m->st.nr_stk, sizeof(*m->st.stks));
	if (m->bl.has_base && m->st.cap_stk != cap)
		give(&m->bl.base, &m->bl.cap_base, m->st.nr_stk, sizeof(*m->bl.base));
	kp_shrink(&m->pr.threads, &m->pr.cap_threads, m->pr.nr_threads, sizeof(*m->pr.threads));
	kp_shrink(&m->pr.procs, &m->pr.cap_procs, m->pr.nr_procs, sizeof(*m->pr.procs));
	kp_htab__fit(&m->tr.wide_tab);
	kp_htab__fit(&m->st.stk_tab);
	kp_htab__fit(&m->pr.thr_tab);
	kp_htab__fit(&m->pr.pid_tab);
	kp_vcache__shrink(m);
}

static int fold(struct kp_model *m, int fit)
{
	int err;

	if (m->tr.nr_nodes <= m->tr.max_nodes - m->tr.max_nodes / KP_FOLD_FREE)
		return 0;	/* kp_tree__fold's target */
	kp_vcache__invalidate(m, KP_VC_NODES);
	err = kp_tree__fold(m);
	shrink(m, fit);
	return err;
}

/* Over the budget: merge every exited process; if that is not enough,
 * lower the node limit in proportion (the trie, its stacks and its view
 * counts are most of a model) and fold, again while the model is over
 * (its other parts do not shrink with the trie: a batch run, which
 * tidies rarely, may need more than one fold; each fold gives back its
 * arrays' room, so that the next round sees the bytes it freed, not
 * arrays sized for the trie before it), never below
 * KP_BUDGET_MIN_NODES: a budget folds the coldest paths, never the whole
 * profile. */
#define KP_BUDGET_MIN_NODES 4096
#define KP_BUDGET_ROUNDS 4

static int budget(struct kp_model *m)
{
	size_t bytes = kp_model__bytes(m), want, before;
	int err = 0, round;

	if (bytes <= m->td.max_bytes)
		return 0;
	if (m->pr.nr_gone) {
		err = kp_merge__gone(m);
		bytes = kp_model__bytes(m);
	}
	for (round = 0; !err && round < KP_BUDGET_ROUNDS && bytes > m->td.max_bytes &&
			m->tr.nr_nodes > KP_BUDGET_MIN_NODES; round++) {
		want = (size_t)((double)m->tr.nr_nodes * m->td.max_bytes / bytes * 0.97);
		if (want < KP_BUDGET_MIN_NODES)
			want = KP_BUDGET_MIN_NODES;
		if (want < m->tr.max_nodes)
			m->tr.max_nodes = want;
		if (m->tr.fold_at > m->tr.max_nodes)
			m->tr.fold_at = m->tr.max_nodes;	/* fold now, whatever a fold said */
		before = m->tr.nr_nodes;
		err = fold(m, 1);
		if (m->tr.nr_nodes >= before)
			break;		/* nothing left to cut (roots, [other]) */
		bytes = kp_model__bytes(m);
	}
	return err;
}

int kp_merge__tidy(struct kp_model *m, int err)
{
	int e = 0;

	/* a merge costs about the whole trie (and the views start over):
	 * in a big trie it waits for more exits (for 1,270 exits/s and a
	 * 100k-node trie: a merge every 2.5 s, not every 0.8 s) */
	if (m->pr.nr_gone >= m->td.merge_at && m->pr.nr_gone >= m->tr.nr_nodes / 32)
		e = kp_merge__gone(m);
	/* every 16th tidy, or once the trie grew by a sixteenth (a batch
	 * run tidies only once per 8 MB of pending stacks) */
	if (!e && m->td.max_bytes && ((++m->td.flushes & 15) == 0 ||
				      m->tr.nr_nodes > m->td.checked_nodes +
						       m->td.checked_nodes / KP_FOLD_FREE)) {
		m->td.checked_nodes = m->tr.nr_nodes;
		e = budget(m);
	}
	if (!e && m->tr.nr_nodes > m->tr.fold_at) {
		/* merging is the better way to a smaller trie; then fold if
		 * 1/KP_FOLD_FREE of the limit is still not free */
		if (m->pr.nr_gone)
			e = kp_merge__gone(m);
		e = e ? e : fold(m, 0);
	}
	return err ? err : e;
}
