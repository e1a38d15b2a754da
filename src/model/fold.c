/* fold.c — the node limit: the coldest paths of the call trie folded into
 * [other], their leaf functions kept.
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
 * A stack whose path is cut keeps its leaf's frame: the path becomes
 * root -> [other] -> leaf, so the leaf function's self count (the
 * functions view's Self%) stays exact and the callers view shows
 * [other] as its caller; what the path lost is every frame between its
 * root and its leaf, and its ancestors' totals. Equal folded
 * paths share their nodes (one [other] per root, one leaf node per
 * function and source line under it: kp_intern__line_frame), which is what makes a fold free nodes when every cold path
 * ends somewhere else. A leaf is kept for the functions with at least
 * KP_FOLD_KEEP of the self count (or where its node exists already): a
 * leaf node for a function seen once would free nothing. The others'
 * stacks, and those of a leaf node cut under an [other] (the limit met
 * no other way), end at the [other] node itself: that is [other]'s self
 * count. The leaf nodes a fold adds take back a little of what it
 * frees: it folds again while that brings the trie down.
 *
 * Counts stay exact: every stack keeps its counts, and its samples are
 * counted as folded (KP_STK_FOLDED: the summary's folded_samples, the
 * samples whose path was cut). A cold stack (no current or baseline
 * count) or a merged one is merged into the one merged stack of its
 * thread, cgroup and new leaf; the others keep their record (a later
 * sample finds it) with the new leaf.
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
#define CUT_LEAF 2u	/* a stack ends at it */

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

/* The functions whose leaf a fold keeps under [other]: those with a
 * self count of at least KP_FOLD_KEEP of the whole (and two samples).
 * The others' folded stacks end at the [other] node: a leaf node kept
 * for a function seen once would free nothing. */
#define KP_FOLD_KEEP (1.0 / 2000)

static uint8_t *kept_fns(const struct kp_model *m)
{
	double *self = calloc(m->in.nr_fns ? m->in.nr_fns : 1, sizeof(*self)), sum = 0, min;
	uint8_t *keep = calloc(m->in.nr_fns ? m->in.nr_fns : 1, 1);
	size_t i;

	if (!self || !keep) {
		free(self);
		free(keep);
		return NULL;
	}
	for (i = 0; i < m->st.nr_stk; i++) {
		const struct kp_stk *s = kp_stk(m, (uint32_t)i);
		double c = s->cur + (m->bl.has_base ? m->bl.base[i] : 0);

		self[kp_node_fn(m, s->leaf)] += c;
		sum += c;
	}
	min = sum * KP_FOLD_KEEP > 2 ? sum * KP_FOLD_KEEP : 2;
	for (i = 0; i < m->in.nr_fns; i++)
		keep[i] = self[i] >= min;
	keep[m->in.frames[KP_FRAME_OTHER].fn] = 0;
	free(self);
	return keep;
}

/* What cutting each node frees: its subtree's nodes. The leaf nodes
 * its stacks keep under [other] are few (one per kept function) and
 * mostly there already. */
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

/* Where the stacks ending at cut node i go, other[i] its [other] node:
 * the node of i's frame under that [other]. For a function not kept
 * (kept_fns) a new node would free nothing: its stacks end at the
 * [other] node itself, unless that has a node of i's frame already; so
 * do those of a leaf node cut under a kept [other]. */
static uint32_t dest_of(struct kp_model *m, const uint8_t *cut, const uint8_t *keep,
			size_t old_nr, const uint32_t *other, uint32_t i)
{
	uint32_t p = m->tr.nodes[i].parent, fr = m->tr.nodes[i].frame, d;
	int only_found = !keep[kp_node_fn(m, i)];

	if (fr == KP_FRAME_OTHER || other[i] == p)
		return other[i];
	fr = kp_intern__line_frame(m, fr);	/* its line's node, not its pc's */
	if (fr == KP_NONE)
		return KP_NONE;
	d = only_found ? kp_tree__find_child(m, other[i], fr) : kp_tree__child(m, other[i], fr);
	if (d == KP_NONE && only_found)
		return other[i];
	if (d != KP_NONE && d < old_nr && cut[d])
		return other[i];	/* that leaf node is cut too */
	return d;
}

/* The [other] node each cut node's stacks go under (in other[]): the
 * one under its process's root (or its parent, if that is an [other]);
 * and the node each cut leaf's stacks go to (in dest[]). */
static int destinations(struct kp_model *m, uint8_t *cut, const uint8_t *keep,
			size_t old_nr, uint32_t *other, uint32_t *dest)
{
	size_t i;

	for (i = 0; i < m->st.nr_stk; i++)
		if (cut[m->st.stks[i].leaf])
			cut[m->st.stks[i].leaf] |= CUT_LEAF;
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
		if (!(cut[i] & CUT_LEAF))
			continue;
		dest[i] = dest_of(m, cut, keep, old_nr, other, (uint32_t)i);
		if (dest[i] == KP_NONE)
			return -ENOMEM;
	}
	return 0;
}

static int same_merged(const struct kp_stk *a, const struct kp_stk *b)
{
	return a->key == b->key && (a->flags & KP_STK_MERGED) && a->thr == b->thr &&
	       a->leaf == b->leaf && a->cgroup == b->cgroup &&
	       (a->flags & KP_STK_IDLE) == (b->flags & KP_STK_IDLE);
}

/* The stacks under cut nodes move to their new leaf; the cold and merged
 * ones merge into one merged stack per thread, cgroup and leaf. In place;
 * remap[old] = new id. */
static int restack(struct kp_model *m, const uint8_t *cut, const uint32_t *dest,
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

		if (cut[s.leaf] && ((s.cur == 0 && b == 0) || (s.flags & KP_STK_MERGED))) {
			uint64_t key;

			s.leaf = dest[s.leaf];
			s.flags = (s.flags & KP_STK_IDLE) | KP_STK_FOLDED | KP_STK_MERGED;
			key = kp_tree__merged_key(&s, s.leaf);
			s.key = (uint32_t)(key >> 32);
			h = (uint32_t)key;
			KP_HTAB_FIND(&m->st.stk_tab, h, v, same_merged(&m->st.stks[v], &s), found);
		} else if (cut[s.leaf]) {
			s.leaf = dest[s.leaf];
			s.flags |= KP_STK_FOLDED;
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
	uint8_t *cut = NULL, *keep = kept_fns(m);
	uint32_t *other = NULL, *dest = NULL, *remap = NULL, *nidx = NULL;
	int err = -ENOMEM;

	w = node_weights(m);
	if (!w || !keep)
		goto out;
	cut = cut_set(m, w, need);
	other = calloc(old_nr ? old_nr : 1, sizeof(*other));
	dest = calloc(old_nr ? old_nr : 1, sizeof(*dest));
	remap = calloc(m->st.nr_stk ? m->st.nr_stk : 1, sizeof(*remap));
	if (!cut || !other || !dest || !remap)
		goto out;
	err = destinations(m, cut, keep, old_nr, other, dest);
	if (err)
		goto out;
	err = restack(m, cut, dest, remap);
	if (err)
		goto out;
	kp_time__remap(m, remap);
	nidx = malloc(m->tr.nr_nodes * sizeof(*nidx));
	err = nidx ? 0 : -ENOMEM;
	if (nidx)
		kp_tree__compact(m, cut, old_nr, nidx);
out:
	free(w);
	free(keep);
	free(cut);
	free(other);
	free(dest);
	free(remap);
	free(nidx);
	return err;
}

/* The leaf nodes a fold adds take back some of what it frees: fold again
 * while that brings the trie down. */
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
