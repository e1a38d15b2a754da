// SPDX-License-Identifier: GPL-2.0-only
/* jitgen.c — generations of a process's JIT code (see jitgen.h).
 *
 * A JIT key (one frame of a process's anonymous module) is named once,
 * when first seen, and every later sample at its address finds the key
 * and its name: code that a runtime put where other code was would carry
 * the old name for ever. kp_model__jit_check has the resolver look again
 * at the JIT maps that are due; when one was read (jit_epoch grew), each
 * named JIT key of a live process's current generation is asked again,
 * and a process one of whose keys the resolver names otherwise now is
 * given the next generation: its anonymous mappings get new modules
 * (kp_intern__module keys them by generation), so the samples from then
 * on make new keys, named by the map as it is now; the keys before keep
 * their names. A save carries the record of each new generation
 * (JITGEN) and each generation's SYMTAB, so that a replay splits the
 * samples where the live run did.
 */
#include "model/jitgen.h"
#include "model/feed.h"
#include "model/intern.h"
#include "model/model-int.h"
#include "model/pending.h"
#include "model/proc-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* own[mod] for the modules of live processes' current mappings. */
static void current_owners(const struct kp_model *m, uint32_t *own)
{
	for (size_t i = 0; i < m->pr.nr_procs; i++) {
		const struct kp_proc *p = &m->pr.procs[i];

		if (p->gone || p->merged)
			continue;
		for (size_t j = 0; j < p->nr_maps; j++)
			if (m->in.mods[p->map_mod[j]].proc != KP_NONE)
				own[p->map_mod[j]] = (uint32_t)i;
	}
}

/* own[mod] for every private module of a live process, by its serial. */
static int all_owners(const struct kp_model *m, uint32_t *own)
{
	size_t ns = m->pr.next_serial ? m->pr.next_serial : 1;
	uint32_t *by = malloc(ns * sizeof(*by));

	if (!by)
		return -ENOMEM;
	memset(by, 0xff, ns * sizeof(*by));
	for (size_t i = 0; i < m->pr.nr_procs; i++) {
		const struct kp_proc *p = &m->pr.procs[i];

		if (!p->gone && !p->merged && p->serial < ns)
			by[p->serial] = (uint32_t)i;
	}
	for (size_t k = 0; k < m->in.nr_mods; k++)
		if (m->in.mods[k].proc < ns)
			own[k] = by[m->in.mods[k].proc];
	free(by);
	return 0;
}

uint32_t *kp_jitgen__owners(const struct kp_model *m, int all_gens)
{
	size_t n = m->in.nr_mods ? m->in.nr_mods : 1;
	uint32_t *own = malloc(n * sizeof(*own));

	if (!own)
		return NULL;
	memset(own, 0xff, n * sizeof(*own));
	if (!all_gens)
		current_owners(m, own);
	else if (all_owners(m, own)) {
		free(own);
		return NULL;
	}
	return own;
}

/* Does mapping j of p hold JIT key k's code: its module's mapping, or
 * an anonymous one of the same process (another generation's module)? */
static int holds(const struct kp_model *m, const struct kp_proc *p, size_t j,
		 const struct kp_pck *key)
{
	const struct kp_model_module *mm = &m->in.mods[p->map_mod[j]];
	const struct kp_map_info *mi = &p->maps[j];

	if (p->map_mod[j] != key->module &&
	    (!kp_module_anon(mm) || mm->proc != m->in.mods[key->module].proc))
		return 0;
	return key->off >= mi->pgoff && key->off - mi->pgoff < mi->len;
}

int kp_jitgen__ask(struct kp_model *m, uint32_t k, const struct kp_proc *p,
		   struct kp_frame_info *fi, int max)
{
	const struct kp_pck *key = &m->in.pcks[k];

	for (size_t j = 0; j < p->nr_maps; j++) {
		const struct kp_map_info *mi = &p->maps[j];
		int n;

		if (!holds(m, p, j, key))
			continue;
		n = m->res.ops->symbolize(m->res.ctx, mi, mi->addr + (key->off - mi->pgoff),
					  fi, max);
		return n > 0 ? n : 0;
	}
	return 0;
}

