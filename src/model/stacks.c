// SPDX-License-Identifier: GPL-2.0-only
/* stacks.c — whole stacks and every named frame, for the folded, pprof
 * and stream writers (kp_model__foreach_stack / __foreach_symbol).
 */
#include "model/model-util.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/feed.h"
#include "model/filter-int.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void make_ref(const struct kp_model *m, uint32_t f, struct kp_frame_ref *r)
{
	const struct kp_frame *fr = &m->in.frames[f];
	const struct kp_func *fn = &m->in.fns[fr->fn];
	const struct kp_model_module *mod = &m->in.mods[fn->module];

	memset(r, 0, sizeof(*r));
	r->name = fn->name;
	r->module = mod->name;
	r->file = kp_frame_file(m, fr);
	r->line = fr->line;
	r->start_line = fn->start_line;
	r->inlined = fr->inlined;
	r->kernel = mod->kernel;
	r->jit = kp_module_anon(mod);
	if (!kp_mod_pseudo(fn->module) && !mod->kernel) {
		r->path = mod->path;
		r->build_id = mod->build_id_len ? mod->build_id : NULL;
		r->build_id_len = mod->build_id_len;
	}
	if (fr->pck != KP_NONE) {
		const struct kp_pck *k = &m->in.pcks[fr->pck];

		r->addr = k->off;
		if (r->path) {
			r->map_start = mod->map_start;
			r->map_limit = mod->map_limit;
			r->map_pgoff = mod->map_pgoff;
		}
	}
}

/* Frame refs for every frame, made once and extended as frames come. */
static int refs_ready(struct kp_model *m)
{
	size_t i;

	if (kp_grow(&m->in.refs, &m->in.cap_refs, m->in.nr_frames, sizeof(*m->in.refs)))
		return -ENOMEM;
	for (i = m->in.nr_refs; i < m->in.nr_frames; i++)
		make_ref(m, (uint32_t)i, &m->in.refs[i]);
	m->in.nr_refs = m->in.nr_frames;
	return 0;
}

/* Visible frames of node leaf, root first, into *path; after an [other]
 * leaf, the stack's own leaf frame (lfr) where it has one. */
static int stack_path(struct kp_model *m, const struct kp_prep *p, uint32_t leaf,
		      uint32_t lfr, const struct kp_frame_ref ***path, size_t *cap,
		      size_t *depth)
{
	size_t n = 0, i;
	uint32_t x;

	if ((m->tr.nflags[leaf] & KP_NODE_OTHER) && lfr != KP_NONE &&
	    kp_filter__visible(m, KP_LFR_FRAME(lfr))) {
		if (kp_grow(path, cap, 1, sizeof(**path)))
			return -ENOMEM;
		(*path)[n++] = &m->in.refs[KP_LFR_FRAME(lfr)];
	}

	for (x = leaf; m->tr.nodes[x].parent != KP_NONE; x = m->tr.nodes[x].parent) {
		if (kp_eff(p, x) != x)
			continue;
		if (kp_grow(path, cap, n + 1, sizeof(**path)))
			return -ENOMEM;
		(*path)[n++] = &m->in.refs[m->tr.nodes[x].frame];
	}
	for (i = 0; i < n / 2; i++) {
		const struct kp_frame_ref *t = (*path)[i];

		(*path)[i] = (*path)[n - 1 - i];
		(*path)[n - 1 - i] = t;
	}
	*depth = n;
	return 0;
}

int kp_model__foreach_stack(struct kp_model *m,
			    int (*cb)(void *ctx, const struct kp_stack_visit *v),
			    void *ctx)
{
	return kp_model__foreach_stack_if(m, NULL, NULL, cb, ctx);
}

int kp_model__foreach_stack_if(struct kp_model *m,
			       int (*keep)(void *kctx, const struct kp_stack_visit *v),
			       void *kctx,
			       int (*cb)(void *ctx, const struct kp_stack_visit *v),
			       void *ctx)
{
	const struct kp_frame_ref **path = NULL;
	struct kp_prep p;
	size_t i, cap = 0;
	int err = kp_feed__settle(m);

	err = err ? err : refs_ready(m);
	if (err)
		return err;
	err = kp_filter__prep(m, &p);
	if (err)
		return err;
	for (i = 0; i < m->st.nr_stk && !err; i++) {
		const struct kp_stk *s = kp_stk(m, (uint32_t)i);
		struct kp_stack_visit v = { 0 };

		if (s->cur == 0 || !kp_filter__stack(m, &p, s))
			continue;
		v.comm = m->pr.procs[kp_stk_proc(m, s)].comm;
		v.pid = m->pr.procs[kp_stk_proc(m, s)].pid;
		v.tid = kp_stk_tid(m, s);
		v.cgroup_id = kp_stk_cgroup(m, s);
		v.thread = m->pr.threads[s->thr].name ? m->pr.threads[s->thr].name : "";
		v.cgroup = m->pr.cgroups[s->cgroup].name;
		v.exe = m->pr.procs[kp_stk_proc(m, s)].exe ? m->pr.procs[kp_stk_proc(m, s)].exe : "";
		v.count = s->cur;
		v.samples = s->samples;
		v.offcpu = !!(s->flags & KP_STK_OFFCPU);
		v.cpu = s->cpu ? (int)(s->cpu - 1) : -1;
		if (keep && !keep(kctx, &v))
			continue;
		err = stack_path(m, &p, kp_eff(&p, s->leaf), s->lfr, &path, &cap, &v.depth);
		if (err)
			break;
		v.frames = path;
		err = cb(ctx, &v);
	}
	free(path);
	kp_filter__prep_free(&p);
	return err;
}

int kp_model__foreach_symbol(struct kp_model *m,
			     int (*cb)(void *ctx, const char *path,
				       const uint8_t *build_id, uint8_t build_id_len,
				       uint64_t addr, uint64_t size, const char *name,
				       const struct kp_jit_owner *owner),
			     void *ctx)
{
	size_t i;
	int err = kp_feed__settle(m);

	for (i = 0; i < m->in.nr_pcks && !err; i++) {
		const struct kp_pck *k = &m->in.pcks[i];
		const struct kp_model_module *mod = &m->in.mods[k->module];
		uint32_t f = m->in.frames[k->first + k->n - 1].fn;
		const uint8_t *bid = mod->build_id_len ? mod->build_id : NULL;
		struct kp_jit_owner own = { mod->pid, mod->pstart, mod->gen };
		const struct kp_jit_owner *o = kp_module_anon(mod) && own.pid ? &own : NULL;
		uint64_t start;

		if (kp_mod_pseudo(k->module) || !k->n)
			continue;
		if (!m->in.fns[f].unknown)
			err = cb(ctx, mod->path, bid, mod->build_id_len, k->off, 0,
				 m->in.fns[f].name, o);
		else if (kp_intern__fn_start(m, f, &start) && start <= k->off)
			err = cb(ctx, mod->path, bid, mod->build_id_len, start,
				 k->off - start + 1, "", o);
	}
	return err;
}
