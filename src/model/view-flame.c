// SPDX-License-Identifier: GPL-2.0-only
/* view-flame.c — the flame view: the boxes of a flame graph, laid out
 * once for the live view (src/tui/flame.c) and the SVG report
 * (src/report/svg.c).
 *
 * A box is a function on a call path, merged as the top-down tree merges
 * them (the call sites of one function under one parent are one box),
 * under one box per command (the processes of one comm together, as the
 * folded stacks and flamegraph.pl have them, so that a baseline from
 * another run lines up), under the root box "all". A box's width is its
 * total as a share of the zoom box's; its x is its parent's plus the
 * widths of the siblings before it; siblings go by name (flamegraph.pl's
 * order: a box stays where it was from one refresh to the next). A box
 * narrower than min_share of the zoom box is not made, nor anything
 * under it: its room is left empty at the end of its parent, where the
 * parent's self is. Boxes with no current count (only a baseline one)
 * have no width and are not made.
 *
 * Zoom: the path of box ids is followed from the root; each box on it
 * spans the width (x 0, w 1) and only the next one on the path is made
 * below it, down to the last found, the zoom box, laid out in full.
 *
 * Cost: the boxes made and the trie children of the boxes made, never
 * the whole trie. Children are grouped by function through a slot per
 * function (no sort), and only the groups wide enough are named and
 * sorted; what is left is one walk of each made box's child list, a
 * cache miss a child: bench/tui-bench's 1M-node tree (50 processes whose
 * main calls 1758 functions each) takes some 10 ms, 100k functions 1 ms.
 * Counts come from the view cache
 * (filter, hidden frames and time mode applied). Rows are in depth-first
 * order, root first; kp_row.id hashes the path of function ids (command
 * boxes: of the comm), so it is stable from one view to the next.
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

#define FL_ROOT_ID 0x466c616d65ull	/* "Flame" */
#define FL_OFF_PATH SIZE_MAX

enum fl_level { FL_ALL, FL_COMM, FL_FN };

struct fl_grp {			/* a box to be: trie nodes of one function */
	enum fl_level level;
	uint32_t fn;		/* FL_FN: the function */
	uint32_t first, n;	/* its nodes: cand[first .. first + n) */
	uint32_t pid;		/* FL_COMM: the pid if one process, else 0 */
	uint32_t nprocs;	/* FL_COMM: the processes (merged ones each) */
	const char *name;
	double self, total, bself, btotal;
	uint64_t samp;
	uint64_t id;
};

struct fl {
	struct kp_model *m;
	const struct kp_view_opts *o;
	const struct kp_prep *p;
	const struct kp_agg *a;
	struct kp_view *v;
	uint32_t *cand;		/* trie nodes: a stack of lists, one per level */
	size_t nr_cand, cap_cand;
	struct fl_grp *g;	/* groups: a stack of lists, one per level */
	size_t nr_g, cap_g;
	uint32_t *slot;		/* per function: its group + 1 while grouping */
	uint32_t *tmp;		/* 3 per candidate of a level: fn_groups */
	size_t cap_tmp;
	double scale;		/* 1 / the zoom box's total */
	double min;		/* boxes below this total are not made */
	uint32_t pid;		/* the command box's pid on the current path */
};

static enum kp_frame_kind fn_kind(const struct kp_model *m, uint32_t fn)
{
	const struct kp_func *f = &m->in.fns[fn];

	if (f->kernel)
		return KP_KIND_KERNEL;
	if (f->unknown || f->module == KP_MOD_UNKNOWN || f->module == KP_MOD_OTHER)
		return KP_KIND_UNKNOWN;
	/* CPython 3.12's perf map names ("py::" in streams of older kptops),
	 * Python frames read by the BPF program (src/pump/python.h) */
	if (!strncmp(f->name, "py::", 4) ||
	    !strcmp(m->in.mods[f->module].name, "[jit:python]") ||
	    !strncmp(m->in.mods[f->module].name, "[python", 7))
		return KP_KIND_PYTHON;
	if (!strncmp(m->in.mods[f->module].name, "[jit", 4))
		return KP_KIND_JIT;
	return KP_KIND_USER;
}

