// SPDX-License-Identifier: GPL-2.0-only
/* annotate.c — `--batch --annotate NAME`: where in each function whose
 * name holds NAME its samples fall, like `perf annotate --stdio`: per
 * function a header (name, module, samples), then each source line with
 * samples (percent of the function, file:line, the text when the file
 * is world-readable: util/srcline.h) followed by its instructions
 * (percent, address, instruction). */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "report/report-int.h"
#include "util/srcline.h"

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "??";
}

static void source(FILE *out, const struct kp_annot *a, const struct kp_annot_row *r,
		   struct kp_srclines *src)
{
	const char *text = r->file ? kp_srclines__get(src, r->file, r->line) : NULL;
	char where[512], wb[512], tb[512], ib[256];

	if (r->file)
		snprintf(where, sizeof(where), "%s:%" PRIu32, base_name(r->file), r->line);
	else
		snprintf(where, sizeof(where), "??");
	fprintf(out, "%7.2f  %s%s%s%s  %s\n", kp_pct(r->self, a->total),
		kp_safe(where, wb, sizeof(wb)), r->inlined ? " [inlined " : "",
		r->inlined ? kp_safe(r->inlined, ib, sizeof(ib)) : "",
		r->inlined ? "]" : "", text ? kp_safe(text, tb, sizeof(tb)) : "");
}

static void insn(FILE *out, const struct kp_annot *a, const struct kp_annot_row *r)
{
	char tb[256];

	fprintf(out, "%7.2f  %14" PRIx64 ":  %s", kp_pct(r->self, a->total), r->addr,
		kp_safe(r->text, tb, sizeof(tb)));
	if (r->target && r->type == KP_INSN_T_CALL)
		fprintf(out, "  ; call");
	fputc('\n', out);
}

static void one(FILE *out, const struct kp_annot *a, struct kp_srclines *src)
{
	char nb[512], mb[256];
	int show = 0;

	fprintf(out, "\n== %s (%s): %" PRIu64 " samples\n", kp_safe(a->name, nb, sizeof(nb)),
		kp_safe(a->module, mb, sizeof(mb)), a->samples);
	if (a->why)
		fprintf(out, "   no disassembly: %s\n", a->why);
	for (size_t i = 0; i < a->nr_rows; i++) {
		const struct kp_annot_row *r = &a->rows[i];

		switch (r->kind) {
		case KP_ANNOT_SOURCE:
			show = r->samples > 0;
			if (show)
				source(out, a, r, src);
			break;
		case KP_ANNOT_INSN:
			if (show)
				insn(out, a, r);
			break;
		case KP_ANNOT_ADDR:
			fprintf(out, "%7.2f  %14s+0x%" PRIx64 "\n", kp_pct(r->self, a->total),
				"", r->off);
			break;
		}
	}
	if (a->elsewhere > 0)
		fprintf(out, "%7.2f  (at no instruction shown: folded by the node limit, "
			"or outside this code)\n", kp_pct(a->elsewhere, a->total));
}

int kp_report_annotate(FILE *out, struct kp_model *m, const char *name,
		       const struct kp_report_info *info, struct kp_err *err)
{
	struct kp_srclines *src = kp_srclines__new();
	struct kp_view *v = NULL;
	size_t found = 0;
	int rc;

	(void)info;
	if (!src)
		return kp_err_set(err, -ENOMEM, "out of memory");
	rc = kp_report_view(m, KP_VIEW_FLAT, KP_SORT_SELF, &v, err);
	fprintf(out, "Percent  Source line / instruction (of each function's own samples)\n");
	for (size_t i = 0; !rc && v && i < v->nr_rows; i++) {
		const struct kp_row *r = &v->rows[i];
		struct kp_annot *a = NULL;

		if (r->self <= 0 || !r->name || !strstr(r->name, name))
			continue;
		rc = kp_model__annotate(m, r->fn, &a);
		if (rc) {
			kp_err_set(err, rc, "annotating %s: %s", r->name, kp_strerror(rc));
			break;
		}
		one(out, a, src);
		kp_annot__free(a);
		found++;
	}
	kp_view__free(v);
	kp_srclines__free(src);
	if (!rc && !found)
		rc = kp_err_set(err, -ENOENT, "--annotate %s: no function with samples has "
				"that in its name (see the text report's Function column)",
				name);
	if (!rc && ferror(out))
		rc = kp_err_set(err, -EIO, "writing the report failed");
	return rc;
}
