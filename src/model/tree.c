// SPDX-License-Identifier: GPL-2.0-only
/* tree.c — the call trie: one root per process identity, nodes keyed by
 * (parent, frame), and the node limit.
 *
 * Nodes are only appended, so a parent's index is always below its
 * children's; views rely on that to sum totals in one backward pass.
 *
 * The node limit (kp_tree__fold) is fold.c's; the compaction it and
 * merge.c share is here.
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

int kp_tree__has_ancestor_fn(const struct kp_model *m, uint32_t n, uint32_t fn)
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
	else if (dup < 0 ? kp_tree__has_ancestor_fn(m, parent, m->in.frames[frame].fn) : dup)
		flags = KP_NODE_DUP;
	idx = add_node(m, parent, frame, m->tr.nodes[parent].proc, flags);
	if (idx == KP_NONE)
		return KP_NONE;
	if (flags & KP_NODE_OTHER)
		m->tr.nr_other++;
	return idx;
}

uint32_t kp_tree__find_child(const struct kp_model *m, uint32_t parent, uint32_t frame)
{
	uint32_t c;

	if (m->tr.nflags[parent] & KP_NODE_WIDE) {
		uint64_t *found;

		KP_HTAB_FIND(&m->tr.wide_tab, wide_hash(parent, frame), c,
			     m->tr.nodes[c].parent == parent && m->tr.nodes[c].frame == frame,
			     found);
		return found ? c : KP_NONE;
	}
	for (c = m->tr.nodes[parent].child; c != KP_NONE; c = m->tr.nodes[c].next)
		if (m->tr.nodes[c].frame == frame)
			return c;
	return KP_NONE;
}

/* Function names changed (a late SYMTAB): recompute the DUP flags. */
void kp_tree__redup(struct kp_model *m)
{
	size_t n;

	for (n = 0; n < m->tr.nr_nodes; n++) {
		m->tr.nflags[n] &= (uint8_t)~KP_NODE_DUP;
		if (m->tr.nodes[n].parent != KP_NONE && !(m->tr.nflags[n] & KP_NODE_OTHER) &&
		    kp_tree__has_ancestor_fn(m, m->tr.nodes[n].parent, kp_node_fn(m, (uint32_t)n)))
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

uint64_t kp_tree__merged_key(const struct kp_stk *s, uint32_t leaf)
{
	return kp_hash2(s->thr ^ (uint64_t)s->cpu << 32, kp_hash2(s->cgroup ^ (uint64_t)s->lfr << 32,
					 (uint64_t)leaf << 8 | KP_STK_MERGED));
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

/* The child lists made again from the parents (parents come first), and
 * the wide table for the parents with KP_WIDE_AT children or more: a
 * list that long would be walked at every lookup that finds a child in
 * it (a merged command's root has thousands), since only a lookup that
 * misses makes a parent wide. Without memory for the counts, the lists
 * stay (slower, still right). */
static void relink(struct kp_model *m)
{
	size_t n = m->tr.nr_nodes, i;
	uint32_t *cnt = calloc(n ? n : 1, sizeof(*cnt));

	m->tr.nr_other = 0;
	kp_htab__clear(&m->tr.wide_tab);	/* indices changed */
	for (i = 0; i < n; i++)
		m->tr.nodes[i].child = m->tr.nodes[i].next = KP_NONE;
	for (i = 0; i < n; i++) {
		struct kp_node *nd = &m->tr.nodes[i];

		if (nd->parent == KP_NONE)
			continue;
		m->tr.nr_other += !!(m->tr.nflags[i] & KP_NODE_OTHER);
		nd->next = m->tr.nodes[nd->parent].child;
		m->tr.nodes[nd->parent].child = (uint32_t)i;
		if (cnt)
			cnt[nd->parent]++;
	}
	for (i = 0; cnt && i < n; i++)
		if (cnt[i] >= KP_WIDE_AT)
			make_wide(m, (uint32_t)i);
	free(cnt);
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
	relink(m);
	for (i = 0; i < m->st.nr_stk; i++)
		kp_stk(m, (uint32_t)i)->leaf = nidx[kp_stk(m, (uint32_t)i)->leaf];
	for (i = 0; i < m->pr.nr_procs; i++)
		m->pr.procs[i].root = nidx[m->pr.procs[i].root];
}