static int push_cand(struct fl *f, uint32_t n)
{
	if (kp_grow(&f->cand, &f->cap_cand, f->nr_cand + 1, sizeof(*f->cand)))
		return -ENOMEM;
	f->cand[f->nr_cand++] = n;
	return 0;
}

/* The visible children of trie node n (fn_groups leaves out those
 * without counts); a hidden child's own visible children stand in its
 * place (its self is its nearest visible ancestor's already). */
static int push_children(struct fl *f, uint32_t n)
{
	const struct kp_model *m = f->m;
	uint32_t c;
	int err = 0;

	for (c = m->tr.nodes[n].child; c != KP_NONE && !err; c = m->tr.nodes[c].next) {
		if (kp_eff(f->p, c) == c)
			err = push_cand(f, c);
		else if (kp_node_live(f->a->n, f->a->btotal, c))
			err = push_children(f, c);
	}
	return err;
}

/* Candidates of the root: every live process root. */
static int push_roots(struct fl *f)
{
	const struct kp_model *m = f->m;
	size_t i;
	int err = 0;

	for (i = 0; i < m->pr.nr_procs && !err; i++) {
		uint32_t r = m->pr.procs[i].root;

		if (r != KP_NONE && kp_node_live(f->a->n, f->a->btotal, r))
			err = push_cand(f, r);
	}
	return err;
}

static const char *node_comm(const struct kp_model *m, uint32_t n)
{
	const char *c = m->pr.procs[m->tr.nodes[n].proc].comm;

	return c ? c : "";
}

/* Process roots by comm. */
static int cand_cmp(const void *x, const void *y, void *ctx)
{
	const struct fl *f = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = strcmp(node_comm(f->m, a), node_comm(f->m, b));

	return c ? c : (a < b ? -1 : a > b);
}

static void grp_add(const struct fl *f, struct fl_grp *g, uint32_t n)
{
	const struct kp_proc *pr = &f->m->pr.procs[f->m->tr.nodes[n].proc];

	g->self += f->a->n[n].self;
	g->total += f->a->n[n].total;
	g->samp += f->a->n[n].samp;
	if (f->a->btotal) {
		g->bself += f->a->bself[n];
		g->btotal += f->a->btotal[n];
	}
	if (g->level == FL_COMM) {
		g->nprocs += pr->merged ? pr->nmerged : 1;
		g->pid = g->nprocs == 1 ? pr->pid : 0;
	}
}

static int grp_name_cmp(const void *x, const void *y)
{
	const struct fl_grp *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->fn < b->fn ? -1 : a->fn > b->fn);
}

static struct fl_grp *new_grp(struct fl *f)
{
	struct fl_grp *g;

	if (kp_grow(&f->g, &f->cap_g, f->nr_g + 1, sizeof(*f->g)))
		return NULL;
	g = &f->g[f->nr_g++];
	memset(g, 0, sizeof(*g));
	return g;
}

/* The process roots cand[from..) grouped by comm into groups pushed at
 * f->g[nr_g..), sorted by name (a sort: processes are few). */
static int comm_groups(struct fl *f, size_t from)
{
	size_t i = from, first_g = f->nr_g;

	qsort_r(f->cand + from, f->nr_cand - from, sizeof(*f->cand), cand_cmp, f);
	while (i < f->nr_cand) {
		uint32_t n = f->cand[i];
		struct fl_grp *g = new_grp(f);

		if (!g)
			return -ENOMEM;
		g->first = (uint32_t)i;
		g->level = FL_COMM;
		g->name = node_comm(f->m, n);
		g->id = kp_hash_bytes(g->name, strlen(g->name), FL_ROOT_ID) | 1;
		for (; i < f->nr_cand && !strcmp(g->name, node_comm(f->m, f->cand[i])); i++)
			grp_add(f, g, f->cand[i]);
		g->n = (uint32_t)(i - g->first);
	}
	qsort(f->g + first_g, f->nr_g - first_g, sizeof(*f->g), grp_name_cmp);
	return 0;
}

