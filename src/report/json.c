/* json.c — the counters and the flat function table as one JSON object,
 * for scripts. */
#include "report/report.h"

#include <inttypes.h>

#include "report/report-int.h"
#include "stream/lost.h"

static void counters(FILE *out, const struct kp_report_facts *f,
		     const struct kp_report_info *info)
{
	fprintf(out, "  \"version\": ");
	kp_json_string(out, PACKAGE_VERSION);
	fprintf(out, ",\n  \"source\": ");
	kp_json_string(out, info && info->source ? info->source : "live");
	fprintf(out, ",\n  \"time_real_ns\": %" PRIu64 ",\n",
		info ? info->time_real_ns : 0);
	fprintf(out, "  \"duration_s\": %.6f,\n  \"freq_hz\": %" PRIu32
		",\n  \"ncpus\": %" PRIu32 ",\n", f->duration_s, f->freq_hz, f->ncpus);
	fprintf(out, "  \"samples\": %" PRIu64 ",\n  \"total\": %.3f,\n"
		"  \"idle\": %.3f,\n", f->sum.samples, f->sum.total, f->sum.idle);
	fprintf(out, "  \"processes\": %" PRIu64 ",\n  \"threads\": %" PRIu64
		",\n  \"mappings\": %" PRIu64 ",\n", f->sum.processes,
		f->sum.threads, f->sum.mappings);
	fprintf(out, "  \"merged_processes\": %" PRIu64 ",\n  \"folded_samples\": %"
		PRIu64 ",\n", f->sum.merged_procs, f->sum.folded_samples);
	fprintf(out, "  \"collector\": ");
	if (info && info->have_collector)
		fprintf(out, "{\"taken\": %" PRIu64 ", \"delivered\": %" PRIu64
			", \"stack_err_kernel\": %" PRIu64 ", \"stack_err_user\": %"
			PRIu64 "},\n", info->taken, info->delivered,
			info->stack_err_kernel, info->stack_err_user);
	else
		fputs("null,\n", out);
	fputs("  \"drops\": {", out);
	for (unsigned s = 1; s <= KP_LOST_STAGE_MAX; s++)
		fprintf(out, "%s\"%s\": %" PRIu64, s > 1 ? ", " : "",
			kp_lost_stage_name(s), f->lost[s]);
	fputs("},\n", out);
	fprintf(out, "  \"jit_maps\": {\"read\": %" PRIu64 ", \"refused\": %" PRIu64
		", \"bad_lines\": %" PRIu64 "},\n", info ? info->jit_maps : 0,
		info ? info->jit_refused : 0, info ? info->jit_bad_lines : 0);
}

static void row(FILE *out, const struct kp_row *r, double total, int last)
{
	fputs("    {\"function\": ", out);
	kp_json_string(out, r->name ? r->name : "?");
	fputs(", \"module\": ", out);
	kp_json_string(out, r->module ? r->module : "");
	fprintf(out, ", \"kernel\": %s, \"self\": %.3f, \"total\": %.3f, "
		"\"samples\": %" PRIu64 ", \"self_pct\": %.3f, \"total_pct\": %.3f, "
		"\"processes\": %" PRIu32 "}%s\n", r->kernel ? "true" : "false",
		r->self, r->total, r->samples, kp_pct(r->self, total),
		kp_pct(r->total, total), r->nr_procs, last ? "" : ",");
}

int kp_report_json(FILE *out, struct kp_model *m,
		   const struct kp_report_info *info, struct kp_err *err)
{
	struct kp_report_facts f;
	struct kp_view *v = NULL;
	int rc;

	kp_report_facts(m, info, &f);
	rc = kp_report_view(m, KP_VIEW_FLAT, KP_SORT_SELF, &v, err);
	if (rc)
		return rc;
	fputs("{\n", out);
	counters(out, &f, info);
	fprintf(out, "  \"view_total\": %.3f,\n  \"functions\": [\n", v->total);
	for (size_t i = 0; i < v->nr_rows; i++)
		row(out, &v->rows[i], v->total, i + 1 == v->nr_rows);
	fputs("  ]\n}\n", out);
	kp_view__free(v);
	return 0;
}
