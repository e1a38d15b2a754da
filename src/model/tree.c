/* tree.c — the call trie: one root per process identity, nodes keyed by
 * (parent, frame), and the node limit.
 *
 * Nodes are only appended, so a parent's index is always below its
 * children's; views rely on that to sum totals in one backward pass.
 *
 * The node limit: when a new stack takes the trie over max_nodes, the
 * coldest nodes (lowest current + baseline count of the stacks through
 * them) are cut until a quarter of the limit is free. The stacks below a
 * cut node are merged into one folded stack under an "[other]" child of
 * the nearest kept ancestor, so their counts stay in every total.
 */
#include "model/trie.h"
#include "model/model-util.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/stk.h"
#include "model/time-int.h"
#include "model/baseline.h"
#include "model/summary.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t wide_hash(uint32_t parent, uint32_t frame)
{
	return (uint32_t)kp_hash2(parent, frame);
}

/* Index the children of parent, which has too many for its list. On
 * -ENOMEM it stays a list (slower, still right). */
static void make_wide(struct kp_model *m, uint32_t parent)
{
	for (uint32_t c = m->tr.nodes[parent].child; c != KP_NONE; c = m->tr.nodes[c].next)
		if (kp_htab__insert(&m->tr.wide_tab, wide_hash(parent, m->tr.nodes[c].frame), c))
			return;
	m->tr.nflags[parent] |= KP_NODE_WIDE;
}

static uint32_t add_node(struct kp_model *m, uint32_t parent, uint32_t frame,
			 uint32_t proc, uint8_t flags)
{
	uint32_t idx = (uint32_t)m->tr.nr_nodes;

	if (kp_grow(&m->tr.nodes, &m->tr.cap_nodes, m->tr.nr_nodes + 1, sizeof(*m->tr.nodes)) ||
	    kp_grow(&m->tr.nflags, &m->tr.cap_nflags, m->tr.nr_nodes + 1, 1))
		return KP_NONE;
	m->tr.nodes[idx].parent = parent;
	m->tr.nodes[idx].frame = frame;
	m->tr.nodes[idx].proc = proc;
	m->tr.nodes[idx].child = KP_NONE;
	m->tr.nodes[idx].next = parent == KP_NONE ? KP_NONE : m->tr.nodes[parent].child;
	if (parent != KP_NONE)
		m->tr.nodes[parent].child = idx;
	m->tr.nflags[idx] = flags;
	m->tr.nr_nodes++;
	if (parent != KP_NONE && (m->tr.nflags[parent] & KP_NODE_WIDE) &&
	    kp_htab__insert(&m->tr.wide_tab, wide_hash(parent, frame), idx))
		m->tr.nflags[parent] &= (uint8_t)~KP_NODE_WIDE;	/* a list again */
	return idx;
}

uint32_t kp_tree__root(struct kp_model *m, uint32_t proc)
{
	return add_node(m, KP_NONE, KP_FRAME_ROOT, proc, 0);
}

static int has_ancestor_fn(const struct kp_model *m, uint32_t n, uint32_t fn)
{
	for (; n != KP_NONE; n = m->tr.nodes[n].parent)
		if (kp_node_fn(m, n) == fn)
			return 1;
	return 0;
}

uint32_t kp_tree__child(struct kp_model *m, uint32_t parent, uint32_t frame)
{
	return kp_tree__child_dup(m, parent, frame, -1);
}

/* dup: 1 if the function of frame is on the path above parent, 0 if not,
 * -1 to find out by walking up. */
uint32_t kp_tree__child_dup(struct kp_model *m, uint32_t parent, uint32_t frame,
			    int dup)
{
	uint32_t c, prev = KP_NONE, idx, len = 0;
	uint8_t flags = 0;

	if (m->tr.nflags[parent] & KP_NODE_WIDE) {
		uint64_t *found;

		KP_HTAB_FIND(&m->tr.wide_tab, wide_hash(parent, frame), c,
			     m->tr.nodes[c].parent == parent && m->tr.nodes[c].frame == frame,
			     found);
		if (found)
			return c;
	} else {
		for (c = m->tr.nodes[parent].child; c != KP_NONE;
		     prev = c, c = m->tr.nodes[c].next, len++) {
			if (m->tr.nodes[c].frame != frame)
				continue;
			if (prev != KP_NONE) {	/* move to front: paths repeat */
				m->tr.nodes[prev].next = m->tr.nodes[c].next;
				m->tr.nodes[c].next = m->tr.nodes[parent].child;
				m->tr.nodes[parent].child = c;
			}
			return c;
		}
		if (len >= KP_WIDE_AT)
			make_wide(m, parent);
	}
	if (frame == KP_FRAME_OTHER)
		flags = KP_NODE_OTHER;
	else if (dup < 0 ? has_ancestor_fn(m, parent, m->in.frames[frame].fn) : dup)
		flags = KP_NODE_DUP;
	idx = add_node(m, parent, frame, m->tr.nodes[parent].proc, flags);
	if (idx == KP_NONE)
		return KP_NONE;
	if (flags & KP_NODE_OTHER)
		m->tr.nr_other++;
	return idx;
}

