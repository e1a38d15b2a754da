// SPDX-License-Identifier: GPL-2.0-only
/* fold.c — the node limit: the coldest paths of the call trie folded into
 * [other], their functions' counts kept exact.
 *
 * When a new stack takes the trie over max_nodes (or the memory budget
 * lowered it, merge.c), nodes are cut, with everything below them, until
 * 1/KP_FOLD_FREE of the limit is free. A cut costs the samples through it
 * (current + baseline counts) per node it frees, and the cheapest go
 * first, over the whole trie, every process and merged command alike: a
 * long cold chain before a cold leaf, cold stacks before hot ones, which
 * keep their whole depth. A candidate whose cost rose once cheaper cuts
 * below it were made is weighed again (lazy greedy); the first frame
 * under a root costs KP_FOLD_FIRST times more (it says what a process
 * does); at equal cost the deeper, then the older node goes first.
 *
 * A stack whose path is cut ends at its process root's [other] node
 * (one per root) and keeps its leaf's function in the stack record
 * (kp_stk.lfr): the functions view counts it there, so every function's
 * Self (and its Total, and the module's) stays exact, and folded and
 * pprof output end its path with [other] -> that function. What the path
 * lost is every frame between its root and its leaf: the tree and the
 * callers views show those samples under [other], and a filter by
 * function name or focus sees only the path that is left.
 *
 * Counts stay exact: every stack keeps its counts, and its samples are
 * counted as folded (KP_STK_FOLDED: the summary's folded_samples, the
 * samples whose path was cut). A cold stack (no current or baseline
 * count) or a merged one is merged into the one merged stack of its
 * thread, cgroup and leaf function; the others keep their record (a
 * later sample finds it) with the new leaf.
 *
 * Who calls it: merge.c (kp_tree__fold), with the view cache invalidated.
 * Errors: -ENOMEM leaves every count right, with empty nodes added.
 */
#include "model/trie.h"
#include "model/model-util.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/stk.h"
#include "model/time-int.h"
#include "model/baseline.h"
#include "model/summary.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CUT 1u

struct cand {
	uint32_t first;		/* the first frame of a path: dearer */
	double r;		/* weight per node freed */
	uint32_t depth, idx;
};

/* Cheaper first; at equal cost, deeper first, then older (lower index). */
static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Node weights: current + baseline counts of the stacks through them. */
static double *node_weights(const struct kp_model *m)
{
	double *w = calloc(m->tr.nr_nodes ? m->tr.nr_nodes : 1, sizeof(*w));
	size_t i;

	if (!w)
		return NULL;
	for (i = 0; i < m->st.nr_stk; i++) {
		const struct kp_stk *s = kp_stk(m, (uint32_t)i);

		w[s->leaf] += s->cur + (m->bl.has_base ? m->bl.base[i] : 0);
	}
	for (i = m->tr.nr_nodes; i-- > 0;)
		if (m->tr.nodes[i].parent != KP_NONE)
			w[m->tr.nodes[i].parent] += w[i];
	return w;
}

/* What cutting each node frees: its subtree's nodes. */
static void node_gains(const struct kp_model *m, uint32_t *gain)
{
	size_t i;

	for (i = 0; i < m->tr.nr_nodes; i++)
		gain[i] = 1;
	for (i = m->tr.nr_nodes; i-- > 0;)
		if (m->tr.nodes[i].parent != KP_NONE)
			gain[m->tr.nodes[i].parent] += gain[i];
}

/* A cut's cost: the weight it folds per node it frees, KP_FOLD_FIRST
 * times that for the first frame of a path (under a root): it says what
 * a process does. */
#define KP_FOLD_FIRST 4

static double cost(uint32_t first, double w, uint32_t gain)
{
	return w / gain * (first ? KP_FOLD_FIRST : 1);
}

/* A binary heap of candidates, the cheapest on top. */
static void sift(struct cand *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;
		struct cand t;

		if (l < n && cand_cmp(&h[l], &h[min]) < 0)
			min = l;
		if (r < n && cand_cmp(&h[r], &h[min]) < 0)
			min = r;
		if (min == i)
			return;
		t = h[i];
		h[i] = h[min];
		h[min] = t;
		i = min;
	}
}

