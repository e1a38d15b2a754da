// SPDX-License-Identifier: GPL-2.0-only
/* view.c — views as snapshots: the entry point, sorting and the flat
 * function table.
 *
 * Every view starts from the counts per trie node and per function that
 * view-cache.c keeps up to date (the filter prepared per node, each
 * passing stack's counts at its effective leaf, totals summed up the
 * trie). The flat view reads its rows off the functions: self from every
 * node of the function, total only from nodes with no ancestor of the
 * same function, so recursion counts each sample once. The tree views are
 * in view-tree.c, the groupings by process, thread, cgroup and module in
 * view-group.c, the flame graph's boxes in view-flame.c.
 */
#include "model/view-int.h"
#include "model/model-util.h"
#include "model/scratch.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/feed.h"
#include "model/filter-int.h"
#include "model/view-cache.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- sorting ---- */

static int name_cmp(const void *a, const void *b, void *ctx)
{
	const struct kp_skey *x = a, *y = b;
	const char *const *names = ctx;
	int c = strcmp(names[x->i], names[y->i]);

	return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

/* The key rows sort on, descending (KP_SORT_DELTA: the size of the change
 * of share between the baseline and now, of self in the flat view and of
 * total elsewhere). */
static double row_key(double self, double total, double bself, double btotal,
		      enum kp_sort sort, int flat, double vtotal, double vbase)
{
	double now, then;

	switch (sort) {
	case KP_SORT_SELF: return self;
	case KP_SORT_TOTAL: return total;
	case KP_SORT_DELTA:
		now = flat ? self : total;
		then = flat ? bself : btotal;
		return kp_fabs((vtotal > 0 ? now / vtotal : 0) - (vbase > 0 ? then / vbase : 0));
	default: return 0;
	}
}

/* Sort keys whose i index names[]: by name, or by their k (descending
 * keys made with kp_desc_key). */
static int sort_keys(struct kp_model *m, struct kp_skey *k, size_t n,
		     enum kp_sort sort, const char **names)
{
	if (sort == KP_SORT_NAME) {
		qsort_r(k, n, sizeof(*k), name_cmp, names);
		return 0;
	}
	return kp_sort_keys(m, k, n);
}

int kp_view__sort_rows(struct kp_model *m, struct kp_row *rows, size_t nr,
		       enum kp_sort sort, double vtotal, double vbase)
{
	struct kp_skey *k;
	const char **names;
	struct kp_row *tmp;
	size_t i;
	int err = -ENOMEM;

	if (nr == 0)	/* rows may be NULL: no memcpy(NULL, ..., 0) */
		return 0;
	k = kp_scratch(m, KP_SC_KEYS, nr * sizeof(*k), 0);
	names = malloc(nr * sizeof(*names));
	tmp = malloc(nr * sizeof(*tmp));
	if (!k || !tmp || !names)
		goto out;
	for (i = 0; i < nr; i++) {
		const struct kp_row *r = &rows[i];

		k[i].k = kp_desc_key(row_key(r->self, r->total, r->base_self,
					     r->base_total, sort, 0, vtotal, vbase));
		k[i].i = (uint32_t)i;
		names[i] = r->name ? r->name : "";
	}
	err = sort_keys(m, k, nr, sort, names);
	if (err)
		goto out;
	for (i = 0; i < nr; i++)
		tmp[i] = rows[k[i].i];
	memcpy(rows, tmp, nr * sizeof(*rows));
out:
	free(names);
	free(tmp);
	return err;
}

/* ---- flat ---- */

static void flat_row(const struct kp_model *m, const struct kp_vfn *f, uint32_t fn,
		     struct kp_row *r)
{
	const struct kp_func *fu = &m->in.fns[fn];

	memset(r, 0, sizeof(*r));
	r->id = r->fn = fn + 1;
	r->self = f->self;
	r->total = f->total;
	r->base_self = f->bself;
	r->base_total = f->btotal;
	r->samples = f->samp;
	r->name = fu->name;
	r->module = fu->module != KP_MOD_OTHER ? m->in.mods[fu->module].name : NULL;
	r->kernel = fu->kernel;
	r->nr_procs = f->nprocs;
	if (r->nr_procs == 1) {
		const struct kp_proc *pr = &m->pr.procs[f->psum];

		r->comm = pr->comm;
		r->pid = pr->pid;
	}
}

/* (k, i) order, as the radix sort leaves it. */
static int skey_cmp(const void *a, const void *b)
{
	const struct kp_skey *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Keep the cap first keys in (k, i) order in a max-heap h of *n. Keys
 * come in i order, so one equal to the heap's last is after it. */
static void heap_push(struct kp_skey *h, size_t *n, size_t cap, struct kp_skey x)
{
	size_t i, c;

	if (*n < cap) {	/* sift up */
		for (i = (*n)++; i > 0 && skey_cmp(&h[(i - 1) / 2], &x) < 0; i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = x;
		return;
	}
	if (!cap || x.k >= h[0].k)
		return;
	for (i = 0; (c = 2 * i + 1) < cap; i = c) {	/* sift down */
		if (c + 1 < cap && skey_cmp(&h[c + 1], &h[c]) > 0)
			c++;
		if (skey_cmp(&h[c], &x) <= 0)
			break;
		h[i] = h[c];
	}
	h[i] = x;
}

static double flat_key(const struct kp_view_opts *o, const struct kp_agg *a,
		       const struct kp_vfn *f)
{
	return row_key(f->self, f->total, f->bself, f->btotal, o->sort, 1, a->vtotal,
		       a->vbase);
}

/* The sorted keys of the functions in the view (*nr_all of them), only
 * the first max_rows when a bound is set: those are kept in a heap, so a
 * view of the top rows of 100k functions sorts a few thousand keys.
 * Returns how many keys are in *out, or -ENOMEM. */
static long flat_keys(struct kp_model *m, const struct kp_view_opts *o,
		      const struct kp_agg *a, struct kp_skey **out, size_t *nr_all)
{
	size_t i, nr = 0, cap = m->in.nr_fns;
	int top = o->max_rows && o->sort != KP_SORT_NAME && o->max_rows < m->in.nr_fns;
	const char **names = NULL;
	struct kp_skey *k;
	int err;

	if (top)
		cap = o->max_rows;
	k = kp_scratch(m, KP_SC_KEYS, (cap + 1) * sizeof(*k), 0);
	if (!k)
		return -ENOMEM;
	*out = k;
	*nr_all = 0;
	for (i = 0; i < m->in.nr_fns; i++) {
		const struct kp_vfn *f = &a->f[i];
		struct kp_skey x;

		if (f->total == 0 && f->btotal == 0)
			continue;
		(*nr_all)++;
		x.k = kp_desc_key(flat_key(o, a, f));
		x.i = (uint32_t)i;
		if (top)
			heap_push(k, &nr, cap, x);
		else
			k[nr++] = x;
	}
	if (top) {
		qsort(k, nr, sizeof(*k), skey_cmp);
		return (long)nr;
	}
	if (o->sort == KP_SORT_NAME) {
		names = malloc((m->in.nr_fns ? m->in.nr_fns : 1) * sizeof(*names));
		if (!names)
			return -ENOMEM;
		for (i = 0; i < m->in.nr_fns; i++)
			names[i] = m->in.fns[i].name;
	}
	err = sort_keys(m, k, nr, o->sort, names);
	free(names);
	return err ? err : (long)nr;
}

/* The flat view, sorted: keys first, then the rows in their order. */
static int view_flat(struct kp_model *m, const struct kp_view_opts *o,
		     const struct kp_agg *a, struct kp_view *v)
{
	struct kp_skey *k;
	long got = flat_keys(m, o, a, &k, &v->nr_all);
	size_t i, nr;

	if (got < 0)
		return (int)got;
	nr = (size_t)got;
	if (o->max_rows && nr > o->max_rows)
		nr = o->max_rows;
	if (kp_grow(&v->rows, &v->cap_rows, nr ? nr : 1, sizeof(*v->rows)))
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		flat_row(m, &a->f[k[i].i], k[i].i, &v->rows[i]);
	v->nr_rows = nr;
	return 0;
}

/* ---- the entry point ---- */

static int build(struct kp_model *m, const struct kp_view_opts *o,
		 struct kp_view *v)
{
	struct kp_prep p;
	struct kp_agg a;
	int err = kp_vcache__update(m, &p, &a);

	if (err)
		return err;
	if (o->kind == KP_VIEW_THREAD || o->kind == KP_VIEW_CGROUP ||
	    o->kind == KP_VIEW_MODULE)
		return kp_view__grouped(m, &p, o->kind, v);
	v->total = a.vtotal;
	v->base_total = a.vbase;
	if (o->kind == KP_VIEW_FLAT)
		return view_flat(m, o, &a, v);
	if (o->kind == KP_VIEW_PROCESS)
		return kp_view__process(m, &a, v);
	if (o->kind == KP_VIEW_FLAME)
		return kp_view__flame(m, o, &p, &a, v);
	return kp_view__tree(m, o, &p, &a, v);
}

int kp_model__view_reuse(struct kp_model *m, const struct kp_view_opts *o,
			 struct kp_view *old, struct kp_view **out)
{
	struct kp_view *v = old ? old : calloc(1, sizeof(*v));
	int err = -EINVAL;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	v->nr_rows = v->nr_all = 0;
	v->total = v->base_total = 0;
	v->zoom_depth = 0;
	if (o && o->kind >= 0 && o->kind < KP_VIEW_KIND_MAX)
		err = kp_feed__settle(m);
	err = err ? err : build(m, o, v);
	if (!err && o->kind != KP_VIEW_TOPDOWN && o->kind != KP_VIEW_BOTTOMUP &&
	    o->kind != KP_VIEW_FLAT && o->kind != KP_VIEW_FLAME)
		err = kp_view__sort_rows(m, v->rows, v->nr_rows, o->sort, v->total,
					 v->base_total);
	if (err) {
		kp_view__free(v);
		return err;
	}
	if (o->kind != KP_VIEW_FLAT)
		v->nr_all = v->nr_rows;
	if (o->max_rows && v->nr_rows > o->max_rows)
		v->nr_rows = o->max_rows;
	*out = v;
	return 0;
}

int kp_model__view(struct kp_model *m, const struct kp_view_opts *o,
		   struct kp_view **out)
{
	return kp_model__view_reuse(m, o, NULL, out);
}

void kp_view__free(struct kp_view *v)
{
	if (!v)
		return;
	free(v->rows);
	free(v);
}
