// SPDX-License-Identifier: GPL-2.0-only
/* tree.c — the top-down call tree as indented text, with Total% and
 * Self% of every node; with --field-separator one unpadded row a node,
 * its depth a field of its own. */
#include "report/report.h"

#include <inttypes.h>

#include "report/report-int.h"

static void rows(FILE *out, const struct kp_view *v)
{
	fprintf(out, "%7s %7s %9s  %s\n", "Total%", "Self%", "Samples",
		"Function [Module]");
	for (size_t i = 0; i < v->nr_rows; i++) {
		const struct kp_row *r = &v->rows[i];
		int depth = r->depth > 0 ? r->depth : 0;
		char nb[256], mb[256];
		const char *mod;

		fprintf(out, "%7.2f %7.2f %9" PRIu64 "  %*s%s", kp_pct(r->total, v->total),
			kp_pct(r->self, v->total), r->samples, 2 * depth, "",
			kp_safe(r->name, nb, sizeof(nb)));
		if (r->module) {
			mod = kp_safe(r->module, mb, sizeof(mb));
			fprintf(out, mod[0] == '[' ? " %s" : " [%s]", mod);
		}
		if (r->inlined)
			fputs(" (inlined)", out);
		fputc('\n', out);
	}
}

/* Total% SEP Self% SEP Samples SEP Depth SEP Function SEP Module SEP
 * Inlined (1 or 0), unpadded; Module is empty on a process's row. */
static void rows_sep(FILE *out, const struct kp_view *v, char sep)
{
	fprintf(out, "Total%%%cSelf%%%cSamples%cDepth%cFunction%cModule%cInlined\n",
		sep, sep, sep, sep, sep, sep);
	for (size_t i = 0; i < v->nr_rows; i++) {
		const struct kp_row *r = &v->rows[i];

		fprintf(out, "%.2f%c%.2f%c%" PRIu64 "%c%d%c", kp_pct(r->total, v->total),
			sep, kp_pct(r->self, v->total), sep, r->samples, sep,
			r->depth > 0 ? r->depth : 0, sep);
		kp_put_field(out, r->name, sep);
		fputc(sep, out);
		kp_put_field(out, r->module ? r->module : "", sep);
		fprintf(out, "%c%d\n", sep, r->inlined ? 1 : 0);
	}
}

int kp_report_tree(FILE *out, struct kp_model *m,
		   const struct kp_report_info *info, struct kp_err *err)
{
	char sep = info ? info->field_sep : 0;
	struct kp_report_facts f;
	struct kp_view *v = NULL;
	char jit[256];
	int rc;

	kp_report_facts(m, info, &f);
	rc = kp_report_view(m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, &v, err);
	if (rc)
		return rc;
	fprintf(out, "# kptop %s call tree: %.0f samples, %.2f s, event %s, %s\n",
		PACKAGE_VERSION, v->total, f.duration_s, f.event, f.rate);
	if (f.weight != KP_WEIGHT_CPU)
		fprintf(out, "# weight %s: counts are microseconds\n",
			kp_weight_name(f.weight));
	fputs("# ", out);
	kp_report_origin(out, info);
	kp_report_counters(out, "# ", &f, info);
	if (kp_report_jit_note(info, jit, sizeof(jit)))
		fprintf(out, "# %s\n", jit);
	if (kp_report_debuginfod_note(info, jit, sizeof(jit)))
		fprintf(out, "# %s\n", jit);
	if (kp_report_python_note(info, jit, sizeof(jit)))
		fprintf(out, "# %s\n", jit);
	if (sep)
		rows_sep(out, v, sep);
	else
		rows(out, v);
	kp_view__free(v);
	return 0;
}
