/* view.c — views as snapshots: per-node aggregation, the flat function
 * table and the groupings by process, thread, cgroup and module.
 *
 * Every view starts the same way: the filter is prepared per trie node,
 * each passing stack adds its counts to its effective leaf node, and one
 * backward pass over the nodes (children after parents) sums totals. The
 * flat view then reads functions off the nodes: self from every node of
 * the function, total only from nodes with no ancestor of the same
 * function, so recursion counts each sample once.
 */
#include "model/model-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void kp_view__agg_free(struct kp_agg *a)
{
	free(a->self);
	free(a->total);
	free(a->bself);
	free(a->btotal);
	free(a->samp);
	free(a->sself);
	memset(a, 0, sizeof(*a));
}

static void agg_stack(const struct kp_model *m, const struct kp_prep *p,
		      struct kp_agg *a, uint32_t i)
{
	const struct kp_stk *s = kp_stk(m, i);
	double b = m->has_base ? m->base[i] : 0;
	uint32_t e;

	if ((s->cur == 0 && b == 0) || !kp_filter__stack(m, p, s))
		return;
	e = p->eff[s->leaf];
	a->self[e] += s->cur;
	a->samp[e] += s->samples;
	a->vtotal += s->cur;
	if (a->bself) {
		a->bself[e] += b;
		a->vbase += b;
	}
}

