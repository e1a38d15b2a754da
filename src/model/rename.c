// SPDX-License-Identifier: GPL-2.0-only
/* rename.c — pc keys named again when the resolver can name them better
 * than when they were first seen (a debug file came for their module:
 * the resolver's names_epoch grew, and the module's with it). Only a key
 * of such a module, with one frame that names no function
 * ("module+0xoffset") or no source line, is asked again, and only its
 * frame changes, in place: its function and line
 * become those of the containing function the resolver names now
 * (inlined frames are not added: the trie's paths stay as they are).
 * JIT code ("[jit:node]+0x...": a runtime had not yet written its map
 * or jitdump entry when the code was first sampled) is asked again the
 * same way when the resolver's jit_epoch grew (a JIT map was read),
 * through a mapping of its process while it lives, when its frame
 * names no function. The views' structure is rebuilt and
 * recursion flags redone, as after a late SYMTAB. A module a stream's
 * SYMTAB names keeps those names.
 */
#include "model/intern.h"
#include "model/jitgen.h"
#include "model/model-util.h"
#include "model/trie.h"
#include "model/view-cache.h"
#include "model/model-int.h"	/* struct kp_model */
#include "model/proc-int.h"	/* struct kp_proc: a JIT module's mappings */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The frames of a key can be asked for again: one frame, no function
 * or no line, of a file mapping's module without a stream's names. */
static int weak(const struct kp_model *m, const struct kp_pck *k)
{
	const struct kp_model_module *mod = &m->in.mods[k->module];
	const struct kp_frame *f = &m->in.frames[k->first];

	if (k->n != 1 || kp_mod_pseudo(k->module) || mod->kernel ||
	    mod->proc != KP_NONE || mod->symtab >= 0 || mod->path[0] != '/')
		return 0;
	return m->in.fns[f->fn].unknown || !f->file;
}

/* The module as its first mapping: what the resolver holds it by. */
static void module_map(const struct kp_model_module *mod, struct kp_map_info *mi)
{
	memset(mi, 0, sizeof(*mi));
	mi->addr = mod->map_start;
	mi->len = mod->map_limit - mod->map_start;
	mi->pgoff = mod->map_pgoff;
	mi->maj = mod->maj;
	mi->min = mod->min;
	mi->ino = mod->ino;
	mi->build_id_len = mod->build_id_len;
	memcpy(mi->build_id, mod->build_id, sizeof(mi->build_id));
	mi->path = mod->path;
}

/* Key k's frame from fi (the resolver's n frames, the containing
 * function last): 1 when it changed, 0 when not, -ENOMEM. */
static int refresh_frame(struct kp_model *m, uint32_t k, const struct kp_frame_info *fi)
{
	struct kp_frame *f;
	uint32_t fn, file = 0, line = 0;

	fn = kp_intern__fn(m, m->in.pcks[k].module, fi->name);
	if (fn == KP_NONE)
		return -ENOMEM;
	kp_intern__fn_start_line(m, fn, fi->start_line);
	if (fi->file) {
		file = kp_strpool__intern_idx(&m->strs, fi->file);
		if (file == KP_NONE)
			return -ENOMEM;
		file++;
		line = fi->line < (1u << 31) ? fi->line : 0;
	}
	f = &m->in.frames[m->in.pcks[k].first];
	if (f->fn == fn && f->file == file && f->line == line)
		return 0;
	f->fn = fn;
	f->file = file;
	f->line = line;
	return 1;
}

/* Ask about key k again, through hold h of its module. */
static int rename_key(struct kp_model *m, uint32_t k, void *h)
{
	const struct kp_resolver_ops *ops = m->res.ops;
	struct kp_frame_info fi[8];
	int n = ops->symbolize_held(m->res.ctx, h, m->in.pcks[k].off, fi, 8);

	if (n <= 0 || !fi[n - 1].name)
		return 0;
	return refresh_frame(m, k, &fi[n - 1]);
}

/* ---- JIT code: asked again through its live process's mapping ---- */

/* A JIT key that names no function. */
static int jit_weak(const struct kp_model *m, const struct kp_pck *k)
{
	return kp_jitgen__key(m, k) && m->in.fns[m->in.frames[k->first].fn].unknown;
}

/* Ask about JIT key k again through the mapping of process p that holds
 * its offset: 1 renamed, 0 not, -ENOMEM. */
