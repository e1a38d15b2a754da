// SPDX-License-Identifier: GPL-2.0-only
/* symtabs.c — the symtabs a saved stream carries (SYMTAB records): kept
 * sorted, matched to modules by build id or path, and used to name the
 * pc keys of their module, also those named "module+0xoffset" before
 * the symtab came.
 */
#include "model/model-util.h"
#include "model/intern.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int kp_intern__symtab_matches(const struct kp_model_symtab *st,
			      const struct kp_model_module *mod)
{
	if (st->owner.pid)	/* one process's JIT code, of one generation */
		return kp_module_anon(mod) && mod->pid == st->owner.pid &&
		       mod->pstart == st->owner.start_ns && mod->gen == st->owner.gen &&
		       !strcmp(st->path, mod->path);
	if (st->build_id_len && mod->build_id_len)
		return st->build_id_len == mod->build_id_len &&
		       !memcmp(st->build_id, mod->build_id, st->build_id_len);
	if (mod->kernel && !strcmp(mod->name, "[kernel]") &&
	    !strcmp(st->path, "[kernel]"))
		return 1;
	return !strcmp(st->path, mod->path);
}

/* The module's SYMTAB symbol containing off, or for a symbol without a
 * size, the one at exactly off. */
const struct kp_symbol *kp_intern__symtab_sym(const struct kp_model_symtab *st,
					      uint64_t off)
{
	size_t lo = 0, hi = st->nr;
	const struct kp_symbol *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].addr <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &st->syms[lo - 1];
	if (s->addr == off || (s->size && off - s->addr < s->size))
		return s;
	return NULL;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct kp_symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Name frames that only had "module+0xoff" with a SYMTAB that came late. */
static int rename_unknown(struct kp_model *m, uint32_t mod)
{
	const struct kp_model_symtab *st = &m->in.symtabs[m->in.mods[mod].symtab];
	size_t i;
	int renamed = 0;

	for (i = 0; i < m->in.nr_pcks; i++) {
		struct kp_pck *k = &m->in.pcks[i];
		struct kp_frame *f = &m->in.frames[k->first];
		const struct kp_symbol *sym;
		uint32_t fn;

		if (k->module != mod || k->n != 1 || !m->in.fns[f->fn].unknown)
			continue;
		sym = kp_intern__symtab_sym(st, k->off);
		if (!sym || (!*sym->name && m->in.mods[mod].kernel))
			continue;
		fn = *sym->name ? kp_intern__fn(m, mod, sym->name) :
				  kp_intern__start_fn(m, mod, sym->addr);
		if (fn == KP_NONE)
			return -ENOMEM;
		renamed |= m->in.frames[k->first].fn != fn;
		m->in.frames[k->first].fn = fn;
	}
	return renamed;
}

int kp_intern__symtab(struct kp_model *m, const struct kp_rec_symtab *rs)
{
	struct kp_model_symtab st = { .build_id_len = rs->build_id_len,
				      .owner = rs->owner };
	size_t i, nr = rs->syms ? rs->nr_syms : 0;
	int err, renamed = 0;

	st.path = kp_strpool__intern(&m->strs, rs->path ? rs->path : "");
	if (st.build_id_len > KP_BUILD_ID_MAX)
		st.build_id_len = KP_BUILD_ID_MAX;
	st.syms = calloc(nr ? nr : 1, sizeof(*st.syms));
	if (!st.path || !st.syms ||
	    kp_grow(&m->in.symtabs, &m->in.cap_symtabs, m->in.nr_symtabs + 1, sizeof(st)))
		goto out_nomem;
	memcpy(st.build_id, rs->build_id, sizeof(st.build_id));
	for (i = 0; i < nr; i++) {
		st.syms[i] = rs->syms[i];
		st.syms[i].name = kp_strpool__intern(&m->strs,
					rs->syms[i].name ? rs->syms[i].name : "");
		if (!st.syms[i].name)
			goto out_nomem;
	}
	st.nr = nr;
	qsort(st.syms, st.nr, sizeof(*st.syms), sym_cmp);
	m->in.symtabs[m->in.nr_symtabs++] = st;
	for (i = 0; i < m->in.nr_mods; i++) {
		if (!kp_intern__symtab_matches(&st, &m->in.mods[i]))
			continue;
		m->in.mods[i].symtab = (int32_t)(m->in.nr_symtabs - 1);
		err = rename_unknown(m, (uint32_t)i);
		if (err < 0)
			return err;
		renamed |= err;
	}
	return renamed;

out_nomem:
	free(st.syms);
	return -ENOMEM;
}
