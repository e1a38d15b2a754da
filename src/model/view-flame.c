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
 * sorted; what is left is the walk of each made box's child lists, a
 * cache miss a child. Below the zoom box the boxes are made a level at a
 * time, and the child lists of all the boxes of a level are walked a step
 * of each in turn, so that their misses overlap (one list after another,
 * bench/tui-bench's 1M-node tree, 50 processes whose main calls 1758
 * functions each, took some 10 ms a frame; so, 3.5-5); the rows are put
 * in depth-first order at the end. Counts come from the view cache
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

struct fl_box {			/* a made box: its row and its nodes' range */
	struct fl_grp g;
	uint32_t row;
	uint32_t pid;		/* the command box's pid on its path */
	double x;
};

struct fl_cur {			/* a child list being walked, for box `box` */
	uint32_t c, box;
};

struct fl_kids {		/* a row's children: rows first .. first + n */
	uint32_t first, n;
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
	struct fl_cur *cur;	/* gather: the child lists being walked */
	struct fl_cur *out;	/* gather: (box, child) as walked */
	size_t cap_cur, cap_out;
	uint32_t *nc;		/* gather: the next level's nodes, by box */
	size_t cap_nc;
	uint32_t *bend;		/* gather: each box's end in nc */
	size_t cap_bend;
	struct fl_box *lv, *nlv;	/* this level's boxes, the next's */
	size_t nr_lv, nr_nlv, cap_lv, cap_nlv;
	struct fl_kids *kids;	/* per row: its children's rows */
	size_t nr_kids, cap_kids;
	size_t rbase;		/* the view's first flame row */
};

static enum kp_frame_kind fn_kind(const struct kp_model *m, uint32_t fn)
{
	const struct kp_func *f = &m->in.fns[fn];