/* Group the trie nodes cand[from..) by function (slot[] finds a
 * function's group: no sort), keep the groups wide enough to be made
 * (total >= f->min) and their nodes only, gathered group by group in
 * cand[from..), and sort those groups by name. gof: each candidate's
 * group; remap: each group's kept index (KP_NONE: left out). */
static int fn_groups(struct fl *f, size_t from, uint64_t parent_id)
{
	size_t n = f->nr_cand - from, first_g = f->nr_g, ng, kept = 0, pos = from;
	uint32_t *gof, *remap, *buf;

	if (kp_grow(&f->tmp, &f->cap_tmp, 3 * n + 1, sizeof(*f->tmp)))
		return -ENOMEM;
	gof = f->tmp;
	remap = gof + n;
	buf = remap + n;
	for (size_t k = 0; k < n; k++) {
		uint32_t c = f->cand[from + k], fn;
		struct fl_grp *g;

		if (k + 8 < n) {	/* the trie is walked at random: fetch ahead */
			uint32_t a = f->cand[from + k + 8];

			__builtin_prefetch(&f->a->n[a]);
			__builtin_prefetch(&f->m->in.frames[f->m->tr.nodes[a].frame]);
		}
		gof[k] = KP_NONE;
		if (!kp_node_live(f->a->n, f->a->btotal, c))
			continue;
		fn = kp_node_fn(f->m, c);
		if (!f->slot[fn]) {
			if (!(g = new_grp(f)))
				return -ENOMEM;
			g->level = FL_FN;
			g->fn = fn;
			f->slot[fn] = (uint32_t)(f->nr_g - first_g);
		}
		gof[k] = f->slot[fn] - 1;
		grp_add(f, &f->g[first_g + gof[k]], c);
		f->g[first_g + gof[k]].n++;
	}
	ng = f->nr_g - first_g;
	for (size_t j = 0; j < ng; j++) {	/* compact: kept ones in place */
		struct fl_grp *g = &f->g[first_g + j];

		f->slot[g->fn] = 0;
		remap[j] = KP_NONE;
		if (!(g->total > 0) || g->total < f->min)
			continue;
		g->name = f->m->in.fns[g->fn].name;	/* only for those kept */
		g->id = kp_hash2(parent_id, g->fn + 1) | 1;
		g->first = (uint32_t)pos;
		pos += g->n;
		g->n = 0;	/* counted again as the nodes are placed */
		remap[j] = (uint32_t)kept;
		f->g[first_g + kept++] = *g;
	}
	for (size_t k = 0; k < n; k++) {
		struct fl_grp *g;

		if (gof[k] == KP_NONE || remap[gof[k]] == KP_NONE)
			continue;
		g = &f->g[first_g + remap[gof[k]]];
		buf[g->first - from + g->n++] = f->cand[from + k];
	}
	memcpy(f->cand + from, buf, (pos - from) * sizeof(*buf));
	f->nr_cand = pos;
	f->nr_g = first_g + kept;
	qsort(f->g + first_g, kept, sizeof(*f->g), grp_name_cmp);
	return 0;
}

static int emit_row(struct fl *f, const struct fl_grp *g, int depth, double x,
		    double w)
{
	struct kp_model *m = f->m;
	struct kp_row *r;

	if (kp_grow(&f->v->rows, &f->v->cap_rows, f->v->nr_rows + 1, sizeof(*r)))
		return -ENOMEM;
	r = &f->v->rows[f->v->nr_rows++];
	memset(r, 0, sizeof(*r));
	r->id = g->id;
	r->depth = depth;
	r->x = x;
	r->w = w;
	r->self = g->self;
	r->total = g->total;
	r->base_self = g->bself;
	r->base_total = g->btotal;
	r->samples = g->samp;
	r->name = g->name;
	r->pid = f->pid;
	r->kind = KP_KIND_PROCESS;
	if (g->level == FL_COMM) {
		r->comm = g->name;
		r->nr_procs = g->nprocs;
	} else if (g->level == FL_FN) {
		const struct kp_func *fu = &m->in.fns[g->fn];

		r->fn = g->fn + 1;
		r->module = fu->module != KP_MOD_OTHER ? m->in.mods[fu->module].name : NULL;
		r->kernel = fu->kernel;
		r->kind = fn_kind(m, g->fn);
	}
	return 0;
}