int kp_jitgen__key(const struct kp_model *m, const struct kp_pck *k)
{
	const struct kp_model_module *mod = &m->in.mods[k->module];

	return k->n == 1 && !kp_mod_pseudo(k->module) && mod->symtab < 0 &&
	       kp_module_anon(mod);
}

/* A JIT key the resolver named. */
static int jit_named(const struct kp_model *m, const struct kp_pck *k)
{
	return kp_jitgen__key(m, k) && !m->in.fns[m->in.frames[k->first].fn].unknown;
}

/* 1 when key k is named otherwise by the resolver now. */
static int renamed_now(struct kp_model *m, uint32_t k, const struct kp_proc *p)
{
	const struct kp_pck *key = &m->in.pcks[k];
	struct kp_frame_info fi[8];
	int n = kp_jitgen__ask(m, k, p, fi, 8);

	return n > 0 && fi[n - 1].name &&
	       strcmp(fi[n - 1].name, m->in.fns[m->in.frames[key->first].fn].name);
}

static int listed(const struct kp_rec_jitgen *out, size_t n, const struct kp_proc *p)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].owner.pid == p->pid && out[i].owner.start_ns == p->start_ns)
			return 1;
	return 0;
}

/* The processes whose JIT code was replaced, into out[0..max). */
static int find_reused(struct kp_model *m, const uint32_t *own,
		       struct kp_rec_jitgen *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < m->in.nr_pcks && n < max; i++) {
		const struct kp_pck *k = &m->in.pcks[i];
		const struct kp_proc *p;

		if (!jit_named(m, k) || own[k->module] == KP_NONE)
			continue;
		p = &m->pr.procs[own[k->module]];
		if (listed(out, n, p) || !renamed_now(m, (uint32_t)i, p))
			continue;
		out[n++] = (struct kp_rec_jitgen){ .time_ns = m->sum.last_ns,
			.owner = { p->pid, p->start_ns, p->jit_gen + 1 } };
	}
	return (int)n;
}

/* A process's JIT map is about to be read again: its waiting stacks are
 * named with the map as it was (jit_poll's before). */
static void name_before(void *ctx, uint32_t pid, uint64_t start)
{
	struct kp_model *m = ctx;
	uint32_t idx;

	if (kp_feed__flush(m))	/* the batch's samples wait with the rest */
		return;
	idx = kp_proc__find(m, pid, start);
	if (idx != KP_NONE)
		kp_pend__name_user(m, idx);
}

int kp_model__jit_check(struct kp_model *m, struct kp_rec_jitgen *out, size_t max)
{
	const struct kp_resolver_ops *ops = m->res.ops;
	uint64_t epoch;
	uint32_t *own;
	int n;

	if (!ops || !ops->jit_epoch || !ops->symbolize || !max)
		return 0;
	if (ops->jit_poll)
		ops->jit_poll(m->res.ctx, name_before, m);
	epoch = ops->jit_epoch(m->res.ctx);
	if (epoch == m->in.jit_gen_epoch)
		return 0;
	if ((n = kp_feed__flush(m)))	/* the batch's samples get their keys */
		return n;
	if (!(own = kp_jitgen__owners(m, 0)))	/* old generations keep their names */
		return -ENOMEM;
	n = find_reused(m, own, out, max);
	free(own);
	if ((size_t)n < max)	/* else look again: more may wait */
		m->in.jit_gen_epoch = epoch;
	return n;
}

int kp_jitgen__apply(struct kp_model *m, uint32_t proc, uint32_t gen)
{
	struct kp_proc *p;

	kp_pend__name_user(m, proc);	/* named with the generation they had */
	p = &m->pr.procs[proc];
	p->jit_gen = gen;
	for (size_t j = 0; j < p->nr_maps; j++) {
		uint32_t mod;

		if (!kp_module_anon(&m->in.mods[p->map_mod[j]]))
			continue;
		mod = kp_intern__module(m, &p->maps[j], proc);
		if (mod == KP_NONE)
			return -ENOMEM;
		m->in.mods[mod].first = m->in.mods[p->map_mod[j]].first;
		p->map_mod[j] = mod;
	}
	return 0;
}