	if (f->kernel)
		return KP_KIND_KERNEL;
	if (f->unknown || kp_mod_pseudo(f->module))
		return KP_KIND_UNKNOWN;
	/* CPython 3.12's perf map names ("py::" in streams of older kptops),
	 * Python frames read by the BPF program (src/pump/python.h) */
	if (!strncmp(f->name, "py::", 4) ||
	    !strcmp(m->in.mods[f->module].name, "[jit:python]") ||
	    !strncmp(m->in.mods[f->module].name, KP_PYTHON_MODULE_PREFIX,
		     sizeof(KP_PYTHON_MODULE_PREFIX) - 1))
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

/* Group the trie nodes cand[from .. from + n) by function (slot[] finds
 * a function's group: no sort), keep the groups wide enough to be made
 * (total >= f->min) and their nodes only, gathered group by group at
 * the start of that range, and sort those groups by name. gof: each
 * candidate's group; remap: each group's kept index (KP_NONE: left out). */
static int fn_groups(struct fl *f, size_t from, size_t n, uint64_t parent_id)
{
	size_t first_g = f->nr_g, ng, kept = 0, pos = from;
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
	f->nr_g = first_g + kept;
	qsort(f->g + first_g, kept, sizeof(*f->g), grp_name_cmp);
	return 0;
}

static int emit_row(struct fl *f, const struct fl_grp *g, int depth, double x,
		    double w, uint32_t pid)
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
	r->pid = pid;
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

/* The child groups of g (pushed at f->g from f->nr_g on), its nodes'
 * children gathered one list after another: the zoom path's boxes. */
static int children(struct fl *f, const struct fl_grp *g)
{
	size_t from = f->nr_cand;
	int err = 0;

	if (g->level == FL_ALL)
		err = push_roots(f);
	for (uint32_t k = 0; k < g->n && !err; k++)
		err = push_children(f, f->cand[g->first + k]);
	if (err)
		return err;
	return g->level == FL_ALL ? comm_groups(f, from)
				  : fn_groups(f, from, f->nr_cand - from, g->id);
}
/* Record rows first .. first + n as the children of row `row` (every
 * row made so far has an entry; none: no children). */
static int kids_cover(struct fl *f)
{
	size_t need = f->v->nr_rows - f->rbase;

	if (kp_grow(&f->kids, &f->cap_kids, need + 1, sizeof(*f->kids)))
		return -ENOMEM;
	memset(f->kids + f->nr_kids, 0, (need - f->nr_kids) * sizeof(*f->kids));
	f->nr_kids = need;
	return 0;
}

static int set_kids(struct fl *f, uint32_t row, size_t first, size_t n)
{
	if (kids_cover(f))
		return -ENOMEM;
	f->kids[row - f->rbase] = (struct fl_kids){ (uint32_t)first, (uint32_t)n };
	return 0;
}

static int push_box(struct fl *f, const struct fl_grp *g, int depth, double x,
		    uint32_t pid)
{
	struct fl_box *b;

	if (kp_grow(&f->nlv, &f->cap_nlv, f->nr_nlv + 1, sizeof(*f->nlv)))
		return -ENOMEM;
	b = &f->nlv[f->nr_nlv++];
	b->g = *g;
	b->row = (uint32_t)f->v->nr_rows;
	b->pid = g->level == FL_COMM ? g->pid : pid;
	b->x = x;
	return emit_row(f, g, depth, x, g->total * f->scale, b->pid);
}

/* The groups f->g[gbase..) wide enough, made as the children of box p
 * at depth (their rows consecutive, their boxes in the next level). */
static int make_kids(struct fl *f, const struct fl_box *p, size_t gbase, int depth)
{
	size_t first = f->v->nr_rows;
	double x = p->x;
	int err = 0;

	for (size_t i = gbase; i < f->nr_g && !err; i++) {
		if (f->g[i].total <= 0 || f->g[i].total < f->min)
			continue;
		err = push_box(f, &f->g[i], depth, x, p->pid);
		x += f->g[i].total * f->scale;
	}
	if (!err && f->v->nr_rows > first) {
		f->v->rows[p->row].has_children = 1;
		err = set_kids(f, p->row, first, f->v->nr_rows - first);
	}
	f->nr_g = gbase;
	return err;
}

static int push_cur(struct fl *f, size_t *n, uint32_t c, uint32_t box)
{
	if (kp_grow(&f->cur, &f->cap_cur, *n + 1, sizeof(*f->cur)))
		return -ENOMEM;
	f->cur[(*n)++] = (struct fl_cur){ c, box };
	return 0;
}

/* Walk the child lists of every node of the level's boxes, a step of
 * each in turn (the lists' cache misses overlap instead of following
 * one another), into f->out: (box, visible child). A hidden child's
 * own children are walked in its place. */
static int walk_level(struct fl *f, size_t *nout)
{
	const struct kp_node *nodes = f->m->tr.nodes;
	size_t nc = 0, no = 0;
	int err = 0;

	for (size_t b = 0; b < f->nr_lv && !err; b++)
		for (uint32_t k = 0; k < f->lv[b].g.n && !err; k++) {
			uint32_t c = nodes[f->cand[f->lv[b].g.first + k]].child;

			err = c != KP_NONE ? push_cur(f, &nc, c, (uint32_t)b) : 0;
		}
	while (nc && !err) {
		for (size_t i = 0; i < nc && !err;) {
			uint32_t c = f->cur[i].c, box = f->cur[i].box;

			if (c == KP_NONE) {
				f->cur[i] = f->cur[--nc];
				continue;
			}
			f->cur[i++].c = nodes[c].next;
			if (nodes[c].next != KP_NONE)
				__builtin_prefetch(&nodes[nodes[c].next]);
			if (kp_eff(f->p, c) == c) {
				if (kp_grow(&f->out, &f->cap_out, no + 1, sizeof(*f->out)))
					err = -ENOMEM;
				else
					f->out[no++] = (struct fl_cur){ c, box };
			} else if (kp_node_live(f->a->n, f->a->btotal, c) &&
				   nodes[c].child != KP_NONE) {
				err = push_cur(f, &nc, nodes[c].child, box);
			}
		}
	}
	*nout = no;
	return err;
}

/* The walked children, box by box, become f->cand (a counting sort);
 * f->bend[b]: the end of box b's range, b's start is bend[b - 1]. */
static int gather_level(struct fl *f)
{
	size_t no, sum = 0;
	uint32_t *t;
	int err = walk_level(f, &no);

	if (err || kp_grow(&f->bend, &f->cap_bend, f->nr_lv + 1, sizeof(*f->bend)) ||
	    kp_grow(&f->nc, &f->cap_nc, no + 1, sizeof(*f->nc)))
		return err ? err : -ENOMEM;
	memset(f->bend, 0, f->nr_lv * sizeof(*f->bend));
	for (size_t i = 0; i < no; i++)
		f->bend[f->out[i].box]++;
	for (size_t b = 0; b < f->nr_lv; b++) {	/* counts to starts */
		size_t c = f->bend[b];

		f->bend[b] = (uint32_t)sum;
		sum += c;
	}
	for (size_t i = 0; i < no; i++)		/* starts to ends */
		f->nc[f->bend[f->out[i].box]++] = f->out[i].c;
	t = f->cand;
	f->cand = f->nc;
	f->nc = t;
	sum = f->cap_cand;
	f->cap_cand = f->cap_nc;
	f->cap_nc = sum;
	f->nr_cand = no;
	return 0;
}

/* The boxes just made (f->nlv) become the level (f->lv). */
static void next_level(struct fl *f)
{
	struct fl_box *t = f->lv;
	size_t cap = f->cap_lv;

	f->lv = f->nlv;
	f->cap_lv = f->cap_nlv;
	f->nr_lv = f->nr_nlv;
	f->nlv = t;
	f->cap_nlv = cap;
	f->nr_nlv = 0;
}

/* Below the zoom box, a level at a time: the boxes of f->lv at depth,
 * their children made into f->nlv at depth + 1. */
static int make_levels(struct fl *f, int depth)
{
	int err = 0;

	while (f->nr_lv && !err) {
		err = gather_level(f);
		f->nr_nlv = 0;
		for (size_t b = 0; b < f->nr_lv && !err; b++) {
			size_t from = b ? f->bend[b - 1] : 0;

			err = fn_groups(f, from, f->bend[b] - from, f->lv[b].g.id);
			err = err ? err : make_kids(f, &f->lv[b], 0, depth + 1);
		}
		next_level(f);
		depth++;
	}
	return err;
}

/* The zoom path from the root: each box on it spans the width and has
 * only the next one below it; the last found is the zoom box, whose
 * children start the levels. Returns the zoom box's depth. */
static int make_path(struct fl *f, struct fl_box zb, int *depth)
{
	size_t zpos = 0;
	int err = 0;

	for (;;) {
		size_t i;

		f->nr_g = 0;
		err = children(f, &zb.g);
		for (i = 0; !err && zpos < f->o->zoom_len && i < f->nr_g; i++)
			if (f->g[i].id == f->o->zoom[zpos] && f->g[i].total > 0)
				break;
		if (err || zpos >= f->o->zoom_len || i == f->nr_g)
			break;
		err = set_kids(f, zb.row, f->v->nr_rows, 1);
		zb.g = f->g[i];
		zb.row = (uint32_t)f->v->nr_rows;
		zb.pid = zb.g.level == FL_COMM ? zb.g.pid : zb.pid;
		err = err ? err : emit_row(f, &zb.g, ++*depth, 0, 1, zb.pid);
		zpos++;
		if (err)
			return err;
	}
	if (err)
		return err;
	f->v->zoom_depth = *depth;
	f->scale = 1 / zb.g.total;
	f->min = zb.g.total * f->o->min_share;
	zb.x = 0;
	f->nr_nlv = 0;
	err = make_kids(f, &zb, 0, *depth + 1);
	next_level(f);
	return err ? err : make_levels(f, *depth + 1);
}

/* The rows, made a level at a time, put in depth-first order. */
static int depth_first(struct fl *f)
{
	size_t n = f->v->nr_rows - f->rbase, k = 0, sp = 0;
	struct kp_row *out = malloc((n ? n : 1) * sizeof(*out));
	uint32_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	int err = out && stack ? kids_cover(f) : -ENOMEM;

	if (!out || !stack || err) {
		free(out);
		free(stack);
		return -ENOMEM;
	}
	if (n)
		stack[sp++] = 0;
	while (sp) {
		uint32_t r = stack[--sp];
		const struct fl_kids *kd;

		out[k++] = f->v->rows[f->rbase + r];
		kd = &f->kids[r];
		for (uint32_t i = kd->n; i-- > 0;)
			stack[sp++] = (uint32_t)(kd->first + i - f->rbase);
	}
	memcpy(f->v->rows + f->rbase, out, k * sizeof(*out));
	free(out);
	free(stack);
	return 0;
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
	f.rbase = v->nr_rows;
	f.slot = kp_scratch(m, KP_SC_VMAP, (m->in.nr_fns + 1) * sizeof(*f.slot), 1);
	err = f.slot ? emit_row(&f, &root, 0, 0, 1, 0) : -ENOMEM;
	if (!err) {
		struct fl_box zb = { .g = root, .row = (uint32_t)f.rbase };
		int depth = 0;

		err = make_path(&f, zb, &depth);
	}
	err = err ? err : depth_first(&f);
	free(f.cand);
	free(f.g);
	free(f.tmp);
	free(f.cur);
	free(f.out);
	free(f.nc);
	free(f.bend);
	free(f.lv);
	free(f.nlv);
	free(f.kids);
	return err;
}
