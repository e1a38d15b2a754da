// SPDX-License-Identifier: GPL-2.0-only
/* view-tree.c — the top-down and bottom-up tree views.
 *
 * Top-down: the trie nodes with counts are merged by function under one
 * row per process (depth 0): trie nodes differ by call site, rows by
 * function. Hidden frames fold into their parent row. Row ids hash the
 * path of function ids from the process, so they are stable. A row's
 * source line is that of its first call site (lowest node).
 *
 * Bottom-up: built from the top-down rows. With root_fn == 0 every
 * function with self samples is at depth 0 and its callers below; with
 * root_fn == f, f is the only depth-0 row and each stack through it is
 * counted once, from its outermost f, with the callers of that call.
 * The process is the last caller. For root_fn == f only the paths from
 * the nodes of f (their list in the cache) to their roots are built, so
 * a caller's source line is that of its first call site leading to f.
 */
#include "model/view-int.h"
#include "model/model-util.h"
#include "model/scratch.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/filter-int.h"
#include "model/view-cache.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KP_VN_PROC 0x80000000u	/* fn key of a process row */

struct vn {
	uint32_t parent, fn, frame, proc;
	uint32_t child, next;	/* first child, next sibling */
	double self, total, bself, btotal;
	uint64_t samp, sself;	/* raw samples: through, ending here */
	uint64_t id;
	uint8_t open;		/* expanded: its children are built */
	uint8_t kids;		/* closed, but has children with counts */
};

struct vt {
	struct vn *v;
	size_t nr, cap;
	struct kp_htab tab;
};

struct emit {
	struct kp_model *m;
	const struct kp_view_opts *o;
	const struct vt *t;
	struct kp_view *v;
	double vtotal, vbase;
};

static void vt_fini(struct vt *t)
{
	free(t->v);
	kp_htab__fini(&t->tab);
}

/* The row (parent, fn), made on first use; KP_NONE on -ENOMEM. */
static uint32_t vt_child(struct vt *t, uint32_t parent, uint32_t fn, uint32_t proc,
			 uint64_t seed)
{
	uint32_t h = (uint32_t)kp_hash2(parent, fn), i = 0;
	uint64_t *found;
	struct vn *n;

	KP_HTAB_FIND(&t->tab, h, i, t->v[i].parent == parent && t->v[i].fn == fn, found);
	if (found)
		return i;
	if (kp_grow(&t->v, &t->cap, t->nr + 1, sizeof(*t->v)) ||
	    kp_htab__insert(&t->tab, h, (uint32_t)t->nr))
		return KP_NONE;
	n = &t->v[t->nr];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->fn = fn;
	n->proc = proc;
	n->frame = KP_NONE;
	n->child = n->next = KP_NONE;
	n->id = kp_hash2(parent == KP_NONE ? seed : t->v[parent].id, fn + 1) | 1;
	return (uint32_t)t->nr++;
}

static void vn_add(struct vn *n, const struct kp_agg *a, uint32_t i)
{
	n->self += a->n[i].self;
	n->total += a->n[i].total;
	n->samp += a->n[i].samp;
	n->sself += a->n[i].sself;
	if (a->bself) {
		n->bself += a->bself[i];
		n->btotal += a->btotal[i];
	}
}

static uint64_t proc_id(const struct kp_model *m, uint32_t proc)
{
	return kp_proc__row_id(m, proc);
}

/* Is row i expanded? Asked once per row; without a callback, all are. */
static void vn_open(struct vt *t, uint32_t i, const struct kp_view_opts *o)
{
	t->v[i].open = !o || !o->expanded || o->expanded(o->expanded_ctx, t->v[i].id);
}

/* Map trie nodes (with counts) to rows; vmap[node] = row. The nodes are
 * all of them, or those marked in only (each with its parent). With o
 * (the top-down view), rows below a collapsed row are not built: the row
 * only learns that it has children. */
