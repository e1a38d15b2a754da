/* view.c — views as snapshots: per-node aggregation, the flat function
 * table and the groupings by process, thread, cgroup and module.
 *
 * Every view starts the same way: the filter is prepared per trie node,
 * each passing stack adds its counts to its effective leaf node, and one
 * backward pass over the nodes (children after parents) sums totals. The
 * flat view then reads functions off the nodes: self from every node of
 * the function, total only from nodes with no ancestor of the same
 * function, so recursion counts each sample once. The groupings by
 * process, thread, cgroup and module are in view-group.c.
 */
#include "model/model-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void kp_view__agg_free(struct kp_agg *a)
{
	memset(a, 0, sizeof(*a));	/* the arrays are the model's scratch */
}

static void agg_stack(const struct kp_model *m, const struct kp_prep *p,
		      struct kp_agg *a, uint32_t i)
{
	const struct kp_stk *s = kp_stk(m, i);
	double b = m->has_base ? m->base[i] : 0;
	uint32_t e;

	if ((s->cur == 0 && b == 0) || !kp_filter__stack(m, p, s))
		return;
	e = kp_eff(p, s->leaf);
	a->self[e] += s->cur;
	a->samp[e] += s->samples;
	a->vtotal += s->cur;
	if (a->bself) {
		a->bself[e] += b;
		a->vbase += b;
	}
}

int kp_view__agg(struct kp_model *m, const struct kp_prep *p, struct kp_agg *a,
		 int want_sself)
{
	size_t i, nr = m->nr_nodes ? m->nr_nodes : 1;

	memset(a, 0, sizeof(*a));
	a->self = kp_scratch(m, KP_SC_SELF, nr * sizeof(double), 1);
	a->total = kp_scratch(m, KP_SC_TOTAL, nr * sizeof(double), 0);
	a->samp = kp_scratch(m, KP_SC_SAMP, nr * sizeof(uint64_t), 1);
	if (want_sself)
		a->sself = kp_scratch(m, KP_SC_SSELF, nr * sizeof(uint64_t), 0);
	if (m->has_base) {
		a->bself = kp_scratch(m, KP_SC_BSELF, nr * sizeof(double), 1);
		a->btotal = kp_scratch(m, KP_SC_BTOTAL, nr * sizeof(double), 0);
	}
	if (!a->self || !a->total || !a->samp || (want_sself && !a->sself) ||
	    (m->has_base && (!a->bself || !a->btotal)))
		return -ENOMEM;
	for (i = 0; i < m->nr_stk; i++)
		agg_stack(m, p, a, (uint32_t)i);
	memcpy(a->total, a->self, m->nr_nodes * sizeof(double));
	if (a->sself)
		memcpy(a->sself, a->samp, m->nr_nodes * sizeof(uint64_t));
	if (a->bself)
		memcpy(a->btotal, a->bself, m->nr_nodes * sizeof(double));
	for (i = m->nr_nodes; i-- > 0;) {
		uint32_t par = m->nodes[i].parent;

		if (par == KP_NONE)
			continue;
		a->total[par] += a->total[i];
		a->samp[par] += a->samp[i];
		if (a->btotal)
			a->btotal[par] += a->btotal[i];
	}
	return 0;
}

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
	struct kp_skey *k = kp_scratch(m, KP_SC_KEYS, (nr ? nr : 1) * sizeof(*k), 0);
	const char **names = malloc((nr ? nr : 1) * sizeof(*names));
	struct kp_row *tmp = malloc((nr ? nr : 1) * sizeof(*tmp));
	size_t i;
	int err = -ENOMEM;

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

struct fagg {
	double *self, *total, *bself, *btotal;
	uint64_t *samp;
	uint32_t *nprocs, *last;
};

/* Count the processes of each function: the first-occurrence nodes,
 * bucketed by process, then one stamp per function and process. */
