// SPDX-License-Identifier: GPL-2.0-only
/* annotate.c — where in a function its samples fall (kp_model__annotate,
 * model.h): the self samples of the function per leaf pc, summed from
 * the stacks as the views sum them (time mode, baseline, filter: no
 * count of its own is kept, so the feed costs nothing more), laid over
 * the function's code (a CODE record of the stream, else the resolver's
 * code op) disassembled by the resolver, with a SOURCE row before each
 * run of instructions of one source line. */
#include "model/annot.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/filter-int.h"
#include "model/feed.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int by_pck(const void *a, const void *b)
{
	const struct kp_pck_count *x = a, *y = b;

	return (x->pck > y->pck) - (x->pck < y->pck);
}

/* Sort and merge the entries of one pc key. */
static size_t merge_counts(struct kp_pck_count *v, size_t n)
{
	size_t i, k = 0;

	qsort(v, n, sizeof(*v), by_pck);
	for (i = 0; i < n; i++) {
		if (k && v[k - 1].pck == v[i].pck) {
			v[k - 1].cur += v[i].cur;
			v[k - 1].base += v[i].base;
			v[k - 1].samples += v[i].samples;
		} else {
			v[k++] = v[i];
		}
	}
	return k;
}

int kp_annot__counts(struct kp_model *m, uint32_t fn, struct kp_pck_count **out,
		     size_t *n, double *folded)
{
	struct kp_pck_count *v = NULL;
	size_t nr = 0, cap = 0;
	struct kp_prep p;
	int err = kp_filter__prep(m, &p);

	*out = NULL;
	*n = 0;
	*folded = 0;
	if (err)
		return err;
	for (size_t i = 0; i < m->st.nr_stk; i++) {
		const struct kp_stk *s = kp_stk(m, (uint32_t)i);
		double b = m->bl.has_base ? m->bl.base[i] : 0;
		uint32_t e, fr;

		if ((s->cur == 0 && b == 0) || !kp_filter__stack(m, &p, s))
			continue;
		e = kp_eff(&p, s->leaf);
		if (m->tr.nflags[e] & KP_NODE_OTHER) {
			if (s->lfr != KP_NONE &&
			    m->in.frames[KP_LFR_FRAME(s->lfr)].fn == fn)
				*folded += s->cur;
			continue;
		}
		fr = m->tr.nodes[e].frame;
		if (m->in.frames[fr].fn != fn || m->in.frames[fr].pck == KP_NONE)
			continue;
		if (kp_grow(&v, &cap, nr + 1, sizeof(*v))) {
			err = -ENOMEM;
			break;
		}
		v[nr++] = (struct kp_pck_count){ m->in.frames[fr].pck, s->cur, b,
						 s->samples };
	}
	kp_filter__prep_free(&p);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*n = v ? merge_counts(v, nr) : 0;
	return 0;
}

/* ---- the rows ---- */

struct at_off {
	uint64_t off;
	uint32_t i;	/* into the counts */
};

struct build {
	struct kp_model *m;
	struct kp_annot *a;
	size_t cap;
	const struct kp_pck_count *cnt;
	struct at_off *offs;	/* the counts in module mod, by offset */
	size_t noffs;
	uint8_t *used;		/* per count: shown at an instruction */
	const struct kp_rec_code *c;
	uint32_t li;		/* c->lines[li] holds the current offset */
	const char *file, *inl;
	uint32_t line;
	int have_line;
	int err;
};

static struct kp_annot_row *new_row(struct build *b, enum kp_annot_kind kind)
{
	struct kp_annot *a = b->a;

	if (kp_grow(&a->rows, &b->cap, a->nr_rows + 1, sizeof(*a->rows))) {
		b->err = -ENOMEM;
		return NULL;
	}
	memset(&a->rows[a->nr_rows], 0, sizeof(a->rows[0]));
	a->rows[a->nr_rows].kind = kind;
	return &a->rows[a->nr_rows++];
}

static int by_off(const void *x, const void *y)
{
	const struct at_off *a = x, *b = y;

	return (a->off > b->off) - (a->off < b->off);
}

static const struct at_off *find_off(const struct build *b, uint64_t off)
{
	struct at_off key = { off, 0 };

	return b->noffs ? bsearch(&key, b->offs, b->noffs, sizeof(key), by_off) : NULL;
}