/* Function names changed (a late SYMTAB): recompute the DUP flags. */
void kp_tree__redup(struct kp_model *m)
{
	size_t n;

	for (n = 0; n < m->tr.nr_nodes; n++) {
		m->tr.nflags[n] &= (uint8_t)~KP_NODE_DUP;
		if (m->tr.nodes[n].parent != KP_NONE && !(m->tr.nflags[n] & KP_NODE_OTHER) &&
		    has_ancestor_fn(m, m->tr.nodes[n].parent, kp_node_fn(m, (uint32_t)n)))
			m->tr.nflags[n] |= KP_NODE_DUP;
	}
}

void kp_tree__fini(struct kp_model *m)
{
	kp_htab__fini(&m->tr.wide_tab);
	free(m->tr.nodes);
	free(m->tr.nflags);

}

void kp_tree__bytes(const struct kp_trie *t, struct kp_mem *a)
{
	KP_MEM_ARR(a, "trie nodes", t->nodes, t->nr_nodes, t->cap_nodes);
	KP_MEM_ARR(a, "node flags", t->nflags, t->nr_nodes, t->cap_nflags);
	KP_MEM_TAB(a, "wide node table", &t->wide_tab);
}

struct cand {
	double w;
	uint32_t depth;
};

/* Colder first; at equal weight, shallower first: a cold chain is cut at
 * its top, so its whole subtree goes and one [other] node replaces it. */
static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
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

/* Mark the nodes to cut: the `need` coldest candidates, and everything
 * below a cut node (never hotter), so at least `need` nodes go. */
static uint8_t *cut_set(const struct kp_model *m, const double *w, size_t need)
{
	size_t i, nc = 0, nr = m->tr.nr_nodes ? m->tr.nr_nodes : 1;
	uint8_t *cut = calloc(nr, 1);
	uint32_t *depth = calloc(nr, sizeof(*depth));
	struct cand *c = malloc(nr * sizeof(*c)), t;

	if (!cut || !depth || !c)
		goto out_nomem;
	for (i = 0; i < m->tr.nr_nodes; i++) {
		uint32_t p = m->tr.nodes[i].parent;

		if (p == KP_NONE)
			continue;
		depth[i] = depth[p] + 1;
		if (!(m->tr.nflags[i] & KP_NODE_OTHER))
			c[nc++] = (struct cand){ w[i], depth[i] };
	}
	if (!nc)
		goto out;
	qsort(c, nc, sizeof(*c), cand_cmp);
	t = c[(need < nc ? need : nc) - 1];
	for (i = 0; i < m->tr.nr_nodes; i++) {
		uint32_t p = m->tr.nodes[i].parent;
		struct cand me = { w[i], depth[i] };

		if (p == KP_NONE)
			continue;
		if (cut[p] || (!(m->tr.nflags[i] & KP_NODE_OTHER) && cand_cmp(&me, &t) <= 0))
			cut[i] = 1;
	}
out:
	free(c);
	free(depth);
	return cut;
out_nomem:
	free(cut);
	free(c);
	free(depth);
	return NULL;
}

uint64_t kp_tree__merged_key(const struct kp_stk *s, uint32_t leaf)
{
	return kp_hash2(s->thr, kp_hash2(s->cgroup, (uint64_t)leaf << 8 | KP_STK_MERGED));
}

/* The low half of each stack's hash, which only stk_tab keeps. */
uint32_t *kp_tree__stack_hashes(const struct kp_model *m)
{
	uint32_t *lo = malloc((m->st.nr_stk ? m->st.nr_stk : 1) * sizeof(*lo));
	size_t i;

	if (!lo)
		return NULL;
	for (i = 0; i < m->st.stk_tab.n; i++) {
		uint64_t s = m->st.stk_tab.slots[i];

		if (s)
			lo[(uint32_t)s - 1] = (uint32_t)(s >> 32);
	}
	return lo;
}

