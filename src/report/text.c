// SPDX-License-Identifier: GPL-2.0-only
/* text.c — the text report: a header with totals and drops by cause
 * (this report's, and in a run of several those since the start too),
 * then the flat function table of the live view: columns aligned, or
 * with --field-separator fields apart by one character and the header
 * lines comments ("# "), for awk and the like. */
#include "report/report.h"

#include <inttypes.h>

#include "report/report-int.h"

static void header(FILE *out, const char *pfx, const struct kp_report_facts *f,
		   const struct kp_report_info *info)
{
	char jit[256];

	fprintf(out, "%skptop %s ", pfx, PACKAGE_VERSION);
	kp_report_origin(out, info);
	fprintf(out, "%sduration %.2f s, event %s, %s, %" PRIu32 " CPUs\n",
		pfx, f->duration_s, f->event, f->rate, f->ncpus);
	if (f->weight != KP_WEIGHT_CPU)
		fprintf(out, "%sweight %s: counts are microseconds %s\n", pfx,
			kp_weight_name(f->weight), f->weight == KP_WEIGHT_OFF ?
			"off the CPU" : "on and off the CPU");
	fprintf(out, "%ssamples %" PRIu64 ": %.0f in the table, %.0f idle%s\n",
		pfx, f->sum.samples, f->sum.total, f->sum.idle,
		f->sum.idle > 0 ? " (hidden unless --idle)" : "");
	kp_report_counters(out, pfx, f, info);
	kp_report_jit_note(info, jit, sizeof(jit));
	fprintf(out, "%s%s\n", pfx, jit);
	if (kp_report_debuginfod_note(info, jit, sizeof(jit)))
		fprintf(out, "%s%s\n", pfx, jit);
	if (kp_report_python_note(info, jit, sizeof(jit)))
		fprintf(out, "%s%s\n", pfx, jit);
	fprintf(out, "%sprocesses %" PRIu64 ", threads %" PRIu64 ", mappings %"
		PRIu64 ", call-tree nodes %" PRIu64 "\n", pfx, f->sum.processes,
		f->sum.threads, f->sum.mappings, f->sum.nodes);
	fprintf(out, "%sexited processes merged by command %" PRIu64
		", samples under [other] %" PRIu64 "\n", pfx, f->sum.merged_procs,
		f->sum.folded_samples);
}

static const char *module_of(const struct kp_row *r)
{
	return r->module ? r->module : r->kernel ? "[kernel]" : "?";
}

static void table(FILE *out, const struct kp_view *v)
{
	fprintf(out, "%7s %7s %9s  %-48s %s\n", "Self%", "Total%", "Samples",
		"Function", "Module");
	for (size_t i = 0; i < v->nr_rows; i++) {
		const struct kp_row *r = &v->rows[i];
		char nb[256], mb[256];

		fprintf(out, "%7.2f %7.2f %9" PRIu64 "  %-48s %s\n",
			kp_pct(r->self, v->total), kp_pct(r->total, v->total),
			r->samples, kp_safe(r->name, nb, sizeof(nb)),
			kp_safe(module_of(r), mb, sizeof(mb)));
	}
}

/* Self% SEP Total% SEP Samples SEP Function SEP Module, unpadded. */
static void table_sep(FILE *out, const struct kp_view *v, char sep)
{
	fprintf(out, "Self%%%cTotal%%%cSamples%cFunction%cModule\n", sep, sep,
		sep, sep);
	for (size_t i = 0; i < v->nr_rows; i++) {
		const struct kp_row *r = &v->rows[i];

		fprintf(out, "%.2f%c%.2f%c%" PRIu64 "%c", kp_pct(r->self, v->total),
			sep, kp_pct(r->total, v->total), sep, r->samples, sep);
		kp_put_field(out, r->name, sep);
		fputc(sep, out);
		kp_put_field(out, module_of(r), sep);
		fputc('\n', out);
	}
}

int kp_report_text(FILE *out, struct kp_model *m,
		   const struct kp_report_info *info, struct kp_err *err)
{
	char sep = info ? info->field_sep : 0;
	struct kp_report_facts f;
	struct kp_view *v = NULL;
	int rc;

	kp_report_facts(m, info, &f);
	rc = kp_report_view(m, KP_VIEW_FLAT, KP_SORT_SELF, &v, err);
	if (rc)
		return rc;
	header(out, sep ? "# " : "", &f, info);
	if (sep) {
		table_sep(out, v, sep);
	} else {
		fputc('\n', out);
		table(out, v);
	}
	kp_view__free(v);
	return 0;
}