static const char *code_str(struct build *b, uint32_t idx)
{
	const char *s;

	if (!idx || idx > b->c->nr_strs)
		return NULL;
	s = kp_strpool__intern(&b->m->strs, b->c->strs[idx - 1]);
	if (!s)
		b->err = -ENOMEM;
	return s;
}

/* A SOURCE row when the line of code offset o differs from the last. */
static void source_row(struct build *b, uint32_t o)
{
	const struct kp_rec_code *c = b->c;
	const struct kp_code_line *l;
	const char *file = NULL, *inl = NULL;
	uint32_t line = 0;
	struct kp_annot_row *r;

	while (b->li + 1 < c->nr_lines && c->lines[b->li + 1].off <= o)
		b->li++;
	l = c->nr_lines && c->lines[b->li].off <= o ? &c->lines[b->li] : NULL;
	if (l) {
		file = code_str(b, l->file);
		inl = code_str(b, l->inlined);
		line = l->line;
	}
	if (b->have_line && file == b->file && inl == b->inl && line == b->line)
		return;
	b->have_line = 1;
	b->file = file;
	b->inl = inl;
	b->line = line;
	r = new_row(b, KP_ANNOT_SOURCE);
	if (r) {
		r->file = file;
		r->line = line;
		r->inlined = inl;
	}
}

static void count_row(struct build *b, struct kp_annot_row *r, const struct at_off *at)
{
	const struct kp_pck_count *k = &b->cnt[at->i];

	r->self = k->cur;
	r->base_self = k->base;
	r->samples = k->samples;
	b->used[at->i] = 1;
}

static int insn_cb(void *ctx, const struct kp_insn_info *in)
{
	struct build *b = ctx;
	uint64_t o = in->addr - b->c->vaddr;
	struct kp_annot_row *r;
	const struct at_off *at;

	source_row(b, (uint32_t)o);
	r = new_row(b, KP_ANNOT_INSN);
	if (!r)
		return b->err;
	r->off = b->c->start + o;
	r->addr = in->addr;
	r->type = in->type;
	r->target = in->target;
	r->text = kp_strpool__intern(&b->m->strs, in->text ? in->text : "");
	if (!r->text)
		return b->err = -ENOMEM;
	at = find_off(b, r->off);
	if (at)
		count_row(b, r, at);
	return b->err;
}

/* Without code: one ADDR row per sampled offset of the module. */
static void addr_rows(struct build *b)
{
	for (size_t i = 0; i < b->noffs && !b->err; i++) {
		struct kp_annot_row *r = new_row(b, KP_ANNOT_ADDR);

		if (r) {
			r->off = r->addr = b->offs[i].off;
			count_row(b, r, &b->offs[i]);
		}
	}
}

/* A SOURCE row's counts: its line's in the whole function (the rows
 * of its instructions, wherever the line comes back). */
struct grp {
	size_t row;
	double self, base;
	uint64_t samples;
};

static int same_line(const struct kp_annot_row *x, const struct kp_annot_row *y)
{
	return x->file == y->file && x->line == y->line && x->inlined == y->inlined;
}

static int line_counts(struct kp_annot *a)
{
	struct grp *g = NULL;
	size_t ng = 0, cap = 0;

	for (size_t i = 0; i < a->nr_rows; i++) {
		if (a->rows[i].kind != KP_ANNOT_SOURCE)
			continue;
		if (kp_grow(&g, &cap, ng + 1, sizeof(*g))) {
			free(g);
			return -ENOMEM;
		}
		g[ng] = (struct grp){ i, 0, 0, 0 };
		for (size_t j = i + 1; j < a->nr_rows && a->rows[j].kind == KP_ANNOT_INSN; j++) {
			g[ng].self += a->rows[j].self;
			g[ng].base += a->rows[j].base_self;
			g[ng].samples += a->rows[j].samples;
		}
		ng++;
	}
	for (size_t k = 0; k < ng; k++) {
		struct kp_annot_row *s = &a->rows[g[k].row];

		for (size_t l = 0; l < ng; l++) {
			if (l != k && !(s->file && same_line(s, &a->rows[g[l].row])))
				continue;
			s->self += g[l].self;
			s->base_self += g[l].base;
			s->samples += g[l].samples;
		}
	}
	free(g);
	return 0;
}

/* ---- the code ---- */

/* A mapping of module mod holding file offset off, to ask the resolver
 * by: a live process's, else the module as its first mapping (pid 0:
 * the file on the host), widened to hold off. */
