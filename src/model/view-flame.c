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
 * the whole trie: a frame of a 1M-node tree on a 200-column terminal
 * visits some thousands of nodes. Counts come from the view cache
 * (filter, hidden frames and time mode applied). Rows are in depth-first
 * order, root first; kp_row.id hashes the path of function ids (command
 * boxes: of the comm), so it is stable from one view to the next.
 */
#include "model/view-int.h"
#include "model/model-util.h"
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
	if (!strncmp(f->name, "py::", 4))	/* CPython 3.12's perf map names */
		return KP_KIND_PYTHON;
	if (!strcmp(m->in.mods[f->module].name, "[jit]"))
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

/* The visible live children of trie node n; a hidden child's own
 * visible children stand in its place (its self is its nearest visible
 * ancestor's already). */
static int push_children(struct fl *f, uint32_t n)
{
	const struct kp_model *m = f->m;
	uint32_t c;
	int err = 0;

	for (c = m->tr.nodes[n].child; c != KP_NONE && !err; c = m->tr.nodes[c].next) {
		if (!kp_node_live(f->a->n, f->a->btotal, c))
			continue;
		err = kp_eff(f->p, c) == c ? push_cand(f, c) : push_children(f, c);
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

static int cand_cmp(const void *x, const void *y, void *ctx)
{
	const struct fl *f = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c;

	if (f->m->tr.nodes[a].parent == KP_NONE) {	/* process roots: by comm */
		c = strcmp(node_comm(f->m, a), node_comm(f->m, b));
		if (c)
			return c;
	} else if (kp_node_fn(f->m, a) != kp_node_fn(f->m, b)) {
		return kp_node_fn(f->m, a) < kp_node_fn(f->m, b) ? -1 : 1;
	}
	return a < b ? -1 : a > b;
}

static int same_grp(const struct fl *f, uint32_t a, uint32_t b)
{
	if (f->m->tr.nodes[a].parent == KP_NONE)
		return !strcmp(node_comm(f->m, a), node_comm(f->m, b));
	return kp_node_fn(f->m, a) == kp_node_fn(f->m, b);
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

/* Group the candidates cand[from..) by function (by comm for process
 * roots) into groups pushed at f->g[nr_g..), sorted by name. */
static int make_groups(struct fl *f, size_t from, uint64_t parent_id)
{
	size_t i = from, first_g = f->nr_g;

	qsort_r(f->cand + from, f->nr_cand - from, sizeof(*f->cand), cand_cmp, f);
	while (i < f->nr_cand) {
		uint32_t n = f->cand[i];
		struct fl_grp *g;

		if (kp_grow(&f->g, &f->cap_g, f->nr_g + 1, sizeof(*f->g)))
			return -ENOMEM;
		g = &f->g[f->nr_g++];
		memset(g, 0, sizeof(*g));
		g->first = (uint32_t)i;
		if (f->m->tr.nodes[n].parent == KP_NONE) {
			g->level = FL_COMM;
			g->name = node_comm(f->m, n);
			g->id = kp_hash_bytes(g->name, strlen(g->name), FL_ROOT_ID) | 1;
		} else {
			g->level = FL_FN;
			g->fn = kp_node_fn(f->m, n);
			g->name = f->m->in.fns[g->fn].name;
			g->id = kp_hash2(parent_id, g->fn + 1) | 1;
		}
		for (; i < f->nr_cand && same_grp(f, n, f->cand[i]); i++)
			grp_add(f, g, f->cand[i]);
		g->n = (uint32_t)(i - g->first);
	}
	qsort(f->g + first_g, f->nr_g - first_g, sizeof(*f->g), grp_name_cmp);
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
	return err ? err : make_groups(f, from, g->id);
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
	err = make_box(&f, root, 0, 0, 0);
	free(f.cand);
	free(f.g);
	return err;
}
