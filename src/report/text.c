/* text.c — the text report: a header with totals and drops by cause,
 * then the flat function table of the live view. */
#include "report/report.h"

#include <inttypes.h>
#include <time.h>

#include "report/report-int.h"
#include "stream/lost.h"

static void header_time(FILE *out, const struct kp_report_info *info)
{
	char when[64] = "";
	struct tm tm;
	time_t t;

	if (info && info->time_real_ns) {
		t = (time_t)(info->time_real_ns / 1000000000u);
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), " at %Y-%m-%d %H:%M:%S UTC", &tm);
	}
	fprintf(out, "kptop %s report", PACKAGE_VERSION);
	if (info && info->count > 1)
		fprintf(out, " %u/%u", info->index, info->count);
	fprintf(out, "%s, source: %s\n", when,
		info && info->source ? info->source : "live sampling");
}

static void header(FILE *out, const struct kp_report_facts *f,
		   const struct kp_report_info *info)
{
	char jit[128];

	header_time(out, info);
	fprintf(out, "duration %.2f s, %" PRIu32 " Hz per CPU, %" PRIu32 " CPUs\n",
		f->duration_s, f->freq_hz, f->ncpus);
	fprintf(out, "samples %" PRIu64 ": %.0f in the table, %.0f idle%s\n",
		f->sum.samples, f->sum.total, f->sum.idle,
		f->sum.idle > 0 ? " (hidden unless --idle)" : "");
	if (info && info->have_collector)
		fprintf(out, "collector: taken %" PRIu64 ", delivered %" PRIu64 "\n",
			info->taken, info->delivered);
	fputs("drops:", out);
	for (unsigned s = 1; s <= KP_LOST_STAGE_MAX; s++)
		fprintf(out, "%s %s %" PRIu64, s > 1 ? "," : "",
			kp_lost_stage_name(s), f->lost[s]);
	fputc('\n', out);
	kp_report_jit_note(info, jit, sizeof(jit));
	fprintf(out, "%s\n", jit);
	if (kp_report_debuginfod_note(info, jit, sizeof(jit)))
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