void kp_annot__map_for(const struct kp_model *m, uint32_t mod, uint64_t off,
		       struct kp_map_info *mi)
{
	const struct kp_model_module *md = &m->in.mods[mod];

	for (size_t p = 0; p < m->pr.nr_procs; p++) {
		const struct kp_proc *pr = &m->pr.procs[p];

		if (pr->gone || pr->merged)
			continue;
		for (size_t j = 0; j < pr->nr_maps; j++) {
			const struct kp_map_info *x = &pr->maps[j];

			if (pr->map_mod[j] == mod && off >= x->pgoff && off - x->pgoff < x->len) {
				*mi = *x;
				return;
			}
		}
	}
	memset(mi, 0, sizeof(*mi));
	mi->addr = md->map_start;
	mi->len = md->map_limit - md->map_start;
	mi->pgoff = md->map_pgoff;
	if (off < mi->pgoff || off - mi->pgoff >= mi->len) {
		mi->pgoff = 0;		/* the whole file, from its start */
		mi->addr = md->map_start > off ? md->map_start - off : 0;
		mi->len = off + 1 > UINT32_MAX ? off + 1 : UINT32_MAX;
	}
	mi->maj = md->maj;
	mi->min = md->min;
	mi->ino = md->ino;
	mi->build_id_len = md->build_id_len;
	memcpy(mi->build_id, md->build_id, sizeof(mi->build_id));
	mi->path = md->path;
}

/* The code of module mod holding off: a CODE record kept from the
 * stream, else the resolver's (into *tmp). NULL with *why. */
static const struct kp_rec_code *code_of(struct kp_model *m, uint32_t mod,
					 uint64_t off, struct kp_rec_code *tmp,
					 const char **why)
{
	const struct kp_model_module *md = &m->in.mods[mod];
	const struct kp_resolver_ops *ops = m->res.ops;
	const struct kp_rec_code *c = kp_codes__find(m, md, off);
	struct kp_map_info mi;
	int rc;

	if (c)
		return c;
	if (kp_mod_pseudo(mod))
		*why = "the addresses are in no known mapping";
	else if (md->kernel)
		*why = "kernel code is not read";
	else if (!ops || !ops->code || !ops->disasm)
		*why = "no disassembler";
	else {
		/* JIT code: read from its live process's memory only */
		kp_annot__map_for(m, mod, off, &mi);
		*why = "the process has exited: its JIT code is gone";
		if (kp_module_anon(md) && !mi.pid)
			return NULL;
		*why = "the code cannot be read";
		rc = ops->code(m->res.ctx, &mi, off, tmp, why);
		/* JIT code (read from its process's memory) is not kept:
		 * its module is one process's and the code may change */
		if (rc == 1 && kp_module_anon(md))
			return tmp;
		if (rc == 1) {
			/* kept: opened again, refreshed and saved without
			 * the resolver (bounded: KP_CODES_KEPT_MAX) */
			if (m->codes.bytes + tmp->len < KP_CODES_KEPT_MAX &&
			    kp_codes__keep(m, tmp) == 0)
				return &m->codes.recs[m->codes.nr - 1];
			return tmp;
		}
		if (rc < 0)
			*why = "the code cannot be read (out of memory)";
	}
	return NULL;
}

/* The counts of module mod, by offset. */
static int offsets(struct build *b, const struct kp_pck_count *cnt, size_t n,
		   uint32_t mod)
{
	b->offs = malloc((n ? n : 1) * sizeof(*b->offs));
	b->used = calloc(n ? n : 1, 1);
	if (!b->offs || !b->used)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (b->m->in.pcks[cnt[i].pck].module == mod)
			b->offs[b->noffs++] = (struct at_off){
				b->m->in.pcks[cnt[i].pck].off, (uint32_t)i };
	qsort(b->offs, b->noffs, sizeof(*b->offs), by_off);
	return 0;
}

static size_t hottest_count(const struct kp_pck_count *cnt, size_t n)
{
	size_t h = 0;

	for (size_t i = 1; i < n; i++)
		if (cnt[i].cur + cnt[i].base > cnt[h].cur + cnt[h].base)
			h = i;
	return h;
}

