// SPDX-License-Identifier: GPL-2.0-only
/* speedscope.c — speedscope's JSON file format (its published schema,
 * https://www.speedscope.app/file-format-schema.json): the frames once
 * in "shared", then one "sampled" profile per process (its threads
 * together), the busiest first, each followed by one profile per thread
 * when it has several, so that `speedscope FILE` shows the processes and
 * the threads as profiles of their own. A sample is a distinct stack,
 * root first, weighted by its samples times the sampling period
 * (nanoseconds; "none" and the bare counts when the frequency is
 * unknown). A frame is a function name with its source file and line
 * when known, else its module as the file. */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/pb.h"
#include "report/report-int.h"

struct ss_frame { const char *name, *file; uint32_t line; };
struct ss_stack { uint32_t thr, first, n, next_p, next_t; double w; };
struct ss_prof {		/* a process or a thread */
	const char *comm, *thread;
	uint32_t pid, tid, proc;	/* proc: the process's profile (threads) */
	uint32_t nthreads, head;	/* its stacks: a list by next_p / next_t */
	double w;
};

struct ss {
	struct kp_intern *frame_tab, *proc_tab, *thr_tab;
	struct kp_pb key;
	struct ss_frame *frames;
	size_t nr_frames, cap_frames;
	uint32_t *fidx;		/* the stacks' frames */
	size_t nr_fidx, cap_fidx;
	struct ss_stack *st;
	size_t nr_st, cap_st;
	struct ss_prof *procs, *thrs;
	size_t cap_procs, cap_thrs;
	double period;		/* weight of a sample */
};

#define SS_NONE UINT32_MAX

