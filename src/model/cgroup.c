// SPDX-License-Identifier: GPL-2.0-only
/* cgroup.c — the cgroups of the stacks, interned by id as samples come,
 * and named by CGROUP records (kp_proc__feed passes them here).
 */
#include "model/model-util.h"
#include "model/proc-int.h"
#include "model/stk.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <inttypes.h>

static uint32_t cgroup_find(const struct kp_model *m, uint64_t id, uint32_t *hash)
{
	uint32_t h = (uint32_t)kp_mix64(id), v = 0;
	uint64_t *found;

	*hash = h;
	KP_HTAB_FIND(&m->pr.cg_tab, h, v, m->pr.cgroups[v].id == id, found);
	return found ? v : KP_NONE;
}

/* Cgroups are interned as samples and CGROUP records name them; NULL
 * name: none yet. */
static uint32_t cgroup_add(struct kp_model *m, uint64_t id, uint32_t h)
{
	uint32_t idx = (uint32_t)m->pr.nr_cgroups;

	if (idx >= KP_CGROUP_MAX ||
	    kp_grow(&m->pr.cgroups, &m->pr.cap_cgroups, m->pr.nr_cgroups + 1,
		    sizeof(*m->pr.cgroups)) ||
	    kp_htab__insert(&m->pr.cg_tab, h, idx))
		return KP_NONE;
	m->pr.cgroups[idx].id = id;
	m->pr.cgroups[idx].name = NULL;
	m->pr.nr_cgroups++;
	return idx;
}

uint32_t kp_proc__cgroup(struct kp_model *m, uint64_t id)
{
	uint32_t h, idx = cgroup_find(m, id, &h);

	return idx != KP_NONE ? idx : cgroup_add(m, id, h);
}

const char *kp_proc__cgroup_name(struct kp_model *m, uint64_t id)
{
	uint32_t h, idx = cgroup_find(m, id, &h);

	if (idx != KP_NONE && m->pr.cgroups[idx].name)
		return m->pr.cgroups[idx].name;
	return kp_strpool__printf(&m->strs, "%" PRIu64, id);
}

int kp_proc__on_cgroup(struct kp_model *m, const struct kp_rec_cgroup *r)
{
	uint32_t idx = kp_proc__cgroup(m, r->id);
	const char *s = kp_strpool__intern(&m->strs, r->path ? r->path : "");

	if (!s || idx == KP_NONE)
		return -ENOMEM;
	m->pr.cgroups[idx].name = s;
	return 0;
}