static int build_topdown(struct kp_model *m, const struct kp_prep *p,
			 const struct kp_agg *a, struct vt *t,
			 const struct kp_view_opts *o, const uint8_t *only)
{
	uint32_t *vmap = kp_scratch(m, KP_SC_VMAP, (m->tr.nr_nodes ? m->tr.nr_nodes : 1) *
				    sizeof(*vmap), 0);
	uint32_t n;

	if (!vmap)
		return -ENOMEM;
	for (n = 0; n < m->tr.nr_nodes; n++) {
		const struct kp_node *nd = &m->tr.nodes[n];
		uint32_t pv = nd->parent == KP_NONE ? KP_NONE : vmap[nd->parent];

		vmap[n] = KP_NONE;
		if ((only && !only[n]) || !kp_node_live(a->n, a->btotal, n))
			continue;
		if (nd->parent != KP_NONE && pv == KP_NONE)
			continue;
		if (nd->parent != KP_NONE && kp_eff(p, n) != n) {
			vmap[n] = pv;
			continue;
		}
		if (nd->parent != KP_NONE && !t->v[pv].open) {
			t->v[pv].kids = 1;
			continue;
		}
		if (nd->parent == KP_NONE)
			vmap[n] = vt_child(t, KP_NONE, KP_VN_PROC | nd->proc, nd->proc,
					   proc_id(m, nd->proc));
		else
			vmap[n] = vt_child(t, pv, kp_node_fn(m, n), nd->proc, 0);
		if (vmap[n] == KP_NONE)
			return -ENOMEM;
		if (nd->parent == KP_NONE)
			t->v[vmap[n]].id = proc_id(m, nd->proc);
		if (t->v[vmap[n]].frame == KP_NONE)
			vn_open(t, vmap[n], o);
		if (t->v[vmap[n]].frame == KP_NONE)
			t->v[vmap[n]].frame = nd->frame;
		vn_add(&t->v[vmap[n]], a, n);
	}
	return 0;
}

/* Mark the visible live nodes of function fn and all their ancestors:
 * the only nodes the callers of fn are built from. 0 if none. */
static size_t fn_paths(struct kp_model *m, const struct kp_prep *p,
		       const struct kp_agg *a, uint32_t fn, uint8_t *mark)
{
	uint32_t s, n;
	size_t nr = 0;

	for (s = fn < m->in.nr_fns ? a->f[fn].head : KP_NONE; s != KP_NONE;
	     s = a->n[s].fn_next) {
		if (kp_eff(p, s) != s || !kp_node_live(a->n, a->btotal, s))
			continue;
		for (n = s; n != KP_NONE && !mark[n]; n = m->tr.nodes[n].parent, nr++)
			mark[n] = 1;
	}
	return nr;
}

static void link_children(struct vt *t)
{
	size_t i;

	for (i = t->nr; i-- > 0;) {
		uint32_t par = t->v[i].parent;

		if (par == KP_NONE)
			continue;
		t->v[i].next = t->v[par].child;
		t->v[par].child = (uint32_t)i;
	}
}

/* ---- emitting rows ---- */

static double vn_key(const struct emit *e, const struct vn *n)
{
	switch (e->o->sort) {
	case KP_SORT_SELF: return n->self;
	case KP_SORT_TOTAL: return n->total;
	case KP_SORT_DELTA:
		return kp_fabs((e->vtotal > 0 ? n->total / e->vtotal : 0) -
			    (e->vbase > 0 ? n->btotal / e->vbase : 0));
	default: return 0;
	}
}

static const char *vn_name(const struct emit *e, const struct vn *n)
{
	if (n->fn & KP_VN_PROC)
		return e->m->pr.procs[n->proc].merged ? e->m->pr.procs[n->proc].label
						    : e->m->pr.procs[n->proc].comm;
	return e->m->in.fns[n->fn].name;
}