static void finish(struct build *b, const struct kp_pck_count *cnt, size_t n)
{
	struct kp_annot *a = b->a;

	for (size_t i = 0; i < n; i++) {
		a->total += cnt[i].cur;
		a->base_total += cnt[i].base;
		a->samples += cnt[i].samples;
		if (!b->used[i])
			a->elsewhere += cnt[i].cur;
	}
	for (size_t i = 0; i < a->nr_rows; i++) {
		const struct kp_annot_row *r = &a->rows[i];

		if (r->kind != KP_ANNOT_SOURCE &&
		    (a->rows[a->hottest].kind == KP_ANNOT_SOURCE ||
		     r->self + r->base_self > a->rows[a->hottest].self +
					      a->rows[a->hottest].base_self))
			a->hottest = i;
	}
}

static void header(struct kp_model *m, struct kp_annot *a, uint32_t fn, uint32_t mod)
{
	const struct kp_model_module *md = &m->in.mods[mod];

	a->name = m->in.fns[fn].name;
	a->fn = fn + 1;
	a->module_id = mod + 1;
	a->module = md->name;
	a->path = md->kernel ? NULL : md->path;
	a->build_id_len = md->build_id_len;
	memcpy(a->build_id, md->build_id, sizeof(a->build_id));
}

static int lay_out(struct build *b, uint32_t mod, uint64_t off)
{
	struct kp_rec_code tmp;
	const char *why = NULL;
	const struct kp_rec_code *c = code_of(b->m, mod, off, &tmp, &why);
	int rc;

	if (c && (!b->m->res.ops || !b->m->res.ops->disasm)) {
		c = NULL;
		why = "no disassembler";
	}
	if (c) {
		b->c = c;
		b->a->start = c->start;
		b->a->vaddr = c->vaddr;
		b->a->len = c->len;
		rc = b->m->res.ops->disasm(b->m->res.ctx, c->code, c->len, c->vaddr,
					   insn_cb, b);
		if (rc < 0 || b->err)
			return b->err ? b->err : rc;
		return line_counts(b->a);
	}
	b->a->why = why;
	addr_rows(b);
	return b->err;
}

/* Annotate function fn at offset off of module mod (at: given), else at
 * its hottest address. */
static int annotate(struct kp_model *m, uint32_t fn, int at, uint32_t mod,
		    uint64_t off, struct kp_annot **out)
{
	struct build b = { .m = m };
	struct kp_pck_count *cnt = NULL;
	size_t n = 0;
	double folded = 0;
	int err;

	*out = NULL;
	err = kp_feed__settle(m);
	if (!err)
		err = kp_annot__counts(m, fn, &cnt, &n, &folded);
	if (err)
		return err;
	b.a = calloc(1, sizeof(*b.a));
	if (!b.a) {
		free(cnt);
		return -ENOMEM;
	}
	if (!at && n) {
		const struct kp_pck *k = &m->in.pcks[cnt[hottest_count(cnt, n)].pck];

		mod = k->module;
		off = k->off;
		at = 1;
	} else if (!at) {
		mod = m->in.fns[fn].module;
	}
	header(m, b.a, fn, mod);
	b.cnt = cnt;
	b.a->elsewhere = folded;
	b.a->total = folded;
	err = offsets(&b, cnt, n, mod);
	if (!err && at)
		err = lay_out(&b, mod, off);
	if (!err)
		finish(&b, cnt, n);
	free(b.offs);
	free(b.used);
	free(cnt);
	if (err) {
		kp_annot__free(b.a);
		return err;
	}
	*out = b.a;
	return 0;
}

int kp_model__annotate(struct kp_model *m, uint64_t fn_id, struct kp_annot **out)
{
	*out = NULL;
	if (!fn_id || fn_id > m->in.nr_fns)
		return -ENOENT;
	return annotate(m, (uint32_t)(fn_id - 1), 0, 0, 0, out);
}

int kp_model__annotate_addr(struct kp_model *m, const struct kp_annot *from,
			    uint64_t addr, struct kp_annot **out)
{
	const struct kp_resolver_ops *ops = m->res.ops;
	struct kp_frame_info fi[8];
	struct kp_map_info mi;
	uint32_t mod, fn;
	uint64_t off;
	int n;

	*out = NULL;
	if (!from || !from->module_id || from->module_id > m->in.nr_mods || !from->len ||
	    addr < from->vaddr - from->start)
		return -ENOENT;
	mod = (uint32_t)(from->module_id - 1);
	off = addr - from->vaddr + from->start;
	if (!ops || !ops->symbolize)
		return -ENOENT;
	kp_annot__map_for(m, mod, off, &mi);
	n = ops->symbolize(m->res.ctx, &mi, mi.addr + (off - mi.pgoff), fi, 8);
	if (n <= 0 || !fi[n - 1].name)
		return n < 0 ? n : -ENOENT;
	fn = kp_intern__fn(m, mod, fi[n - 1].name);
	if (fn == KP_NONE)
		return -ENOMEM;
	return annotate(m, fn, 1, mod, off, out);
}

