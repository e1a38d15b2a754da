// SPDX-License-Identifier: GPL-2.0-only
/* json.c — the counters and the flat function table as one JSON object,
 * for scripts: indented when the run makes one report, one compact
 * object per line (JSON Lines) when it makes several. The schema is in
 * man/kptop.1 (OUTPUT FORMATS); KP_JSON_SCHEMA_VERSION counts its
 * incompatible changes. 64-bit times are given as decimal strings too,
 * since a double (jq, JavaScript) rounds them past 2^53. */
#include "report/report.h"

#include <inttypes.h>

#include "report/report-int.h"
#include "stream/lost.h"

#define KP_JSON_SCHEMA_VERSION 3

/* Layout: nl after each member (newline and indent, or nothing). */
struct js {
	FILE *out;
	const char *nl, *nl2;	/* top-level member, function row */
};

static void collector(FILE *out, const struct kp_report_counts *c)
{
	fprintf(out, "{\"taken\": %" PRIu64 ", \"delivered\": %" PRIu64
		", \"stack_err_kernel\": %" PRIu64 ", \"stack_err_user\": %"
		PRIu64 "}", c->taken, c->delivered, c->stack_err_kernel,
		c->stack_err_user);
}

static void drops(FILE *out, const uint64_t *lost)
{
	fputc('{', out);
	for (unsigned s = 1; s <= KP_LOST_STAGE_MAX; s++)
		fprintf(out, "%s\"%s\": %" PRIu64, s > 1 ? ", " : "",
			kp_lost_stage_name(s), lost[s]);
	fputc('}', out);
}

/* "collector" and "drops", this report's, and "since_start": the same
 * since sampling started. The collector's are null when the records
 * came from a file. */
