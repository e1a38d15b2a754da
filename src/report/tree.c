/* tree.c — the top-down call tree as indented text, with Total% and
 * Self% of every node. */
#include "report/report.h"

#include <inttypes.h>

#include "report/report-int.h"

int kp_report_tree(FILE *out, struct kp_model *m,
		   const struct kp_report_info *info, struct kp_err *err)
{
	struct kp_report_facts f;
	struct kp_view *v = NULL;
	char jit[128];
	int rc;

	kp_report_facts(m, info, &f);
	rc = kp_report_view(m, KP_VIEW_TOPDOWN, KP_SORT_TOTAL, &v, err);
	if (rc)
		return rc;
	fprintf(out, "# kptop %s call tree: %.0f samples, %.2f s, %" PRIu32
		" Hz per CPU\n", PACKAGE_VERSION, v->total, f.duration_s, f.freq_hz);
	if (kp_report_jit_note(info, jit, sizeof(jit)))
		fprintf(out, "# %s\n", jit);
	if (kp_report_debuginfod_note(info, jit, sizeof(jit)))
		fprintf(out, "# %s\n", jit);
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
	kp_view__free(v);
	return 0;
}