/* The INSN row at file offset off, by bisection (INSN rows are in
 * address order), or NULL. */
static struct kp_annot_row *row_at(struct kp_annot *a, const size_t *ins, size_t n,
				   uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->rows[ins[mid]].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a->rows[ins[lo]].off == off ? &a->rows[ins[lo]] : NULL;
}

/* Stack s's samples into a's rows: at the INSN row of its leaf pc, else
 * elsewhere. */
static void add_stack(struct kp_model *m, struct kp_annot *a, const size_t *ins,
		      size_t nins, const struct kp_stk *s, double b, uint32_t pck)
{
	const struct kp_pck *k = &m->in.pcks[pck];
	struct kp_annot_row *r = (uint64_t)k->module + 1 == a->module_id ?
				 row_at(a, ins, nins, k->off) : NULL;

	a->total += s->cur;
	a->base_total += b;
	a->samples += s->samples;
	if (!r) {
		a->elsewhere += s->cur;
		return;
	}
	r->self += s->cur;
	r->base_self += b;
	r->samples += s->samples;
}

/* As kp_annot__counts, straight into the rows: no list to sort. */
static int recount_rows(struct kp_model *m, struct kp_annot *a, const size_t *ins,
			size_t nins, uint32_t fn)
{
	struct kp_prep p;
	int err = kp_filter__prep(m, &p);

	if (err)
		return err;
	for (size_t i = 0; i < m->st.nr_stk; i++) {
		const struct kp_stk *s = kp_stk(m, (uint32_t)i);
		double b = m->bl.has_base ? m->bl.base[i] : 0;
		uint32_t e, fr;

		if ((s->cur == 0 && b == 0) || !kp_filter__stack(m, &p, s))
			continue;
		e = kp_eff(&p, s->leaf);
		if (m->tr.nflags[e] & KP_NODE_OTHER) {
			if (s->lfr != KP_NONE && m->in.frames[KP_LFR_FRAME(s->lfr)].fn == fn) {
				a->elsewhere += s->cur;
				a->total += s->cur;
			}
			continue;
		}
		fr = m->tr.nodes[e].frame;
		if (m->in.frames[fr].fn == fn && m->in.frames[fr].pck != KP_NONE)
			add_stack(m, a, ins, nins, s, b, m->in.frames[fr].pck);
	}
	kp_filter__prep_free(&p);
	return 0;
}

int kp_model__annotate_recount(struct kp_model *m, struct kp_annot *a)
{
	size_t nins = 0, *ins;
	int err;

	if (!a->fn || a->fn > m->in.nr_fns || a->why || !a->len)
		return -EINVAL;
	err = kp_feed__settle(m);
	if (err)
		return err;
	ins = malloc((a->nr_rows ? a->nr_rows : 1) * sizeof(*ins));
	if (!ins)
		return -ENOMEM;
	for (size_t i = 0; i < a->nr_rows; i++) {
		a->rows[i].self = a->rows[i].base_self = 0;
		a->rows[i].samples = 0;
		if (a->rows[i].kind == KP_ANNOT_INSN)
			ins[nins++] = i;
	}
	a->total = a->elsewhere = a->base_total = 0;
	a->samples = 0;
	err = recount_rows(m, a, ins, nins, (uint32_t)(a->fn - 1));
	free(ins);
	if (err)
		return err;
	a->hottest = 0;
	for (size_t i = 0; i < a->nr_rows; i++)
		if (a->rows[i].kind == KP_ANNOT_INSN &&
		    (a->rows[a->hottest].kind != KP_ANNOT_INSN ||
		     a->rows[i].self + a->rows[i].base_self >
		     a->rows[a->hottest].self + a->rows[a->hottest].base_self))
			a->hottest = i;
	return line_counts(a);
}

void kp_annot__free(struct kp_annot *a)
{
	if (!a)
		return;
	free(a->rows);
	free(a);
}
