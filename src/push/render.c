// SPDX-License-Identifier: GPL-2.0-only
/* render.c — one pprof per application of an interval (see render.h). */
#include "push/render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "push/push.h"
#include "push/spool.h"

/* A process's application, remembered by (pid, cgroup id): the rule
 * runs once per process, not once per stack and pass. */
struct memo {
	uint64_t cgroup;
	uint32_t pid, app, used;
};

struct apps {
	char (*names)[KP_SPOOL_NAME_MAX];
	size_t n, cap;
	struct memo *memo;
	size_t nmemo, mcap;	/* mcap: a power of two */
	uint32_t want;		/* the application of this pass */
	int rc;
};

static uint32_t name_index(struct apps *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->names[i], name))
			return (uint32_t)i;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		void *v = realloc(a->names, cap * sizeof(*a->names));

		if (!v) {
			a->rc = -ENOMEM;
			return UINT32_MAX;
		}
		a->names = v;
		a->cap = cap;
	}
	snprintf(a->names[a->n], sizeof(a->names[0]), "%s", name);
	return (uint32_t)a->n++;
}

static int memo_grow(struct apps *a)
{
	size_t cap = a->mcap ? 2 * a->mcap : 256;
	struct memo *m = calloc(cap, sizeof(*m));

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < a->mcap; i++) {
		size_t h;

		if (!a->memo[i].used)
			continue;
		h = (a->memo[i].pid * 2654435761u ^ a->memo[i].cgroup) & (cap - 1);
		while (m[h].used)
			h = (h + 1) & (cap - 1);
		m[h] = a->memo[i];
	}
	free(a->memo);
	a->memo = m;
	a->mcap = cap;
	return 0;
}

static uint32_t app_of(struct apps *a, const struct kp_stack_visit *v)
{
	char name[KP_SPOOL_NAME_MAX];
	size_t h;

	if (2 * (a->nmemo + 1) > a->mcap && (a->rc = memo_grow(a)) != 0)
		return UINT32_MAX;
	h = (v->pid * 2654435761u ^ v->cgroup_id) & (a->mcap - 1);
	for (; a->memo[h].used; h = (h + 1) & (a->mcap - 1))
		if (a->memo[h].pid == v->pid && a->memo[h].cgroup == v->cgroup_id)
			return a->memo[h].app;
	kp_push_app(v->cgroup, v->comm, name, sizeof(name));
	a->memo[h] = (struct memo){ .cgroup = v->cgroup_id, .pid = v->pid,
				    .app = name_index(a, name), .used = 1 };
	a->nmemo++;
	return a->memo[h].app;
}

/* The first pass: every stack's application noted, no stack walked. */
static int collect(void *ctx, const struct kp_stack_visit *v)
{
	app_of(ctx, v);
	return 0;
}

static int none(void *ctx, const struct kp_stack_visit *v)
{
	(void)ctx;
	(void)v;
	return 0;
}

static int keep(void *ctx, const struct kp_stack_visit *v)
{
	struct apps *a = ctx;

	return app_of(a, v) == a->want;
}

/* The pprof of the stacks info keeps, into *buf (malloc'd). */
static int render_one(struct kp_model *m, const struct kp_report_info *info,
		      char **buf, size_t *len, struct kp_err *err)
{
	FILE *f = open_memstream(buf, len);
	int rc;

	if (!f)
		return kp_err_set(err, -errno, "out of memory for a profile");
	rc = kp_report_pprof(f, m, info, err);
	if (fclose(f) && !rc)
		rc = kp_err_set(err, -ENOMEM, "out of memory for a profile");
	return rc;
}

int kp_push_render(struct kp_model *m, const struct kp_report_info *info,
		   const char *app,
		   int (*cb)(void *ctx, const char *app, const uint8_t *gz, size_t len),
		   void *ctx, struct kp_err *err)
{
	struct kp_report_info ri = *info;
	struct apps a = { 0 };
	int rc = 0;

	rc = kp_model__foreach_stack_if(m, collect, &a, none, NULL);
	rc = rc ? rc : a.rc;
	if (app && a.n) {	/* one application: every stack */
		a.n = 1;
		snprintf(a.names[0], sizeof(a.names[0]), "%s", app);
	} else {
		ri.keep = keep;
		ri.keep_ctx = &a;
	}
	if (rc)
		kp_err_set(err, rc, "grouping the profile by application: %s",
			   kp_strerror(rc));
	for (size_t i = 0; i < a.n && !rc; i++) {
		char *buf = NULL;
		size_t len = 0;

		a.want = (uint32_t)i;
		rc = render_one(m, &ri, &buf, &len, err);
		rc = rc ? rc : a.rc;
		if (!rc)
			rc = cb(ctx, a.names[i], (const uint8_t *)buf, len);
		free(buf);
	}
	free(a.names);
	free(a.memo);
	return rc;
}