int kp_view__agg(struct kp_model *m, const struct kp_prep *p, struct kp_agg *a)
{
	size_t i, nr = m->nr_nodes ? m->nr_nodes : 1;

	memset(a, 0, sizeof(*a));
	a->self = calloc(nr, sizeof(double));
	a->total = malloc(nr * sizeof(double));
	a->samp = calloc(nr, sizeof(uint64_t));
	a->sself = malloc(nr * sizeof(uint64_t));
	if (m->has_base) {
		a->bself = calloc(nr, sizeof(double));
		a->btotal = malloc(nr * sizeof(double));
	}
	if (!a->self || !a->total || !a->samp || !a->sself || (m->has_base && (!a->bself || !a->btotal))) {
		kp_view__agg_free(a);
		return -ENOMEM;
	}
	for (i = 0; i < m->nr_stk; i++)
		agg_stack(m, p, a, (uint32_t)i);
	memcpy(a->total, a->self, m->nr_nodes * sizeof(double));
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

struct skey {
	double k;
	uint32_t i;
};

static int skey_cmp(const void *a, const void *b)
{
	const struct skey *x = a, *y = b;

	if (x->k != y->k)
		return x->k > y->k ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int name_cmp(const void *a, const void *b, void *ctx)
{
	const struct skey *x = a, *y = b;
	const struct kp_row *rows = ctx;
	const char *p = rows[x->i].name ? rows[x->i].name : "";
	const char *q = rows[y->i].name ? rows[y->i].name : "";
	int c = strcmp(p, q);

	return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

/* The key rows sort on, descending (KP_SORT_DELTA: the size of the change
 * of share between the baseline and now, of self in the flat view and of
 * total elsewhere). */
static double row_key(const struct kp_row *r, enum kp_sort sort, int flat,
		      double vtotal, double vbase)
{
	double now, then;

	switch (sort) {
	case KP_SORT_SELF: return r->self;
	case KP_SORT_TOTAL: return r->total;
	case KP_SORT_DELTA:
		now = flat ? r->self : r->total;
		then = flat ? r->base_self : r->base_total;
		return kp_fabs((vtotal > 0 ? now / vtotal : 0) - (vbase > 0 ? then / vbase : 0));
	default: return 0;
	}
}

int kp_view__sort_rows(struct kp_row *rows, size_t nr, enum kp_sort sort,
		       double vtotal, double vbase)
{
	struct skey *k = malloc((nr ? nr : 1) * sizeof(*k));
	struct kp_row *tmp = malloc((nr ? nr : 1) * sizeof(*tmp));
	size_t i;

	if (!k || !tmp) {
		free(k);
		free(tmp);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		k[i].k = row_key(&rows[i], sort, rows[i].depth < 0, vtotal, vbase);
		k[i].i = (uint32_t)i;
	}
	if (sort == KP_SORT_NAME)
		qsort_r(k, nr, sizeof(*k), name_cmp, rows);
	else
		qsort(k, nr, sizeof(*k), skey_cmp);
	for (i = 0; i < nr; i++)
		tmp[i] = rows[k[i].i];
	memcpy(rows, tmp, nr * sizeof(*rows));
	free(k);
	free(tmp);
	return 0;
}

/* ---- flat ---- */

struct fagg {
	double *self, *total, *bself, *btotal;
	uint64_t *samp;
	uint32_t *nprocs, *last;
};

static void fagg_free(struct fagg *f)
{
	free(f->self);
	free(f->total);
	free(f->bself);
	free(f->btotal);
	free(f->samp);
	free(f->nprocs);
	free(f->last);
}

/* Count the processes of each function: the first-occurrence nodes,
 * bucketed by process, then one stamp per function and process. */
static int count_procs(const struct kp_model *m, const struct kp_agg *a,
		       const uint8_t *used, struct fagg *f)
{
	uint32_t *start = calloc(m->nr_procs + 1, sizeof(*start));
	uint32_t *fns = malloc((m->nr_nodes ? m->nr_nodes : 1) * sizeof(*fns));
	size_t i, p;

	if (!start || !fns) {
		free(start);
		free(fns);
		return -ENOMEM;
	}
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
	free(start);
	free(fns);
	(void)a;
	return 0;
}

static int flat_fold(struct kp_model *m, const struct kp_prep *p,
		     const struct kp_agg *a, struct fagg *f)
{
	uint8_t *used = calloc(m->nr_nodes ? m->nr_nodes : 1, 1);
	size_t i;
	int err;

	if (!used)
		return -ENOMEM;
	for (i = 0; i < m->nr_nodes; i++) {
		uint32_t fn;

		if (m->nodes[i].parent == KP_NONE || p->eff[i] != i ||
		    (a->total[i] == 0 && (!a->btotal || a->btotal[i] == 0)))
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
	err = count_procs(m, a, used, f);
	free(used);
	return err;
}

static void flat_row(const struct kp_model *m, const struct fagg *f, uint32_t fn,
		     struct kp_row *r)
{
	const struct kp_func *fu = &m->fns[fn];

	memset(r, 0, sizeof(*r));
	r->id = r->fn = fn + 1;
	r->depth = -1;	/* marks a flat row while sorting; reset below */
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

static int view_flat(struct kp_model *m, const struct kp_prep *p,
		     const struct kp_agg *a, struct kp_view *v)
{
	size_t n = m->nr_fns ? m->nr_fns : 1, i, nr = 0;
	struct fagg f = { 0 };
	int err = -ENOMEM;

	f.self = calloc(n, sizeof(double));
	f.total = calloc(n, sizeof(double));
	f.samp = calloc(n, sizeof(uint64_t));
	f.nprocs = calloc(n, sizeof(uint32_t));
	f.last = calloc(n, sizeof(uint32_t));
	if (a->bself) {
		f.bself = calloc(n, sizeof(double));
		f.btotal = calloc(n, sizeof(double));
	}
	if (!f.self || !f.total || !f.samp || !f.nprocs || !f.last ||
	    (a->bself && (!f.bself || !f.btotal)))
		goto out;
	err = flat_fold(m, p, a, &f);
	if (err)
		goto out;
	for (i = 0; i < m->nr_fns; i++)
		nr += f.total[i] != 0 || (f.btotal && f.btotal[i] != 0);
	v->rows = calloc(nr ? nr : 1, sizeof(*v->rows));
	err = -ENOMEM;
	if (!v->rows)
		goto out;
	for (i = 0; i < m->nr_fns; i++)
		if (f.total[i] != 0 || (f.btotal && f.btotal[i] != 0))
			flat_row(m, &f, (uint32_t)i, &v->rows[v->nr_rows++]);
	err = 0;
out:
	fagg_free(&f);
	return err;
}

/* ---- groupings ---- */

static int grow_rows(struct kp_view *v, size_t *cap)
{
	if (kp_grow(&v->rows, cap, v->nr_rows + 1, sizeof(*v->rows)))
		return -ENOMEM;
	memset(&v->rows[v->nr_rows], 0, sizeof(*v->rows));
	return 0;
}

static int view_process(struct kp_model *m, const struct kp_agg *a, struct kp_view *v)
{
	size_t i, cap = 0;

	for (i = 0; i < m->nr_procs; i++) {
		const struct kp_proc *pr = &m->procs[i];
		uint32_t r = pr->root;
		struct kp_row *row;

		if (a->total[r] == 0 && (!a->btotal || a->btotal[r] == 0))
			continue;
		if (grow_rows(v, &cap))
			return -ENOMEM;
		row = &v->rows[v->nr_rows++];
		row->id = kp_hash2(pr->pid, i) | 1;
		row->self = row->total = a->total[r];
		row->base_self = row->base_total = a->btotal ? a->btotal[r] : 0;
		row->samples = a->samp[r];
		row->name = row->comm = pr->comm;
		row->pid = pr->pid;
	}
	return 0;
}

/* Rows keyed by a 64-bit key (thread, cgroup, module), made on first use. */
struct keyed {
	struct kp_htab tab;
	uint64_t *keys;
	size_t cap_keys, cap_rows;
};

static struct kp_row *keyed_row(struct keyed *k, struct kp_view *v, uint64_t key,
				int *created)
{
	uint32_t h = (uint32_t)kp_mix64(key), i = 0;
	uint64_t *found;

	*created = 0;
	KP_HTAB_FIND(&k->tab, h, i, k->keys[i] == key, found);
	if (found)
		return &v->rows[i];
	if (grow_rows(v, &k->cap_rows) ||
	    kp_grow(&k->keys, &k->cap_keys, v->nr_rows + 1, sizeof(*k->keys)) ||
	    kp_htab__insert(&k->tab, h, (uint32_t)v->nr_rows))
		return NULL;
	k->keys[v->nr_rows] = key;
	*created = 1;
	return &v->rows[v->nr_rows++];
}

static void add_counts(struct kp_row *r, const struct kp_stk *s, double b, int self)
{
	r->total += s->cur;
	r->base_total += b;
	r->samples += s->samples;
	if (self) {
		r->self += s->cur;
		r->base_self += b;
	}
}

static int group_stack(struct kp_model *m, enum kp_view_kind kind, struct keyed *k,
		       struct kp_view *v, uint32_t i)
{
	const struct kp_stk *s = kp_stk(m, i);
	const struct kp_proc *pr = &m->procs[s->proc];
	double b = m->has_base ? m->base[i] : 0;
	uint64_t key = kind == KP_VIEW_THREAD ? (uint64_t)s->proc << 32 | s->tid : s->cgroup;
	int created;
	struct kp_row *r = keyed_row(k, v, key, &created);

	if (!r)
		return -ENOMEM;
	if (created && kind == KP_VIEW_THREAD) {
		uint32_t t = kp_proc__thread(m, s->proc, s->tid);

		r->id = kp_hash2(kp_hash2(pr->pid, s->proc), s->tid) | 1;
		r->name = t != KP_NONE ? m->threads[t].name : pr->comm;
		r->comm = pr->comm;
		r->pid = pr->pid;
		r->tid = s->tid;
	} else if (created) {
		r->id = s->cgroup;
		r->name = kp_proc__cgroup_name(m, s->cgroup);
		if (!r->name)
			return -ENOMEM;
	}
	add_counts(r, s, b, 1);
	return 0;
}

/* Modules: total once per stack per module, self for the leaf's module. */
static int module_stack(struct kp_model *m, const struct kp_prep *p, struct keyed *k,
			struct kp_view *v, uint32_t i, uint32_t *stamp)
{
	const struct kp_stk *s = kp_stk(m, i);
	double b = m->has_base ? m->base[i] : 0;
	uint32_t n, leaf = p->eff[s->leaf];
	int created;

	for (n = leaf; m->nodes[n].parent != KP_NONE; n = m->nodes[n].parent) {
		uint32_t mod = m->fns[kp_node_fn(m, n)].module;
		struct kp_row *r;

		if (p->eff[n] != n || stamp[mod] == i + 1)
			continue;
		stamp[mod] = i + 1;
		r = keyed_row(k, v, mod, &created);
		if (!r)
			return -ENOMEM;
		if (created) {
			r->id = mod + 1;
			r->name = r->module = m->mods[mod].name;
			r->kernel = m->mods[mod].kernel;
		}
		add_counts(r, s, b, n == leaf);
	}
	return 0;
}

static int view_grouped(struct kp_model *m, const struct kp_prep *p,
			enum kp_view_kind kind, struct kp_view *v)
{
	struct keyed k;
	uint32_t *stamp = NULL;
	size_t i;
	int err = 0;

	memset(&k, 0, sizeof(k));
	if (kind == KP_VIEW_MODULE) {
		stamp = calloc(m->nr_mods, sizeof(*stamp));
		if (!stamp)
			return -ENOMEM;
	}
	for (i = 0; i < m->nr_stk && !err; i++) {
		const struct kp_stk *s = kp_stk(m, (uint32_t)i);
		double b = m->has_base ? m->base[i] : 0;

		if ((s->cur == 0 && b == 0) || !kp_filter__stack(m, p, s))
			continue;
		v->total += s->cur;
		v->base_total += b;
		if (kind == KP_VIEW_MODULE)
			err = module_stack(m, p, &k, v, (uint32_t)i, stamp);
		else
			err = group_stack(m, kind, &k, v, (uint32_t)i);
	}
	free(stamp);
	free(k.keys);
	kp_htab__fini(&k.tab);
	return err;
}

/* ---- the entry point ---- */

static int build(struct kp_model *m, const struct kp_view_opts *o,
		 const struct kp_prep *p, struct kp_view *v)
{
	struct kp_agg a;
	int err;

	if (o->kind == KP_VIEW_THREAD || o->kind == KP_VIEW_CGROUP ||
	    o->kind == KP_VIEW_MODULE)
		return view_grouped(m, p, o->kind, v);
	err = kp_view__agg(m, p, &a);
	if (err)
		return err;
	v->total = a.vtotal;
	v->base_total = a.vbase;
	if (o->kind == KP_VIEW_FLAT)
		err = view_flat(m, p, &a, v);
	else if (o->kind == KP_VIEW_PROCESS)
		err = view_process(m, &a, v);
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
	size_t i;
	int err;

	*out = NULL;
	if (!v)
		return -ENOMEM;
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
	if (!err && o->kind != KP_VIEW_TOPDOWN && o->kind != KP_VIEW_BOTTOMUP)
		err = kp_view__sort_rows(v->rows, v->nr_rows, o->sort, v->total,
					 v->base_total);
	if (err) {
		kp_view__free(v);
		return err;
	}
	for (i = 0; i < v->nr_rows; i++)
		if (v->rows[i].depth < 0)
			v->rows[i].depth = 0;
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