static int rename_jit(struct kp_model *m, uint32_t k, const struct kp_proc *p)
{
	struct kp_frame_info fi[8];
	int n = kp_jitgen__ask(m, k, p, fi, 8);

	if (n <= 0 || !fi[n - 1].name)
		return 0;
	return refresh_frame(m, k, &fi[n - 1]);
}

/* Name again the JIT keys that name no function: 1 when one changed. */
static int rename_jits(struct kp_model *m)
{
	uint32_t *own = NULL;
	int renamed = 0, rc = 0;

	for (size_t i = 0; i < m->in.nr_pcks && rc >= 0; i++) {
		uint32_t mod = m->in.pcks[i].module;

		if (!jit_weak(m, &m->in.pcks[i]))
			continue;
		if (!own && !(own = kp_jitgen__owners(m, 1)))
			return -ENOMEM;
		if (own[mod] != KP_NONE &&
		    (rc = rename_jit(m, (uint32_t)i, &m->pr.procs[own[mod]])) > 0)
			renamed = 1;
	}
	free(own);
	return rc < 0 ? rc : renamed;
}

/* ---- file modules: asked again through a hold of the module ---- */

#define KP_HOLD_NONE ((void *)&kp_hold_none)
static const char kp_hold_none;

/* The hold of module mod, if its names got better since epoch: else
 * KP_HOLD_NONE (nothing to ask again). */
static void *hold_better(struct kp_model *m, uint32_t mod, uint64_t since)
{
	const struct kp_resolver_ops *ops = m->res.ops;
	struct kp_map_info mi;
	void *h;

	module_map(&m->in.mods[mod], &mi);
	h = ops->hold(m->res.ctx, &mi);
	if (!h)
		return KP_HOLD_NONE;	/* nothing to name it by */
	if (ops->names_epoch(m->res.ctx, h) > since)
		return h;
	ops->release(m->res.ctx, h);
	return KP_HOLD_NONE;
}

/* Name again the weak keys of the modules that got better since. */
static int rename_all(struct kp_model *m, uint64_t since)
{
	const struct kp_resolver_ops *ops = m->res.ops;
	void **holds = calloc(m->in.nr_mods ? m->in.nr_mods : 1, sizeof(*holds));
	int renamed = 0, rc = 0;

	if (!holds)
		return -ENOMEM;
	for (size_t i = 0; i < m->in.nr_pcks && rc >= 0; i++) {
		uint32_t mod = m->in.pcks[i].module;

		if (holds[mod] == KP_HOLD_NONE || !weak(m, &m->in.pcks[i]))
			continue;	/* a module not better: its keys not read */
		if (!holds[mod])
			holds[mod] = hold_better(m, mod, since);
		if (holds[mod] != KP_HOLD_NONE && (rc = rename_key(m, (uint32_t)i, holds[mod])) > 0)
			renamed = 1;
	}
	for (size_t i = 0; i < m->in.nr_mods; i++)
		if (holds[i] && holds[i] != KP_HOLD_NONE)
			ops->release(m->res.ctx, holds[i]);
	free(holds);
	return rc < 0 ? rc : renamed;
}

/* File modules' keys when names_epoch grew, JIT keys when jit_epoch
 * did: 1 when a name changed. */
static int rename_due(struct kp_model *m)
{
	const struct kp_resolver_ops *ops = m->res.ops;
	uint64_t since = m->in.names_epoch, epoch;
	int rc = 0, jit = 0;

	if (ops->names_epoch && ops->hold && ops->symbolize_held && ops->release &&
	    (epoch = ops->names_epoch(m->res.ctx, NULL)) != since) {
		m->in.names_epoch = epoch;
		rc = rename_all(m, since);
	}
	if (rc >= 0 && ops->jit_epoch && ops->symbolize &&
	    (epoch = ops->jit_epoch(m->res.ctx)) != m->in.jit_epoch) {
		m->in.jit_epoch = epoch;
		jit = rename_jits(m);
	}
	return rc < 0 ? rc : jit < 0 ? jit : rc | jit;
}

int kp_intern__rename(struct kp_model *m)
{
	int rc;

	if (!m->res.ops)
		return 0;
	rc = rename_due(m);
	if (rc > 0) {
		kp_vcache__invalidate(m, KP_VC_NODES);	/* functions changed */
		kp_tree__redup(m);
	}
	return rc;
}