/* The stacks under cut nodes: a cold one (no current or baseline count)
 * is merged into the one merged stack of its [other] node and forgotten
 * (a later sample makes it anew); the others keep their record with the
 * [other] node as leaf. In place; remap[old] = new id. */
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
			key = kp_tree__merged_key(&s, s.leaf);
			s.key = (uint32_t)(key >> 32);
			h = (uint32_t)key;
			s.flags = (s.flags & KP_STK_IDLE) | KP_STK_FOLDED | KP_STK_MERGED;
			KP_HTAB_FIND(&m->st.stk_tab, h, v,
				     m->st.stks[v].key == s.key && (m->st.stks[v].flags & KP_STK_MERGED),
				     found);
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

void kp_tree__compact(struct kp_model *m, const uint8_t *cut, size_t old_nr,
		      uint32_t *nidx)
{
	size_t i, j = 0;

	for (i = 0; i < m->tr.nr_nodes; i++) {
		if (i < old_nr && cut[i]) {
			nidx[i] = KP_NONE;
			continue;
		}
		nidx[i] = (uint32_t)j;
		m->tr.nodes[j] = m->tr.nodes[i];
		m->tr.nflags[j] = m->tr.nflags[i] & (uint8_t)~KP_NODE_WIDE;
		if (m->tr.nodes[j].parent != KP_NONE)
			m->tr.nodes[j].parent = nidx[m->tr.nodes[j].parent];
		j++;
	}
	m->tr.nr_nodes = j;
	m->tr.nr_other = 0;
	kp_htab__clear(&m->tr.wide_tab);	/* indices changed: wide again later */
	for (i = 0; i < m->tr.nr_nodes; i++)
		m->tr.nodes[i].child = m->tr.nodes[i].next = KP_NONE;
	for (i = 0; i < m->tr.nr_nodes; i++) {	/* relink: parents come first */
		struct kp_node *n = &m->tr.nodes[i];

		if (n->parent == KP_NONE)
			continue;
		m->tr.nr_other += !!(m->tr.nflags[i] & KP_NODE_OTHER);
		n->next = m->tr.nodes[n->parent].child;
		m->tr.nodes[n->parent].child = (uint32_t)i;
	}
	for (i = 0; i < m->st.nr_stk; i++)
		kp_stk(m, (uint32_t)i)->leaf = nidx[kp_stk(m, (uint32_t)i)->leaf];
	for (i = 0; i < m->pr.nr_procs; i++)
		m->pr.procs[i].root = nidx[m->pr.procs[i].root];
}

/* The [other] node each cut node's stacks go to. */
static int destinations(struct kp_model *m, const uint8_t *cut, size_t old_nr,
			uint32_t *dest)
{
	size_t i;

	for (i = 0; i < old_nr; i++) {
		uint32_t p = m->tr.nodes[i].parent;

		if (!cut[i])
			continue;
		dest[i] = cut[p] ? dest[p] : kp_tree__child(m, p, KP_FRAME_OTHER);
		if (dest[i] == KP_NONE)
			return -ENOMEM;
	}
	return 0;
}

int kp_tree__fold(struct kp_model *m)
{
	size_t target = m->tr.max_nodes - m->tr.max_nodes / 4, old_nr = m->tr.nr_nodes;
	double *w = NULL;
	uint8_t *cut = NULL;
	uint32_t *dest = NULL, *remap = NULL, *nidx = NULL;
	int err = -ENOMEM;

	if (m->tr.nr_nodes <= target)
		return 0;
	m->sums.ok = 0;		/* stacks merge and are marked folded */
	w = node_weights(m);
	if (!w)
		goto out;
	cut = cut_set(m, w, m->tr.nr_nodes - target);
	dest = calloc(old_nr, sizeof(*dest));
	remap = calloc(m->st.nr_stk ? m->st.nr_stk : 1, sizeof(*remap));
	if (!cut || !dest || !remap)
		goto out;
	err = destinations(m, cut, old_nr, dest);
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
	/* if little could be cut (roots, [other]), wait before trying again */
	m->tr.fold_at = m->tr.nr_nodes <= target ? m->tr.max_nodes
					   : m->tr.nr_nodes + m->tr.max_nodes / 4;
out:
	free(w);
	free(cut);
	free(dest);
	free(remap);
	free(nidx);
	return err;
}