static void push(struct cand *h, size_t *n, struct cand c)
{
	size_t i = (*n)++;

	for (; i > 0 && cand_cmp(&c, &h[(i - 1) / 2]) < 0; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = c;
}

static struct cand pop(struct cand *h, size_t *n)
{
	struct cand top = h[0];

	h[0] = h[--*n];
	sift(h, *n, 0);
	return top;
}

/* The candidates (not roots, not [other] nodes) as a heap; depth[] is
 * scratch. */
static size_t candidates(const struct kp_model *m, const double *w,
			 const uint32_t *gain, uint32_t *depth, struct cand *c)
{
	size_t i, nc = 0;

	for (i = 0; i < m->tr.nr_nodes; i++) {
		uint32_t p = m->tr.nodes[i].parent;

		depth[i] = p == KP_NONE ? 0 : depth[p] + 1;
		if (p == KP_NONE || (m->tr.nflags[i] & KP_NODE_OTHER))
			continue;
		c[nc].first = depth[i] == 1;
		c[nc].r = cost(c[nc].first, w[i], gain[i]);
		c[nc].depth = depth[i];
		c[nc++].idx = (uint32_t)i;
	}
	for (i = nc / 2; i-- > 0;)
		sift(c, nc, i);
	return nc;
}

static int under_cut(const struct kp_model *m, const uint8_t *cut, uint32_t n)
{
	for (n = m->tr.nodes[n].parent; n != KP_NONE; n = m->tr.nodes[n].parent)
		if (cut[n])
			return 1;
	return 0;
}

/* Mark the nodes to cut: the cheapest candidates until they free `need`
 * nodes, then everything below a cut node. A candidate's cost is its
 * weight per node freed, less what the cuts below it took already
 * (taken[] nodes, wt[] weight): one whose cost rose goes back in the
 * heap. */
static void pick_cuts(const struct kp_model *m, struct cand *h, size_t nh,
		      const double *w, const uint32_t *gain, uint32_t *taken,
		      double *wt, uint8_t *cut, size_t need)
{
	size_t i, freed = 0;

	memset(taken, 0, m->tr.nr_nodes * sizeof(*taken));
	for (i = 0; i < m->tr.nr_nodes; i++)
		wt[i] = 0;
	while (nh && freed < need) {
		struct cand c = pop(h, &nh);
		uint32_t x = c.idx, add, n;
		double dw, r;

		if (under_cut(m, cut, x) || gain[x] <= taken[x])
			continue;
		add = gain[x] - taken[x];
		dw = w[x] - wt[x];
		r = cost(c.first, dw, add);
		if (r > c.r && nh && r > h[0].r) {
			c.r = r;
			push(h, &nh, c);
			continue;
		}
		cut[x] = CUT;
		freed += add;
		for (n = x; n != KP_NONE; n = m->tr.nodes[n].parent) {
			taken[n] += add;
			wt[n] += dw;
		}
	}
	for (i = 0; i < m->tr.nr_nodes; i++)
		if (m->tr.nodes[i].parent != KP_NONE && cut[m->tr.nodes[i].parent])
			cut[i] = CUT;
}

static uint8_t *cut_set(const struct kp_model *m, const double *w, size_t need)
{
	size_t nr = m->tr.nr_nodes ? m->tr.nr_nodes : 1, nc;
	uint8_t *cut = calloc(nr, 1);
	uint32_t *gain = malloc(nr * sizeof(*gain)), *tmp = malloc(nr * sizeof(*tmp));
	double *wt = malloc(nr * sizeof(*wt));
	struct cand *c = malloc(nr * sizeof(*c));

	if (!cut || !gain || !tmp || !wt || !c) {
		free(cut);
		cut = NULL;
		goto out;
	}
	node_gains(m, gain);
	nc = candidates(m, w, gain, tmp, c);
	pick_cuts(m, c, nc, w, gain, tmp, wt, cut, need);
out:
	free(c);
	free(wt);
	free(tmp);
	free(gain);
	return cut;
}

/* The [other] node the stacks of each cut node go to (other[]): the
 * one under its process's root (or its parent, if that is an
 * [other]). */
static int destinations(struct kp_model *m, const uint8_t *cut, size_t old_nr,
			uint32_t *other)
{
	size_t i;

	for (i = 0; i < old_nr; i++) {
		uint32_t p = m->tr.nodes[i].parent;

		if (!cut[i])
			continue;
		if (cut[p])
			other[i] = other[p];
		else if (m->tr.nflags[p] & KP_NODE_OTHER)
			other[i] = p;
		else
			other[i] = kp_tree__child(m, m->pr.procs[m->tr.nodes[p].proc].root,
						  KP_FRAME_OTHER);
		if (other[i] == KP_NONE)
			return -ENOMEM;
	}
	return 0;
}

/* A stack cut at leaf node `from`, now ending at [other] node `to`: its
 * leaf frame (the one it had before its first cut; on -ENOMEM none: its
 * function counts as [other]), and whether that function is on its
 * path still. */
static void keep_leaf(struct kp_model *m, struct kp_stk *s, uint32_t from, uint32_t to)
{
	uint32_t fr = s->lfr;

	if (!(m->tr.nflags[from] & KP_NODE_OTHER))
		fr = kp_intern__fn_frame(m, m->tr.nodes[from].frame);
	fr = fr == KP_NONE ? KP_NONE : KP_LFR_FRAME(fr);
	s->lfr = fr;
	if (fr != KP_NONE && kp_tree__has_ancestor_fn(m, to, m->in.frames[fr].fn))
		s->lfr |= KP_LFR_DUP;
}

/* The stacks under cut nodes move to their [other] node, keeping their
 * leaf frame; the cold and merged ones merge into one merged stack per
 * thread, cgroup, [other] node and leaf frame. In place; remap[old] =
 * new id. */
static int restack(struct kp_model *m, const uint8_t *cut, const uint32_t *other,
		   uint32_t *remap)
{
	uint32_t *lo = kp_tree__stack_hashes(m);
	size_t i, j = 0;

	if (!lo)
		return -ENOMEM;
	kp_htab__clear(&m->st.stk_tab);
	for (i = 0; i < m->st.nr_stk; i++) {
		struct kp_stk s = m->st.stks[i];
		double b = m->bl.has_base ? m->bl.base[i] : 0;
		uint32_t v = 0, h = lo[i];
		uint64_t *found = NULL;

		if (cut[s.leaf]) {
			keep_leaf(m, &s, s.leaf, other[s.leaf]);
			s.leaf = other[s.leaf];
			s.flags |= KP_STK_FOLDED;
		}
		if (cut[m->st.stks[i].leaf] &&
		    ((s.cur == 0 && b == 0) || (s.flags & KP_STK_MERGED))) {
			uint64_t key;

			s.flags = (s.flags & KP_STK_KEEP) | KP_STK_FOLDED | KP_STK_MERGED;
			key = kp_tree__merged_key(&s, s.leaf);
			s.key = (uint32_t)(key >> 32);
			h = (uint32_t)key;
			KP_HTAB_FIND(&m->st.stk_tab, h, v, kp_stk__same_merged(&m->st.stks[v], &s),
				     found);
		}
		if (found) {
			m->st.stks[v].cur += s.cur;
			m->st.stks[v].samples += s.samples;
			if (m->bl.has_base)
				m->bl.base[v] += b;
			remap[i] = v;
			continue;
		}
		m->st.stks[j] = s;
		if (m->bl.has_base)
			m->bl.base[j] = b;
		remap[i] = (uint32_t)j;
		if (kp_htab__insert(&m->st.stk_tab, h, (uint32_t)j)) {
			free(lo);	/* cannot happen: the table had room for all */
			return -ENOMEM;
		}
		j++;
	}
	m->st.nr_stk = j;
	free(lo);
	return 0;
}

/* One fold: cut `need` nodes (and the nodes below them) and hang their
 * stacks under [other]. */
static int fold_once(struct kp_model *m, size_t need)
{
	size_t old_nr = m->tr.nr_nodes;
	double *w = NULL;
	uint8_t *cut = NULL;
	uint32_t *other = NULL, *remap = NULL, *nidx = NULL;
	int err = -ENOMEM;

	w = node_weights(m);
	if (!w)
		goto out;
	cut = cut_set(m, w, need);
	other = calloc(old_nr ? old_nr : 1, sizeof(*other));
	remap = calloc(m->st.nr_stk ? m->st.nr_stk : 1, sizeof(*remap));
	if (!cut || !other || !remap)
		goto out;
	err = destinations(m, cut, old_nr, other);
	if (err)
		goto out;
	err = restack(m, cut, other, remap);
	if (err)
		goto out;
	kp_time__remap(m, remap);
	nidx = malloc(m->tr.nr_nodes * sizeof(*nidx));
	err = nidx ? 0 : -ENOMEM;
	if (nidx)
		kp_tree__compact(m, cut, old_nr, nidx);
out:
	free(w);
	free(cut);
	free(other);
	free(remap);
	free(nidx);
	return err;
}

/* The [other] nodes a fold adds take back a little of what it frees:
 * fold again while that brings the trie down. */
#define KP_FOLD_PASSES 4

int kp_tree__fold(struct kp_model *m)
{
	size_t target = m->tr.max_nodes - m->tr.max_nodes / KP_FOLD_FREE, before;
	int err = 0, pass;

	if (m->tr.nr_nodes <= target)
		return 0;
	m->sums.ok = 0;		/* stacks merge and are marked folded */
	for (pass = 0; !err && pass < KP_FOLD_PASSES && m->tr.nr_nodes > target; pass++) {
		size_t need = m->tr.nr_nodes - target;

		before = m->tr.nr_nodes;
		err = fold_once(m, need);
		if (m->tr.nr_nodes >= before)
			break;
	}
	/* if little could be cut (roots, [other]), wait before trying again */
	m->tr.fold_at = m->tr.nr_nodes <= target ? m->tr.max_nodes
					   : m->tr.nr_nodes + m->tr.max_nodes / KP_FOLD_FREE;
	return err;
}