static int vn_cmp(const void *a, const void *b, void *ctx)
{
	const struct emit *e = ctx;
	const struct vn *x = &e->t->v[*(const uint32_t *)a];
	const struct vn *y = &e->t->v[*(const uint32_t *)b];
	double kx, ky;
	int c;

	if (e->o->sort == KP_SORT_NAME) {
		c = strcmp(vn_name(e, x), vn_name(e, y));
		if (c)
			return c;
	} else {
		kx = vn_key(e, x);
		ky = vn_key(e, y);
		if (kx != ky)
			return kx > ky ? -1 : 1;
	}
	return x->id < y->id ? -1 : x->id > y->id;
}

static int live(const struct vn *n)
{
	return n->total != 0 || n->btotal != 0;
}

static int emit_row(struct emit *e, uint32_t i, int depth)
{
	const struct vn *n = &e->t->v[i];
	struct kp_model *m = e->m;
	const struct kp_proc *pr = &m->pr.procs[n->proc];
	struct kp_row *r;
	uint32_t c;

	if (kp_grow(&e->v->rows, &e->v->cap_rows, e->v->nr_rows + 1, sizeof(*r)))
		return -ENOMEM;
	r = &e->v->rows[e->v->nr_rows++];
	memset(r, 0, sizeof(*r));
	r->id = n->id;
	r->depth = depth;
	r->has_children = n->kids;
	for (c = n->child; c != KP_NONE; c = e->t->v[c].next)
		r->has_children |= live(&e->t->v[c]);
	r->self = n->self;
	r->total = n->total;
	r->base_self = n->bself;
	r->base_total = n->btotal;
	r->samples = n->samp;
	r->name = vn_name(e, n);
	r->comm = pr->comm;
	r->pid = pr->pid;
	r->nr_procs = pr->nmerged;
	if (!(n->fn & KP_VN_PROC)) {
		const struct kp_func *f = &m->in.fns[n->fn];

		r->fn = n->fn + 1;
		r->module = f->module != KP_MOD_OTHER ? m->in.mods[f->module].name : NULL;
		r->kernel = f->kernel;
		if (n->frame != KP_NONE) {
			r->inlined = m->in.frames[n->frame].inlined;
			r->source = kp_intern__source(m, n->frame);
		}
	}
	return 0;
}

static int emit_list(struct emit *e, uint32_t first, int depth);

static int emit_one(struct emit *e, uint32_t i, int depth)
{
	size_t row = e->v->nr_rows;
	int err = emit_row(e, i, depth);

	if (err || !e->v->rows[row].has_children || !e->t->v[i].open)
		return err;
	return emit_list(e, e->t->v[i].child, depth + 1);
}

/* Emit the live rows of a sibling list (first..next), sorted. */
static int emit_list(struct emit *e, uint32_t first, int depth)
{
	uint32_t *ids = NULL, c;
	size_t n = 0, cap = 0, i;
	int err = 0;

	for (c = first; c != KP_NONE; c = e->t->v[c].next) {
		if (!live(&e->t->v[c]))
			continue;
		if (kp_grow(&ids, &cap, n + 1, sizeof(*ids))) {
			free(ids);
			return -ENOMEM;
		}
		ids[n++] = c;
	}
	if (n == 0)	/* ids is NULL: no qsort_r(NULL, 0) */
		return 0;
	qsort_r(ids, n, sizeof(*ids), vn_cmp, e);
	for (i = 0; i < n && !err; i++) {
		if (e->o->max_rows && e->v->nr_rows >= e->o->max_rows)
			break;
		err = emit_one(e, ids[i], depth);
	}
	free(ids);
	return err;
}

/* Link the roots (rows without a parent) into one list and emit it. */
static int emit_tree(struct emit *e, struct vt *t)
{
	uint32_t first = KP_NONE;
	size_t i;

	link_children(t);
	for (i = t->nr; i-- > 0;) {
		if (t->v[i].parent != KP_NONE)
			continue;
		t->v[i].next = first;
		first = (uint32_t)i;
	}
	return emit_list(e, first, 0);
}