/* Push the child groups of g (from f->nr_g on). */
static int children(struct fl *f, const struct fl_grp *g, size_t *cbase)
{
	size_t from = f->nr_cand;
	int err = 0;

	*cbase = from;
	if (g->level == FL_ALL)
		err = push_roots(f);
	for (uint32_t k = 0; k < g->n && !err; k++)
		err = push_children(f, f->cand[g->first + k]);
	if (err)
		return err;
	return g->level == FL_ALL ? comm_groups(f, from) : fn_groups(f, from, g->id);
}

static int make_box(struct fl *f, struct fl_grp g, int depth, double x, size_t zpos);

/* On the zoom path: the child the path names next, made spanning the
 * width; 1 if there is one, 0 if g is the zoom box. */
static int follow_path(struct fl *f, size_t gbase, int depth, size_t zpos, int *err)
{
	size_t i;

	if (zpos >= f->o->zoom_len)
		return 0;
	for (i = gbase; i < f->nr_g; i++)
		if (f->g[i].id == f->o->zoom[zpos] && f->g[i].total > 0) {
			*err = make_box(f, f->g[i], depth + 1, 0, zpos + 1);
			return 1;
		}
	return 0;
}

/* Make the box of g at depth and x, then the boxes under it. zpos: the
 * next index on the zoom path, or FL_OFF_PATH for a box off it. */
static int make_box(struct fl *f, struct fl_grp g, int depth, double x, size_t zpos)
{
	size_t row = f->v->nr_rows, gbase = f->nr_g, cbase = f->nr_cand, i;
	uint32_t pid = f->pid;
	int err;

	if (g.level == FL_COMM)
		f->pid = g.pid;
	err = emit_row(f, &g, depth, zpos == FL_OFF_PATH ? x : 0,
		       zpos == FL_OFF_PATH ? g.total * f->scale : 1);
	err = err ? err : children(f, &g, &cbase);
	if (err || (zpos != FL_OFF_PATH && follow_path(f, gbase, depth, zpos, &err)))
		goto out;
	if (zpos != FL_OFF_PATH) {	/* the zoom box */
		f->v->zoom_depth = depth;
		f->scale = 1 / g.total;
		f->min = g.total * f->o->min_share;
		x = 0;
	}
	for (i = gbase; i < f->nr_g && !err; i++) {
		if (f->g[i].total <= 0 || f->g[i].total < f->min)
			continue;
		f->v->rows[row].has_children = 1;
		err = make_box(f, f->g[i], depth + 1, x, FL_OFF_PATH);
		x += f->g[i].total * f->scale;
	}
out:
	f->pid = pid;
	f->nr_g = gbase;
	f->nr_cand = cbase;
	return err;
}

int kp_view__flame(struct kp_model *m, const struct kp_view_opts *o,
		   const struct kp_prep *p, const struct kp_agg *a,
		   struct kp_view *v)
{
	struct fl f = { .m = m, .o = o, .p = p, .a = a, .v = v };
	struct fl_grp root = { .level = FL_ALL, .name = "all", .id = FL_ROOT_ID,
			       .self = 0, .total = a->vtotal, .btotal = a->vbase };
	int err;

	v->zoom_depth = 0;
	if (!(a->vtotal > 0))
		return 0;
	for (size_t i = 0; i < m->pr.nr_procs; i++) {
		uint32_t r = m->pr.procs[i].root;

		if (r != KP_NONE)
			root.samp += a->n[r].samp;
	}
	f.scale = 1 / a->vtotal;
	f.slot = kp_scratch(m, KP_SC_VMAP, (m->in.nr_fns + 1) * sizeof(*f.slot), 1);
	err = f.slot ? make_box(&f, root, 0, 0, 0) : -ENOMEM;
	free(f.cand);
	free(f.g);
	free(f.tmp);
	return err;
}