/* Room for need elements of size sz in *pp (a T **), by doubling. */
static int grow(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp;
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* The index of the entry keyed by f->key in tab, made by add() if new. */
static long lookup(struct ss *f, struct kp_intern *tab, int *is_new)
{
	uint64_t v = kp_intern__count(tab);
	int rc = f->key.oom ? -ENOMEM : kp_intern__get(tab, f->key.buf, f->key.len, &v);

	*is_new = rc == 1;
	return rc < 0 ? rc : (long)v;
}

static long frame_of(struct ss *f, const struct kp_frame_ref *r)
{
	const char *file = r->file ? r->file : r->module ? r->module : "";
	uint32_t line = r->file ? r->line : 0;
	int is_new;
	long i;

	kp_pb_reset(&f->key);
	kp_pb_raw(&f->key, r->name, strlen(r->name) + 1);
	kp_pb_raw(&f->key, file, strlen(file) + 1);
	kp_pb_raw(&f->key, &line, sizeof(line));
	i = lookup(f, f->frame_tab, &is_new);
	if (i < 0 || !is_new)
		return i;
	if (grow(&f->frames, &f->cap_frames, (size_t)i + 1, sizeof(*f->frames)))
		return -ENOMEM;
	f->frames[i] = (struct ss_frame){ r->name, file, line };
	f->nr_frames = (size_t)i + 1;
	return i;
}

/* The profile of the visit's process (threads: of its thread). */
static long prof_of(struct ss *f, const struct kp_stack_visit *v, int thread)
{
	struct kp_intern *tab = thread ? f->thr_tab : f->proc_tab;
	struct ss_prof **arr = thread ? &f->thrs : &f->procs;
	size_t *cap = thread ? &f->cap_thrs : &f->cap_procs;
	int is_new;
	long i;

	kp_pb_reset(&f->key);
	kp_pb_raw(&f->key, &v->pid, sizeof(v->pid));
	kp_pb_raw(&f->key, v->comm ? v->comm : "", strlen(v->comm ? v->comm : "") + 1);
	if (thread)
		kp_pb_raw(&f->key, &v->tid, sizeof(v->tid));
	i = lookup(f, tab, &is_new);
	if (i < 0 || !is_new)
		return i;
	if (grow(arr, cap, (size_t)i + 1, sizeof(**arr)))
		return -ENOMEM;
	(*arr)[i] = (struct ss_prof){ .comm = v->comm ? v->comm : "", .pid = v->pid,
				      .tid = v->tid, .thread = v->thread, .head = SS_NONE };
	return i;
}

static int one_stack(void *ctx, const struct kp_stack_visit *v)
{
	struct ss *f = ctx;
	long p = prof_of(f, v, 0), t = prof_of(f, v, 1);
	struct ss_stack *s;

	if (p < 0 || t < 0 || !(v->count > 0))
		return p < 0 ? (int)p : t < 0 ? (int)t : 0;
	if (grow(&f->st, &f->cap_st, f->nr_st + 1, sizeof(*f->st)) ||
	    grow(&f->fidx, &f->cap_fidx, f->nr_fidx + v->depth + 1, sizeof(*f->fidx)))
		return -ENOMEM;
	s = &f->st[f->nr_st];
	*s = (struct ss_stack){ .thr = (uint32_t)t, .first = (uint32_t)f->nr_fidx,
				.n = (uint32_t)v->depth, .w = v->count * f->period };
	for (size_t i = 0; i < v->depth; i++) {
		long fr = frame_of(f, v->frames[i]);

		if (fr < 0)
			return (int)fr;
		f->fidx[f->nr_fidx++] = (uint32_t)fr;
	}
	if (f->thrs[t].head == SS_NONE)	/* a new thread of process p */
		f->procs[p].nthreads++;
	f->thrs[t].proc = (uint32_t)p;
	s->next_p = f->procs[p].head;
	s->next_t = f->thrs[t].head;
	f->procs[p].head = f->thrs[t].head = (uint32_t)f->nr_st++;
	f->procs[p].w += s->w;
	f->thrs[t].w += s->w;
	return 0;
}

/* ---- writing ---- */

static void write_frames(FILE *out, const struct ss *f)
{
	fputs("\"shared\": {\"frames\": [", out);
	for (size_t i = 0; i < f->nr_frames; i++) {
		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
		kp_json_string(out, f->frames[i].name);
		if (f->frames[i].file[0]) {
			fputs(", \"file\": ", out);
			kp_json_string(out, f->frames[i].file);
		}
		if (f->frames[i].line)
			fprintf(out, ", \"line\": %" PRIu32, f->frames[i].line);
		fputc('}', out);
	}
	fputs("]},\n", out);
}

/* One profile: the stacks of a process (thread < 0) or of a thread. */
static void write_profile(FILE *out, const struct ss *f, const struct ss_prof *p,
			  int thread, const char *unit)
{
	char name[256];
	uint32_t i;
	int first = 1;

	if (thread)
		snprintf(name, sizeof(name), "%s (pid %" PRIu32 ") thread %" PRIu32 "%s%s",
			 p->comm, p->pid, p->tid, p->thread && *p->thread ? " " : "",
			 p->thread ? p->thread : "");
	else
		snprintf(name, sizeof(name), "%s (pid %" PRIu32 ")", p->comm, p->pid);
	fputs("{\"type\": \"sampled\", \"name\": ", out);
	kp_json_string(out, name);
	fprintf(out, ", \"unit\": \"%s\", \"startValue\": 0, \"endValue\": %.0f,\n"
		" \"samples\": [", unit, p->w);
	for (i = p->head; i != SS_NONE; i = thread ? f->st[i].next_t : f->st[i].next_p) {
		fputs(first ? "[" : ", [", out);
		for (uint32_t k = 0; k < f->st[i].n; k++)
			fprintf(out, k ? ",%" PRIu32 : "%" PRIu32, f->fidx[f->st[i].first + k]);
		fputc(']', out);
		first = 0;
	}
	fputs("],\n \"weights\": [", out);
	first = 1;
	for (i = p->head; i != SS_NONE; i = thread ? f->st[i].next_t : f->st[i].next_p) {
		fprintf(out, first ? "%.0f" : ", %.0f", f->st[i].w);
		first = 0;
	}
	fputs("]}", out);
}

static int cmp_w(const void *a, const void *b, void *ctx)
{
	const struct ss_prof *arr = ctx;
	double x = arr[*(const uint32_t *)a].w, y = arr[*(const uint32_t *)b].w;

	return x > y ? -1 : x < y ? 1 : (*(const uint32_t *)a > *(const uint32_t *)b) -
					 (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* The processes by weight, each then its threads by weight (several). */
static int write_profiles(FILE *out, const struct ss *f, const char *unit)
{
	size_t np = kp_intern__count(f->proc_tab), nt = kp_intern__count(f->thr_tab);
	uint32_t *po = malloc((np + 1) * sizeof(*po)), *to = malloc((nt + 1) * sizeof(*to));

	if (!po || !to) {
		free(po);
		free(to);
		return -ENOMEM;
	}
	for (size_t i = 0; i < np; i++)
		po[i] = (uint32_t)i;
	for (size_t i = 0; i < nt; i++)
		to[i] = (uint32_t)i;
	qsort_r(po, np, sizeof(*po), cmp_w, f->procs);
	qsort_r(to, nt, sizeof(*to), cmp_w, f->thrs);
	fputs("\"profiles\": [", out);
	for (size_t i = 0, n = 0; i < np; i++) {
		const struct ss_prof *p = &f->procs[po[i]];

		if (p->head == SS_NONE)
			continue;
		fputs(n++ ? ",\n" : "\n", out);
		write_profile(out, f, p, 0, unit);
		for (size_t k = 0; p->nthreads > 1 && k < nt; k++)
			if (f->thrs[to[k]].proc == po[i] && f->thrs[to[k]].head != SS_NONE) {
				fputs(",\n", out);
				write_profile(out, f, &f->thrs[to[k]], 1, unit);
			}
	}
	fputs("]}\n", out);
	free(po);
	free(to);
	return 0;
}

static void write_head(FILE *out, const struct kp_report_info *info,
		       const struct kp_report_facts *facts)
{
	char when[64] = "", name[512];
	struct tm tm;
	time_t t;

	if (info && info->time_real_ns) {
		t = (time_t)(info->time_real_ns / 1000000000u);
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), " %Y-%m-%d %H:%M:%S UTC", &tm);
	}
	snprintf(name, sizeof(name), "kptop %s%s, %.2f s, %s, %s",
		 info && info->host && *info->host ? info->host : "profile", when,
		 facts->duration_s, facts->event, facts->rate);
	fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\": ", out);
	kp_json_string(out, "kptop " PACKAGE_VERSION);
	fputs(", \"name\": ", out);
	kp_json_string(out, name);
	fputs(", \"activeProfileIndex\": 0,\n", out);
}