/* ---- bottom-up ---- */

static int bu_path(struct vt *b, const struct vt *t, const struct kp_view_opts *o,
		   uint32_t from, uint32_t head, double w, double bw, uint64_t samp)
{
	uint32_t cur = head, p;

	for (p = t->v[from].parent; p != KP_NONE; p = t->v[p].parent) {
		const struct vn *pn = &t->v[p];

		cur = vt_child(b, cur, pn->fn, pn->proc, 0);
		if (cur == KP_NONE)
			return -ENOMEM;
		if (b->v[cur].frame == KP_NONE) {
			vn_open(b, cur, o);
			b->v[cur].frame = pn->frame;
		}
		b->v[cur].total += w;
		b->v[cur].btotal += bw;
		b->v[cur].samp += samp;
	}
	return 0;
}

static int outermost(const struct vt *t, uint32_t i)
{
	uint32_t p;

	for (p = t->v[i].parent; p != KP_NONE; p = t->v[p].parent)
		if (t->v[p].fn == t->v[i].fn)
			return 0;
	return 1;
}

static int build_bottomup(const struct vt *t, const struct kp_view_opts *o,
			  struct vt *b)
{
	uint32_t root_fn = (uint32_t)o->root_fn;
	size_t i;
	int err = 0;

	for (i = 0; i < t->nr && !err; i++) {
		const struct vn *n = &t->v[i];
		uint32_t head;
		double w, bw;
		uint64_t s;

		if (n->fn & KP_VN_PROC)
			continue;
		if (root_fn ? n->fn + 1 != root_fn : n->self == 0 && n->bself == 0)
			continue;
		head = vt_child(b, KP_NONE, n->fn, n->proc, 0xb0);
		if (head == KP_NONE)
			return -ENOMEM;
		if (b->v[head].frame == KP_NONE) {
			vn_open(b, head, o);
			b->v[head].frame = n->frame;
		}
		b->v[head].self += n->self;
		b->v[head].bself += n->bself;
		if (root_fn && !outermost(t, (uint32_t)i))
			continue;
		w = root_fn ? n->total : n->self;
		bw = root_fn ? n->btotal : n->bself;
		s = root_fn ? n->samp : n->sself;
		b->v[head].total += w;
		b->v[head].btotal += bw;
		b->v[head].samp += s;
		err = bu_path(b, t, o, (uint32_t)i, head, w, bw, s);
	}
	return err;
}

int kp_view__tree(struct kp_model *m, const struct kp_view_opts *o,
		  const struct kp_prep *p, const struct kp_agg *a,
		  struct kp_view *v)
{
	struct vt t = { 0 }, b = { 0 };
	struct emit e = { .m = m, .o = o, .v = v, .vtotal = a->vtotal, .vbase = a->vbase };
	uint8_t *only = NULL;
	int err = 0;

	if (o->kind == KP_VIEW_BOTTOMUP && o->root_fn) {
		only = kp_scratch(m, KP_SC_MARK, m->tr.nr_nodes ? m->tr.nr_nodes : 1, 1);
		if (!only)
			return -ENOMEM;
		if (fn_paths(m, p, a, (uint32_t)(o->root_fn - 1), only))
			err = build_topdown(m, p, a, &t, NULL, only);
	} else {
		err = build_topdown(m, p, a, &t, o->kind == KP_VIEW_TOPDOWN ? o : NULL,
				    NULL);
	}
	if (err)
		goto out;
	if (o->kind == KP_VIEW_TOPDOWN) {
		e.t = &t;
		err = emit_tree(&e, &t);
		goto out;
	}
	err = build_bottomup(&t, o, &b);
	if (!err) {
		e.t = &b;
		err = emit_tree(&e, &b);
	}
out:
	vt_fini(&t);
	vt_fini(&b);
	return err;
}
