// SPDX-License-Identifier: GPL-2.0-only
/* filter.c — the filter, and its per-node preparation for the views and
 * stack walks.
 *
 * Stack filters (pid, comm, cgroup, idle) look at a stack's header. Frame
 * filters (name, module, focus) hold for a stack when a visible frame on
 * its path matches: computed once per node, parents first. Frames
 * hidden by hide_kernel / hide_user are skipped: a node's "effective" node
 * is its nearest visible ancestor-or-self. A node's preparation never
 * changes while the filter stays, so the views keep it (in m->vc) and
 * only prepare the nodes added since; a new filter starts it again.
 * Under a comm filter, a process's new comm changes its stacks' verdict:
 * the views then sum their counts again (kp_filter__comm_changed).
 */
#include "model/filter-int.h"
#include "model/model-util.h"
#include "model/scratch.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/view-cache.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KP_PM_NAME 1u
#define KP_PM_MODULE 2u
#define KP_PM_FOCUS 4u

static void filt_clear(struct kp_filt *t)
{
	free(t->comm);
	free(t->module);
	free(t->name);
	if (t->have_re)
		regfree(&t->re);
	t->comm = t->module = t->name = NULL;
	t->have_re = 0;
	memset(&t->f, 0, sizeof(t->f));
}

void kp_filter__fini(struct kp_model *m)
{
	filt_clear(&m->filt);
	free(m->filt.fn_match);
	m->filt.fn_match = NULL;
}

void kp_filter__bytes(const struct kp_filt *f, struct kp_mem *a)
{
	kp_mem__put(a, "filter cache", f->cap_fn_match, f->nr_fn_match);
}

