/* text.c — the text report: a header with totals and drops by cause
 * (this report's, and in a run of several those since the start too),
 * then the flat function table of the live view. */
#include "report/report.h"

#include <inttypes.h>

#include "report/report-int.h"

static void header(FILE *out, const struct kp_report_facts *f,
		   const struct kp_report_info *info)
{
	char jit[128];

	fprintf(out, "kptop %s ", PACKAGE_VERSION);
	kp_report_origin(out, info);
	fprintf(out, "duration %.2f s, %" PRIu32 " Hz per CPU, %" PRIu32 " CPUs\n",
		f->duration_s, f->freq_hz, f->ncpus);
	fprintf(out, "samples %" PRIu64 ": %.0f in the table, %.0f idle%s\n",
		f->sum.samples, f->sum.total, f->sum.idle,
		f->sum.idle > 0 ? " (hidden unless --idle)" : "");
	kp_report_counters(out, "", f, info);
	kp_report_jit_note(info, jit, sizeof(jit));
	fprintf(out, "%s\n", jit);
	fprintf(out, "processes %" PRIu64 ", threads %" PRIu64 ", mappings %"
		PRIu64 ", call-tree nodes %" PRIu64 "\n", f->sum.processes,
		f->sum.threads, f->sum.mappings, f->sum.nodes);
	fprintf(out, "exited processes merged by command %" PRIu64
		", samples under [other] %" PRIu64 "\n\n", f->sum.merged_procs,
		f->sum.folded_samples);
}

int kp_report_text(FILE *out, struct kp_model *m,
		   const struct kp_report_info *info, struct kp_err *err)
{
	struct kp_report_facts f;
	struct kp_view *v = NULL;
	int rc;

	kp_report_facts(m, info, &f);
	rc = kp_report_view(m, KP_VIEW_FLAT, KP_SORT_SELF, &v, err);
	if (rc)
		return rc;
	header(out, &f, info);
	fprintf(out, "%7s %7s %9s  %-48s %s\n", "Self%", "Total%", "Samples",
		"Function", "Module");
	for (size_t i = 0; i < v->nr_rows; i++) {
		const struct kp_row *r = &v->rows[i];
		char nb[256], mb[256];

		fprintf(out, "%7.2f %7.2f %9" PRIu64 "  %-48s %s\n",
			kp_pct(r->self, v->total), kp_pct(r->total, v->total),
			r->samples, kp_safe(r->name, nb, sizeof(nb)),
			r->module ? kp_safe(r->module, mb, sizeof(mb)) :
				    (r->kernel ? "[kernel]" : "?"));
	}
	kp_view__free(v);
	return 0;
}