static void sample_counts(const struct js *j, const struct kp_report_facts *f,
			  const struct kp_report_info *info)
{
	FILE *out = j->out;

	fprintf(out, "%s\"collector\": ", j->nl);
	if (info && info->have_collector)
		collector(out, &info->counts);
	else
		fputs("null", out);
	fprintf(out, ",%s\"drops\": ", j->nl);
	drops(out, f->lost);
	fprintf(out, ",%s\"since_start\": ", j->nl);
	if (info && info->have_collector) {
		fputs("{\"collector\": ", out);
		collector(out, &info->run);
		fputs(", \"drops\": ", out);
		drops(out, info->run.lost);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
}

/* The Python counters (kptop(1), PYTHON); null when no Python was seen. */
static void python(const struct js *j, const struct kp_report_info *info)
{
	FILE *out = j->out;
	char note[8];

	fprintf(out, "%s\"python\": ", j->nl);
	if (!kp_report_python_note(info, note, sizeof(note))) {
		fputs("null,", out);
		return;
	}
	fprintf(out, "{\"processes\": %" PRIu64 ", \"merged\": %" PRIu64
		", \"thread_not_found\": %" PRIu64 ", \"cut\": %" PRIu64
		", \"read_failed\": %" PRIu64 ", \"code_unreadable\": %" PRIu64
		", \"unplaced\": %" PRIu64 ", \"unknown_version\": %" PRIu64
		", \"first_unknown\": ", info->py_procs, info->py_merged,
		info->py_no_thread, info->py_trunc, info->py_fault, info->py_unreadable,
		info->py_unplaced, info->py_unknown);
	kp_json_string(out, info->py_unknown_version ? info->py_unknown_version : "");
	fputs("},", out);
}

static void counters(const struct js *j, const struct kp_report_facts *f,
		     const struct kp_report_info *info)
{
	FILE *out = j->out;
	uint64_t t = info ? info->time_real_ns : 0;

	fprintf(out, "%s\"schema_version\": %d,%s\"version\": ", j->nl,
		KP_JSON_SCHEMA_VERSION, j->nl);
	kp_json_string(out, PACKAGE_VERSION);
	fprintf(out, ",%s\"source\": ", j->nl);
	kp_json_string(out, info && info->source ? info->source : "live");
	fprintf(out, ",%s\"report\": %u,%s\"reports\": %u,", j->nl,
		info && info->index ? info->index : 1, j->nl,
		info && info->endless ? 0 : info && info->count ? info->count : 1);
	fprintf(out, "%s\"time_real_ns\": \"%" PRIu64 "\",%s\"time_real_s\": %.6f,",
		j->nl, t, j->nl, (double)t / 1e9);
	fprintf(out, "%s\"duration_s\": %.6f,%s\"freq_hz\": %" PRIu32 ",%s\"ncpus\": %"
		PRIu32 ",", j->nl, f->duration_s, j->nl, f->freq_hz, j->nl, f->ncpus);
	fprintf(out, "%s\"weight\": \"%s\",%s\"unit\": \"%s\",", j->nl,
		kp_weight_name(f->weight), j->nl, f->unit);
	fprintf(out, "%s\"event\": ", j->nl);
	kp_json_string(out, f->sum.event[0] ? f->sum.event : "unknown");
	fprintf(out, ",%s\"event_asked\": ", j->nl);
	kp_json_string(out, f->sum.event_asked);
	fprintf(out, ",%s\"period\": %" PRIu64 ",%s\"period_unit\": \"%s\",",
		j->nl, f->sum.period, j->nl, f->sum.event_count ? "events" : "ns");
	fprintf(out, "%s\"samples\": %" PRIu64 ",%s\"total\": %.3f,%s\"idle\": %.3f,",
		j->nl, f->sum.samples, j->nl, f->sum.total, j->nl, f->sum.idle);
	fprintf(out, "%s\"processes\": %" PRIu64 ",%s\"threads\": %" PRIu64
		",%s\"mappings\": %" PRIu64 ",", j->nl, f->sum.processes, j->nl,
		f->sum.threads, j->nl, f->sum.mappings);
	fprintf(out, "%s\"merged_processes\": %" PRIu64 ",%s\"folded_samples\": %"
		PRIu64 ",", j->nl, f->sum.merged_procs, j->nl, f->sum.folded_samples);
	sample_counts(j, f, info);
	fprintf(out, ",%s\"jit_maps\": {\"read\": %" PRIu64 ", \"refused\": %" PRIu64
		", \"bad_lines\": %" PRIu64 "},", j->nl, info ? info->jit_maps : 0,
		info ? info->jit_refused : 0, info ? info->jit_bad_lines : 0);
	fprintf(out, "%s\"debuginfod\": ", j->nl);
	if (info && info->debuginfod)
		fprintf(out, "{\"done\": %" PRIu64 ", \"failed\": %" PRIu64
			", \"pending\": %" PRIu64 "},", info->dbgd_done,
			info->dbgd_failed, info->dbgd_pending);
	else
		fputs("null,", out);
	python(j, info);
}


static void row(const struct js *j, const struct kp_row *r, double total, int last)
{
	FILE *out = j->out;

	fprintf(out, "%s{\"function\": ", j->nl2);
	kp_json_string(out, r->name ? r->name : "?");
	fputs(", \"module\": ", out);
	kp_json_string(out, r->module ? r->module : "");
	fprintf(out, ", \"kernel\": %s, \"self\": %.3f, \"total\": %.3f, "
		"\"samples\": %" PRIu64 ", \"self_pct\": %.3f, \"total_pct\": %.3f, "
		"\"processes\": %" PRIu32 "}%s", r->kernel ? "true" : "false",
		r->self, r->total, r->samples, kp_pct(r->self, total),
		kp_pct(r->total, total), r->nr_procs, last ? "" : ",");
}

int kp_report_json(FILE *out, struct kp_model *m,
		   const struct kp_report_info *info, struct kp_err *err)
{
	int lines = info && (info->count > 1 || info->endless);
	struct js j = { out, lines ? "" : "\n  ", lines ? "" : "\n    " };
	struct kp_report_facts f;
	struct kp_view *v = NULL;
	int rc;

	kp_report_facts(m, info, &f);
	rc = kp_report_view(m, KP_VIEW_FLAT, KP_SORT_SELF, &v, err);
	if (rc)
		return rc;
	fputc('{', out);
	counters(&j, &f, info);
	fprintf(out, "%s\"view_total\": %.3f,%s\"functions\": [", j.nl, v->total, j.nl);
	for (size_t i = 0; i < v->nr_rows; i++)
		row(&j, &v->rows[i], v->total, i + 1 == v->nr_rows);
	fprintf(out, "%s]%s}\n", v->nr_rows ? j.nl : "", lines ? "" : "\n");
	kp_view__free(v);
	return 0;
}