static int count_procs(struct kp_model *m, const uint8_t *used, struct fagg *f)
{
	uint32_t *start = kp_scratch(m, KP_SC_START, (m->nr_procs + 1) * sizeof(*start), 1);
	uint32_t *fns = kp_scratch(m, KP_SC_FNS, (m->nr_nodes ? m->nr_nodes : 1) *
				   sizeof(*fns), 0);
	size_t i, p;

	if (!start || !fns)
		return -ENOMEM;
	for (i = 0; i < m->nr_nodes; i++)
		if (used[i])
			start[m->nodes[i].proc + 1]++;
	for (p = 0; p < m->nr_procs; p++)
		start[p + 1] += start[p];
	for (i = 0; i < m->nr_nodes; i++)
		if (used[i])
			fns[start[m->nodes[i].proc]++] = kp_node_fn(m, (uint32_t)i);
	/* start[p] is now the end of process p's bucket */
	for (p = 0, i = 0; p < m->nr_procs; p++) {
		for (; i < start[p]; i++) {
			if (f->last[fns[i]] == p + 1)
				continue;
			f->last[fns[i]] = (uint32_t)p + 1;
			f->nprocs[fns[i]]++;
		}
	}
	return 0;
}

static int flat_fold(struct kp_model *m, const struct kp_prep *p,
		     const struct kp_agg *a, struct fagg *f)
{
	uint8_t *used = kp_scratch(m, KP_SC_USED, m->nr_nodes ? m->nr_nodes : 1, 1);
	size_t i;

	if (!used)
		return -ENOMEM;
	for (i = 0; i < m->nr_nodes; i++) {
		uint32_t fn;

		if (a->total[i] == 0 && (!a->btotal || a->btotal[i] == 0))
			continue;
		if (m->nodes[i].parent == KP_NONE || kp_eff(p, i) != i)
			continue;
		fn = kp_node_fn(m, (uint32_t)i);
		f->self[fn] += a->self[i];
		if (a->bself)
			f->bself[fn] += a->bself[i];
		if (m->nflags[i] & KP_NODE_DUP)
			continue;
		used[i] = 1;
		f->total[fn] += a->total[i];
		f->samp[fn] += a->samp[i];
		if (a->btotal)
			f->btotal[fn] += a->btotal[i];
	}
	return count_procs(m, used, f);
}

static void flat_row(const struct kp_model *m, const struct fagg *f, uint32_t fn,
		     struct kp_row *r)
{
	const struct kp_func *fu = &m->fns[fn];

	memset(r, 0, sizeof(*r));
	r->id = r->fn = fn + 1;
	r->self = f->self[fn];
	r->total = f->total[fn];
	r->base_self = f->bself ? f->bself[fn] : 0;
	r->base_total = f->btotal ? f->btotal[fn] : 0;
	r->samples = f->samp[fn];
	r->name = fu->name;
	r->module = fu->module != KP_MOD_OTHER ? m->mods[fu->module].name : NULL;
	r->kernel = fu->kernel;
	r->nr_procs = f->nprocs[fn];
	if (r->nr_procs == 1) {
		const struct kp_proc *pr = &m->procs[f->last[fn] - 1];

		r->comm = pr->comm;
		r->pid = pr->pid;
	}
}

static int fagg_init(struct kp_model *m, struct fagg *f, int base)
{
	size_t n = m->nr_fns ? m->nr_fns : 1;

	memset(f, 0, sizeof(*f));
	f->self = kp_scratch(m, KP_SC_FSELF, n * sizeof(double), 1);
	f->total = kp_scratch(m, KP_SC_FTOTAL, n * sizeof(double), 1);
	f->samp = kp_scratch(m, KP_SC_FSAMP, n * sizeof(uint64_t), 1);
	f->nprocs = kp_scratch(m, KP_SC_FPROCS, n * sizeof(uint32_t), 1);
	f->last = kp_scratch(m, KP_SC_FLAST, n * sizeof(uint32_t), 1);
	if (base) {
		f->bself = kp_scratch(m, KP_SC_FBSELF, n * sizeof(double), 1);
		f->btotal = kp_scratch(m, KP_SC_FBTOTAL, n * sizeof(double), 1);
	}
	if (!f->self || !f->total || !f->samp || !f->nprocs || !f->last ||
	    (base && (!f->bself || !f->btotal)))
		return -ENOMEM;
	return 0;
}