static int dup_str(const char *s, char **out)
{
	*out = NULL;
	if (!s || !*s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

int kp_model__set_filter(struct kp_model *m, const struct kp_filter *f)
{
	struct kp_filt n = { .f = *f };
	int err;

	if (f->name && *f->name && f->name_is_regex) {
		if (regcomp(&n.re, f->name, REG_EXTENDED | REG_NOSUB))
			return -EINVAL;
		n.have_re = 1;
	}
	err = dup_str(f->comm, &n.comm);
	err = err ? err : dup_str(f->module, &n.module);
	err = err ? err : dup_str(f->name, &n.name);
	if (err) {
		filt_clear(&n);
		return err;
	}
	n.f.comm = n.comm;
	n.f.module = n.module;
	n.f.name = n.name;
	n.fn_match = m->filt.fn_match;
	n.cap_fn_match = m->filt.cap_fn_match;
	n.nr_fn_match = 0;
	filt_clear(&m->filt);
	m->filt = n;
	kp_vcache__invalidate(m, KP_VC_FILTER);
	return 0;
}

/* Does function fn's name pass the name filter? Cached per function. */
static int fn_matches(struct kp_model *m, uint32_t fn)
{
	struct kp_filt *t = &m->filt;
	const char *name = m->in.fns[fn].name;
	int ok;

	if (fn < t->nr_fn_match && t->fn_match[fn])
		return t->fn_match[fn] == 2;
	if (t->have_re)
		ok = regexec(&t->re, name, 0, NULL, 0) == 0;
	else
		ok = strstr(name, t->name) != NULL;
	if (fn >= t->nr_fn_match) {
		if (kp_grow(&t->fn_match, &t->cap_fn_match, m->in.nr_fns, 1))
			return ok;
		memset(t->fn_match + t->nr_fn_match, 0, m->in.nr_fns - t->nr_fn_match);
		t->nr_fn_match = m->in.nr_fns;
	}
	t->fn_match[fn] = ok ? 2 : 1;
	return ok;
}

int kp_filter__visible(const struct kp_model *m, uint32_t frame)
{
	int k = kp_frame_kernel(m, frame);

	return !(k ? m->filt.f.hide_kernel : m->filt.f.hide_user);
}

static uint8_t frame_bits(struct kp_model *m, uint32_t frame, uint8_t need)
{
	uint32_t fn = m->in.frames[frame].fn;
	uint8_t bits = 0;

	if ((need & KP_PM_NAME) && fn_matches(m, fn))
		bits |= KP_PM_NAME;
	if ((need & KP_PM_MODULE) &&
	    !strcmp(m->in.mods[m->in.fns[fn].module].name, m->filt.f.module))
		bits |= KP_PM_MODULE;
	if ((need & KP_PM_FOCUS) && fn + 1 == m->filt.f.focus_fn)
		bits |= KP_PM_FOCUS;
	return bits;
}

static int prep_need(const struct kp_model *m, struct kp_prep *p)
{
	const struct kp_filter *f = &m->filt.f;

	p->need = (f->name ? KP_PM_NAME : 0) | (f->module ? KP_PM_MODULE : 0) |
		  (f->focus_fn ? KP_PM_FOCUS : 0);
	return f->hide_kernel || f->hide_user;
}

/* Fill p->eff and p->pm (those not NULL) for nodes [from, m->tr.nr_nodes). */
static void prep_nodes(struct kp_model *m, struct kp_prep *p, size_t from)
{
	size_t n;

	for (n = p->eff || p->pm ? from : m->tr.nr_nodes; n < m->tr.nr_nodes; n++) {
		uint32_t par = m->tr.nodes[n].parent, fr = m->tr.nodes[n].frame;
		int vis = 1;

		if (par == KP_NONE) {
			if (p->eff)
				p->eff[n] = (uint32_t)n;
			if (p->pm)
				p->pm[n] = 0;
			continue;
		}
		if (p->eff) {
			if (fr == KP_FRAME_OTHER)
				vis = p->eff[par] == par;
			else
				vis = kp_filter__visible(m, fr);
			p->eff[n] = vis ? (uint32_t)n : p->eff[par];
		}
		if (p->pm)
			p->pm[n] = p->pm[par] | (vis ? frame_bits(m, fr, p->need) : 0);
	}
	p->nr = m->tr.nr_nodes;
}

int kp_filter__prep(struct kp_model *m, struct kp_prep *p)
{
	size_t nr = m->tr.nr_nodes ? m->tr.nr_nodes : 1;
	int hide;

	memset(p, 0, sizeof(*p));
	hide = prep_need(m, p);
	p->nr = m->tr.nr_nodes;
	if (!hide && !p->need)
		return 0;
	if (hide)
		p->eff = kp_scratch(m, KP_SC_EFF, nr * sizeof(*p->eff), 0);
	if (p->need)
		p->pm = kp_scratch(m, KP_SC_PM, nr, 0);
	if ((hide && !p->eff) || (p->need && !p->pm))
		return -ENOMEM;
	prep_nodes(m, p, 0);
	return 0;
}

int kp_filter__prep_kept(struct kp_model *m, struct kp_prep *p)
{
	struct kp_vcache *c = &m->vc;
	size_t nr = m->tr.nr_nodes ? m->tr.nr_nodes : 1;
	int hide;

	memset(p, 0, sizeof(*p));
	hide = prep_need(m, p);
	if ((hide && kp_grow(&c->eff, &c->cap_eff, nr, sizeof(*c->eff))) ||
	    (p->need && kp_grow(&c->pm, &c->cap_pm, nr, sizeof(*c->pm))))
		return -ENOMEM;
	p->eff = hide ? c->eff : NULL;
	p->pm = p->need ? c->pm : NULL;
	if (c->nr_prep > m->tr.nr_nodes)
		c->nr_prep = 0;
	prep_nodes(m, p, c->nr_prep);
	c->nr_prep = m->tr.nr_nodes;
	return 0;
}

/* Process comms are interned: compared by address. */
int kp_filter__comm_changed(const struct kp_model *m)
{
	const struct kp_vcache *c = &m->vc;
	size_t i;

	if (!m->filt.f.comm)
		return 0;
	for (i = 0; i < c->nr_comm && i < m->pr.nr_procs; i++)
		if (c->comm[i] != m->pr.procs[i].comm)
			return 1;
	return 0;
}

int kp_filter__comm_keep(struct kp_model *m)
{
	struct kp_vcache *c = &m->vc;
	size_t i;

	if (kp_grow(&c->comm, &c->cap_comm, m->pr.nr_procs ? m->pr.nr_procs : 1,
		    sizeof(*c->comm)))
		return -ENOMEM;
	for (i = 0; i < m->pr.nr_procs; i++)
		c->comm[i] = m->pr.procs[i].comm;
	c->nr_comm = m->pr.nr_procs;
	return 0;
}

void kp_filter__prep_free(struct kp_prep *p)
{
	memset(p, 0, sizeof(*p));	/* the arrays are the model's scratch */
}

int kp_filter__stack(const struct kp_model *m, const struct kp_prep *p,
		     const struct kp_stk *s)
{
	const struct kp_filter *f = &m->filt.f;
	const struct kp_proc *pr = &m->pr.procs[kp_stk_proc(m, s)];

	if ((s->flags & KP_STK_IDLE) && !f->show_idle)
		return 0;
	if (f->pid && pr->pid != f->pid)
		return 0;
	if (f->comm && strcmp(pr->comm, f->comm))
		return 0;
	if (f->cgroup_id && kp_stk_cgroup(m, s) != f->cgroup_id)
		return 0;
	if (p->need && (p->pm[s->leaf] & p->need) != p->need)
		return 0;
	return 1;
}