int kp_report_speedscope(FILE *out, struct kp_model *m,
			 const struct kp_report_info *info, struct kp_err *err)
{
	struct ss f = { .period = 1 };
	struct kp_report_facts facts;
	const char *unit = "none";
	int rc = -ENOMEM;

	kp_report_facts(m, info, &facts);
	if (facts.weight != KP_WEIGHT_CPU) {
		f.period = 1000;	/* counts are microseconds */
		unit = "nanoseconds";
	} else if (facts.freq_hz) {
		f.period = 1e9 / facts.freq_hz;
		unit = "nanoseconds";
	}
	f.frame_tab = kp_intern__new();
	f.proc_tab = kp_intern__new();
	f.thr_tab = kp_intern__new();
	if (f.frame_tab && f.proc_tab && f.thr_tab)
		rc = kp_model__foreach_stack(m, one_stack, &f);
	if (!rc) {
		write_head(out, info, &facts);
		write_frames(out, &f);
		rc = write_profiles(out, &f, unit);
	}
	if (rc)
		kp_err_set(err, rc, "writing the speedscope file: %s", kp_strerror(rc));
	kp_intern__free(f.frame_tab);
	kp_intern__free(f.proc_tab);
	kp_intern__free(f.thr_tab);
	kp_pb_fini(&f.key);
	free(f.frames);
	free(f.fidx);
	free(f.st);
	free(f.procs);
	free(f.thrs);
	return rc;
}
