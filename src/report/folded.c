// SPDX-License-Identifier: GPL-2.0-only
/* folded.c — one line per distinct stack, `comm;root;...;leaf COUNT`
 * (`comm-PID;...` with --folded-pid, as stackcollapse-perf --pid), its
 * frames annotated as stackcollapse-perf does: inlined ones suffixed
 * `_[i]`, else kernel ones `_[k]`, else JIT ones `_[j]` (code in
 * anonymous memory). The input of flamegraph.pl (whose --colors=java
 * colours the suffixes apart), inferno and speedscope. Stacks that
 * differ only below the names (addresses, threads of one command, or
 * without --folded-pid its processes) are merged into one line. Names
 * are made safe: ';' becomes ':', line breaks and other control
 * characters become spaces. */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/pb.h"
#include "report/report-int.h"

struct fold {
	int pid;			/* "comm-PID" */
	struct kp_intern *lines;	/* line text -> index into counts */
	uint64_t *counts;
	size_t cap;
	struct kp_pb line;		/* the line being built */
};

static void put_safe(struct kp_pb *b, const char *s)
{
	for (; s && *s; s++) {
		char c = *s;

		if (c == ';')
			c = ':';
		else if ((unsigned char)c < 0x20 || c == 0x7f)
			c = ' ';
		kp_pb_raw(b, &c, 1);
	}
}

/* One annotation a frame, the first that holds, as stackcollapse-perf. */
static const char *suffix(const struct kp_frame_ref *fr)
{
	if (fr->inlined)
		return "_[i]";
	if (fr->kernel)
		return "_[k]";
	return fr->jit ? "_[j]" : NULL;
}

static int count_line(struct fold *f, uint64_t n)
{
	uint64_t idx = kp_intern__count(f->lines);
	int rc = kp_intern__get(f->lines, f->line.buf, f->line.len, &idx);

	if (rc < 0)
		return rc;
	if (idx >= f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 1024;
		uint64_t *c = realloc(f->counts, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		f->counts = c;
		f->cap = cap;
	}
	if (rc == 1)
		f->counts[idx] = 0;
	f->counts[idx] += n;
	return 0;
}

static int fold_one(void *ctx, const struct kp_stack_visit *v)
{
	struct fold *f = ctx;
	long long n = llround(v->count);

	if (n <= 0)
		return 0;
	kp_pb_reset(&f->line);
	put_safe(&f->line, v->comm && *v->comm ? v->comm : "[unknown]");
	if (f->pid) {
		char pid[16];
		int len = snprintf(pid, sizeof(pid), "-%" PRIu32, v->pid);

		kp_pb_raw(&f->line, pid, (size_t)len);
	}
	for (size_t i = 0; i < v->depth; i++) {
		const struct kp_frame_ref *fr = v->frames[i];

		kp_pb_raw(&f->line, ";", 1);
		put_safe(&f->line, fr->name);
		if (suffix(fr))
			kp_pb_raw(&f->line, suffix(fr), 4);
	}
	if (f->line.oom)
		return -ENOMEM;
	return count_line(f, (uint64_t)n);
}

/* A first line "# kptop: event E, RATE; counts are samples" when the
 * event is not cpu-clock at a frequency, the default (kptop(1): the
 * line ends in a word, so flamegraph.pl skips it as a bad line rather
 * than reading a count). */
static void event_comment(FILE *out, struct kp_model *m,
			  const struct kp_report_info *info)
{
	struct kp_report_facts f;

	kp_report_facts(m, info, &f);
	if (f.weight != KP_WEIGHT_CPU) {
		fprintf(out, "# kptop: weight %s; counts are microseconds\n",
			kp_weight_name(f.weight));
		return;
	}
	if (!f.sum.event[0] || (!strcmp(f.sum.event, "cpu-clock") &&
				!f.sum.event_asked[0] && !f.sum.period))
		return;
	fprintf(out, "# kptop: event %s, %s; counts are samples\n", f.event, f.rate);
}

int kp_report_folded(FILE *out, struct kp_model *m,
		     const struct kp_report_info *info, struct kp_err *err)
{
	struct fold f = { .pid = info && info->folded_pid,
			  .lines = kp_intern__new() };
	int rc = -ENOMEM;

	if (!f.lines)
		goto out;
	rc = kp_model__foreach_stack(m, fold_one, &f);
	if (rc)
		goto out;
	event_comment(out, m, info);
	for (size_t i = 0; i < kp_intern__count(f.lines); i++) {
		size_t len;
		const char *s = kp_intern__key(f.lines, i, &len);

		fprintf(out, "%.*s %llu\n", (int)len, s,
			(unsigned long long)f.counts[i]);
	}
out:
	if (rc)
		kp_err_set(err, rc, "writing folded stacks: %s", kp_strerror(rc));
	kp_intern__free(f.lines);
	free(f.counts);
	kp_pb_fini(&f.line);
	return rc;
}
