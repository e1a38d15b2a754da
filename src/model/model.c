// SPDX-License-Identifier: GPL-2.0-only
/* model.c — creating and freeing the model. */
#include "model/model-util.h"
#include "model/scratch.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/feed.h"
#include "model/pending.h"
#include "model/time-int.h"
#include "model/filter-int.h"
#include "model/view-cache.h"
#include "model/merge.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>

struct kp_model *kp_model__new(const struct kp_model_opts *opts)
{
	struct kp_model *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return NULL;
	if (opts)
		m->res = opts->resolver;
	m->tr.max_nodes = opts && opts->max_nodes ? opts->max_nodes
					       : KP_MODEL_DEFAULT_MAX_NODES;
	if (m->tr.max_nodes < 16)
		m->tr.max_nodes = 16;
	m->tr.fold_at = m->tr.max_nodes;
	m->fd.defer = opts && opts->defer_stacks;
	m->fd.by_cpu = opts && opts->by_cpu;
	m->fd.eager_views = opts && opts->eager_views;
	m->td.max_bytes = opts ? opts->max_bytes : 0;
	m->td.merge_at = opts && opts->merge_at ? opts->merge_at : KP_MODEL_MERGE_AT;
	m->tm.mode = KP_TIME_CUMULATIVE;
	m->tm.window_s = 10;
	m->filt.f.hide_kernel = 0;
	err = kp_intern__init(m);
	if (err) {
		kp_model__free(m);
		errno = -err;
		return NULL;
	}
	return m;
}

void kp_model__free(struct kp_model *m)
{
	if (!m)
		return;
	kp_time__fini(m);
	kp_filter__fini(m);
	kp_vcache__fini(m);
	kp_stk__fini(m);
	kp_pend__fini(m);
	kp_tree__fini(m);
	kp_proc__fini(m);
	kp_intern__fini(m);
	kp_codes__fini(m);
	kp_scratch__fini(m);
	kp_strpool__fini(&m->strs);
	free(m);
}
