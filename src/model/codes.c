// SPDX-License-Identifier: GPL-2.0-only
/* codes.c — CODE records kept for annotate, and the code of the hottest
 * functions for a save (annot.h, model.h). */
#include "model/annot.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/feed.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Bytes a deep copy of c takes, its parts each 8-aligned. */
static size_t copy_size(const struct kp_rec_code *c)
{
	size_t n = 0;

#define A8(x) (((x) + 7) & ~(size_t)7)
	n += A8(strlen(c->path) + 1) + A8(strlen(c->name) + 1) + A8(c->len);
	n += A8(c->nr_strs * sizeof(char *));
	for (uint32_t i = 0; i < c->nr_strs; i++)
		n += A8(strlen(c->strs[i]) + 1);
	n += A8(c->nr_lines * sizeof(struct kp_code_line));
	if (c->str_lines)
		n += A8(c->nr_strs * sizeof(*c->str_lines));
	if (c->eh_frame)
		n += A8(c->eh_len);
	return n;
}

static void *put(char **p, const void *src, size_t len)
{
	void *at = *p;

	memcpy(at, src, len);
	*p += A8(len);
	return at;
}

int kp_codes__keep(struct kp_model *m, const struct kp_rec_code *c)
{
	struct kp_codes *cs = &m->codes;
	size_t need = copy_size(c);
	struct kp_rec_code *r;
	char *mem, *p;
	const char **strs;

	if (kp_grow(&cs->recs, &cs->cap, cs->nr + 1, sizeof(*cs->recs)))
		return -ENOMEM;
	if (cs->nr + 1 > cs->cap)
		return -ENOMEM;
	mem = realloc(cs->mem, cs->cap * sizeof(*cs->mem));
	if (!mem)
		return -ENOMEM;
	cs->mem = (void **)mem;
	p = mem = malloc(need ? need : 1);
	if (!mem)
		return -ENOMEM;
	r = &cs->recs[cs->nr];
	*r = *c;
	r->path = put(&p, c->path, strlen(c->path) + 1);
	r->name = put(&p, c->name, strlen(c->name) + 1);
	r->code = put(&p, c->code, c->len);
	strs = (const char **)(void *)p;
	p += A8(c->nr_strs * sizeof(char *));
	for (uint32_t i = 0; i < c->nr_strs; i++)
		strs[i] = put(&p, c->strs[i], strlen(c->strs[i]) + 1);
	r->strs = strs;
	r->lines = c->nr_lines ? put(&p, c->lines, c->nr_lines * sizeof(*c->lines))
			       : NULL;
	r->str_lines = c->str_lines && c->nr_strs ?
		       put(&p, c->str_lines, c->nr_strs * sizeof(*c->str_lines)) : NULL;
	r->eh_frame = c->eh_frame && c->eh_len ? put(&p, c->eh_frame, c->eh_len) : NULL;
	if (!r->eh_frame)
		r->eh_len = 0;
	cs->mem[cs->nr++] = mem;
	cs->bytes += need;
	return 0;
}

static int same_module(const struct kp_rec_code *c, const struct kp_model_module *mod)
{
	if (c->build_id_len && mod->build_id_len)
		return c->build_id_len == mod->build_id_len &&
		       !memcmp(c->build_id, mod->build_id, c->build_id_len);
	return mod->path && !strcmp(c->path, mod->path);
}

const struct kp_rec_code *kp_codes__find(const struct kp_model *m,
					 const struct kp_model_module *mod,
					 uint64_t off)
{
	for (size_t i = 0; i < m->codes.nr; i++) {
		const struct kp_rec_code *c = &m->codes.recs[i];

		if (off >= c->start && off - c->start < c->len && same_module(c, mod))
			return c;
	}
	return NULL;
}

int kp_codes__frames(const struct kp_model *m, const struct kp_model_module *mod,
		     uint64_t off, const char *name, struct kp_frame_info *fi, int max)
{
	const struct kp_rec_code *c = kp_codes__find(m, mod, off);
	const struct kp_code_line *l = NULL;
	uint64_t o;
	size_t lo = 0, hi;

	if (!c || max < 1)
		return 0;
	o = off - c->start;
	hi = c->nr_lines;
	while (lo < hi) {	/* the last entry at or before o */
		size_t mid = lo + (hi - lo) / 2;

		if (c->lines[mid].off <= o)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || !c->lines[lo - 1].file)
		return 0;
	l = &c->lines[lo - 1];
	memset(fi, 0, sizeof(*fi) * (l->inlined && max >= 2 ? 2 : 1));
	fi[0].file = c->strs[l->file - 1];
	fi[0].line = l->line;
	if (!l->inlined || max < 2) {
		fi[0].name = name;
		fi[0].start_line = c->start_line;
		return 1;
	}
	fi[0].name = c->strs[l->inlined - 1];
	fi[0].inlined = 1;
	fi[0].start_line = c->str_lines ? c->str_lines[l->inlined - 1] : 0;
	fi[1].name = name;
	fi[1].start_line = c->start_line;
	return 2;
}

void kp_codes__fini(struct kp_model *m)
{
	for (size_t i = 0; i < m->codes.nr; i++)
		free(m->codes.mem[i]);
	free(m->codes.mem);
	free(m->codes.recs);
	memset(&m->codes, 0, sizeof(m->codes));
}

void kp_codes__bytes(const struct kp_codes *c, struct kp_mem *a)
{
	kp_mem__put(a, "code records", c->bytes + c->cap * (sizeof(*c->recs) + sizeof(void *)),
		    c->bytes + c->nr * (sizeof(*c->recs) + sizeof(void *)));
}