/* The flat view, sorted: keys first, then the rows in their order. */
static int view_flat(struct kp_model *m, const struct kp_view_opts *o,
		     const struct kp_prep *p, const struct kp_agg *a,
		     struct kp_view *v)
{
	size_t i, nr = 0;
	struct kp_skey *k;
	struct fagg f;
	const char **names = NULL;
	int err = fagg_init(m, &f, a->bself != NULL);

	err = err ? err : flat_fold(m, p, a, &f);
	k = err ? NULL : kp_scratch(m, KP_SC_KEYS, (m->nr_fns + 1) * sizeof(*k), 0);
	if (!k)
		return err ? err : -ENOMEM;
	for (i = 0; i < m->nr_fns; i++) {
		double bs = f.bself ? f.bself[i] : 0, bt = f.btotal ? f.btotal[i] : 0;

		if (f.total[i] == 0 && bt == 0)
			continue;
		k[nr].k = kp_desc_key(row_key(f.self[i], f.total[i], bs, bt, o->sort, 1,
					      a->vtotal, a->vbase));
		k[nr++].i = (uint32_t)i;
	}
	if (o->sort == KP_SORT_NAME) {
		names = malloc((m->nr_fns ? m->nr_fns : 1) * sizeof(*names));
		if (!names)
			return -ENOMEM;
		for (i = 0; i < m->nr_fns; i++)
			names[i] = m->fns[i].name;
	}
	err = sort_keys(m, k, nr, o->sort, names);
	free(names);
	if (o->max_rows && nr > o->max_rows)
		nr = o->max_rows;
	v->rows = err ? NULL : malloc((nr ? nr : 1) * sizeof(*v->rows));
	if (!v->rows)
		return err ? err : -ENOMEM;
	for (i = 0; i < nr; i++)
		flat_row(m, &f, k[i].i, &v->rows[i]);
	v->nr_rows = nr;
	return 0;
}

/* ---- the entry point ---- */

static int build(struct kp_model *m, const struct kp_view_opts *o,
		 const struct kp_prep *p, struct kp_view *v)
{
	struct kp_agg a;
	int err;

	if (o->kind == KP_VIEW_THREAD || o->kind == KP_VIEW_CGROUP ||
	    o->kind == KP_VIEW_MODULE)
		return kp_view__grouped(m, p, o->kind, v);
	err = kp_view__agg(m, p, &a, o->kind == KP_VIEW_BOTTOMUP);
	if (err)
		return err;
	v->total = a.vtotal;
	v->base_total = a.vbase;
	if (o->kind == KP_VIEW_FLAT)
		err = view_flat(m, o, p, &a, v);
	else if (o->kind == KP_VIEW_PROCESS)
		err = kp_view__process(m, &a, v);
	else
		err = kp_view__tree(m, o, p, &a, v);
	kp_view__agg_free(&a);
	return err;
}

int kp_model__view(struct kp_model *m, const struct kp_view_opts *o,
		   struct kp_view **out)
{
	struct kp_view *v = calloc(1, sizeof(*v));
	struct kp_prep p;
	int err;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	if (!o) {
		free(v);
		return -EINVAL;
	}
	err = kp_feed__flush(m);
	if (err) {
		free(v);
		return err;
	}
	if (o->kind < 0 || o->kind >= KP_VIEW_KIND_MAX) {
		free(v);
		return -EINVAL;
	}
	err = kp_filter__prep(m, &p);
	if (err) {
		free(v);
		return err;
	}
	err = build(m, o, &p, v);
	kp_filter__prep_free(&p);
	if (!err && o->kind != KP_VIEW_TOPDOWN && o->kind != KP_VIEW_BOTTOMUP &&
	    o->kind != KP_VIEW_FLAT)
		err = kp_view__sort_rows(m, v->rows, v->nr_rows, o->sort, v->total,
					 v->base_total);
	if (err) {
		kp_view__free(v);
		return err;
	}
	if (o->max_rows && v->nr_rows > o->max_rows)
		v->nr_rows = o->max_rows;
	*out = v;
	return 0;
}

void kp_view__free(struct kp_view *v)
{
	if (!v)
		return;
	free(v->rows);
	free(v);
}