/* ---- the code of the hottest functions, for a save ---- */

#define KP_CODE_ASKS 4096	/* resolver code lookups per save, at most */

struct span {
	uint32_t mod;
	uint64_t start, len;
};

static int by_samples(const void *a, const void *b)
{
	const struct kp_pck_count *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return (x->pck > y->pck) - (x->pck < y->pck);
}

static int by_pck(const void *a, const void *b)
{
	const struct kp_pck_count *x = a, *y = b;

	return (x->pck > y->pck) - (x->pck < y->pck);
}

/* Samples per leaf pc key of user code in a file, hottest first. */
static int leaf_counts(struct kp_model *m, struct kp_pck_count **out, size_t *n)
{
	struct kp_pck_count *v = NULL;
	size_t nr = 0, cap = 0, k = 0;

	for (size_t i = 0; i < m->st.nr_stk; i++) {
		const struct kp_stk *s = kp_stk(m, (uint32_t)i);
		uint32_t fr, pck;
		const struct kp_model_module *md;

		if (!s->samples || s->leaf == KP_NONE ||
		    (m->tr.nflags[s->leaf] & KP_NODE_OTHER))
			continue;
		fr = m->tr.nodes[s->leaf].frame;
		pck = m->in.frames[fr].pck;
		if (pck == KP_NONE || kp_mod_pseudo(m->in.pcks[pck].module))
			continue;
		md = &m->in.mods[m->in.pcks[pck].module];
		if (md->kernel)
			continue;
		if (kp_grow(&v, &cap, nr + 1, sizeof(*v))) {
			free(v);
			return -ENOMEM;
		}
		v[nr++] = (struct kp_pck_count){ pck, 0, 0, s->samples };
	}
	if (nr) {
		qsort(v, nr, sizeof(*v), by_pck);
		for (size_t i = 0; i < nr; i++) {
			if (k && v[k - 1].pck == v[i].pck)
				v[k - 1].samples += v[i].samples;
			else
				v[k++] = v[i];
		}
		qsort(v, k, sizeof(*v), by_samples);
	}
	*out = v;
	*n = k;
	return 0;
}

static int covered(const struct span *sp, size_t n, uint32_t mod, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		if (sp[i].mod == mod && off >= sp[i].start && off - sp[i].start < sp[i].len)
			return 1;
	return 0;
}

/* The resolver's JIT functions (unwind_codes) after the model's own:
 * those whose address a code of anonymous memory already written has are
 * left out, and max_bytes holds for all. */
struct unwind_codes {
	uint64_t *anon;			/* addresses of "//anon" codes written */
	size_t nr_anon;
	size_t *bytes, max_bytes;
	int (*cb)(void *ctx, const struct kp_rec_code *c);
	void *ctx;
};

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int unwind_code_cb(void *ctx, const struct kp_rec_code *c)
{
	struct unwind_codes *u = ctx;

	if (u->nr_anon && bsearch(&c->vaddr, u->anon, u->nr_anon, sizeof(*u->anon), by_u64))
		return 0;
	if (c->len > u->max_bytes - *u->bytes)
		return 0;
	*u->bytes += c->len;
	return u->cb(u->ctx, c);
}

static int unwind_codes(struct kp_model *m, struct unwind_codes *u)
{
	const struct kp_resolver_ops *ops = m->res.ops;

	if (!ops || !ops->unwind_codes)
		return 0;
	if (u->nr_anon)
		qsort(u->anon, u->nr_anon, sizeof(*u->anon), by_u64);
	return ops->unwind_codes(m->res.ctx, unwind_code_cb, u);
}

int kp_model__foreach_code(struct kp_model *m, size_t max_bytes,
			   int (*cb)(void *ctx, const struct kp_rec_code *c),
			   void *ctx)
{
	const struct kp_resolver_ops *ops = m->res.ops;
	struct kp_pck_count *v = NULL;
	struct span *sp = NULL;
	uint64_t *anon = NULL;
	size_t n = 0, nsp = 0, cap = 0, bytes = 0, asks = 0, nr_anon = 0, cap_anon = 0;
	int rc = kp_feed__settle(m);

	if (!rc)
		rc = leaf_counts(m, &v, &n);
	for (size_t i = 0; i < n && !rc; i++) {
		uint32_t mod = m->in.pcks[v[i].pck].module;
		uint64_t off = m->in.pcks[v[i].pck].off;
		const struct kp_rec_code *c;
		struct kp_rec_code tmp;
		struct kp_map_info mi;
		const char *why;

		if (covered(sp, nsp, mod, off))
			continue;
		c = kp_codes__find(m, &m->in.mods[mod], off);
		if (!c && ops && ops->code && asks++ < KP_CODE_ASKS) {
			kp_annot__map_for(m, mod, off, &mi);
			if (ops->code(m->res.ctx, &mi, off, &tmp, &why) == 1)
				c = &tmp;
		}
		if (!c || kp_grow(&sp, &cap, nsp + 1, sizeof(*sp)))
			continue;
		sp[nsp++] = (struct span){ mod, c->start, c->len };
		if (c->len > max_bytes - bytes)
			continue;	/* a smaller one may still fit */
		bytes += c->len;
		if (!strcmp(c->path, "//anon") &&
		    !kp_grow(&anon, &cap_anon, nr_anon + 1, sizeof(*anon)))
			anon[nr_anon++] = c->vaddr;
		rc = cb(ctx, c);
	}
	if (!rc)
		rc = unwind_codes(m, &(struct unwind_codes){ anon, nr_anon, &bytes, max_bytes,
							     cb, ctx });
	free(anon);
	free(sp);
	free(v);
	return rc;
}
