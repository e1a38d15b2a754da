/* SPDX-License-Identifier: GPL-2.0-only */
/* report-int.h — helpers shared by the report formats (private to
 * src/report/). Same conventions as report.h. */
#ifndef KP_REPORT_INT_H
#define KP_REPORT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "report/report.h"

/* The facts every report header states, with the model's values filled
 * in where the caller left 0. */
struct kp_report_facts {
	struct kp_model_summary sum;
	uint32_t freq_hz, ncpus;
	double duration_s;
	uint64_t lost[KP_LOST_STAGE_MAX + 1];	/* drops by stage, this report's */
	/* The event (info->event, else the model's: "page-faults", or
	 * "cpu-clock (cycles cannot be counted here)" after a fallback;
	 * "unknown" without a META record) and the sampling rate: "999 Hz
	 * per CPU", or with a period "every 10000 events" (ns for a clock). */
	char event[2 * KP_EVENT_NAME_MAX + 64];
	char rate[64];
	/* The model's weight (--weight): counts are samples (cpu), or
	 * microseconds off the CPU (off) or on and off it (wall). */
	enum kp_weight weight;
	const char *unit;		/* "samples" or "microseconds" */
};
void kp_report_facts(struct kp_model *m, const struct kp_report_info *info,
		     struct kp_report_facts *out);

/* Does the report state the counts since sampling started beside its
 * own? In a live run of several reports (they are its own otherwise). */
int kp_report_has_run(const struct kp_report_info *info);

/* The header lines of the counts, each started with prefix: the
 * collector's "collector: taken N, delivered N" (live runs), "drops:" by
 * stage, and with kp_report_has_run the same since sampling started,
 * labelled "since start". */
void kp_report_counters(FILE *out, const char *prefix,
			const struct kp_report_facts *f,
			const struct kp_report_info *info);


/* The local time the report's sampling started, with its offset from
 * UTC, as top shows the time: "2026-12-04 18:40:02 +0000"; "" unknown. */
void kp_report_when(const struct kp_report_info *info, char *buf, size_t len);

/* "report[ 2/3][ at WHEN], source: FILE|live sampling" and a newline: the
 * line of the text and tree headers that says which report this is. */
void kp_report_origin(FILE *out, const struct kp_report_info *info);

/* "jit maps: read N, refused N, bad-lines N" into buf; returns 1 when
 * something was refused or skipped (the formats that say it only then). */
int kp_report_jit_note(const struct kp_report_info *info, char *buf, size_t len);
/* The Python counters as one line into buf; 1 when there is any. */
int kp_report_python_note(const struct kp_report_info *info, char *buf, size_t len);
/* "debuginfod: done N, failed N, pending N" into buf; returns 1 when
 * debug files were fetched in this run (the formats say it only then). */
int kp_report_debuginfod_note(const struct kp_report_info *info, char *buf,
			      size_t len);

/* Build a view of the given kind (all rows, expanded), with a message. */
int kp_report_view(struct kp_model *m, enum kp_view_kind kind,
		   enum kp_sort sort, struct kp_view **out, struct kp_err *err);

/* Percent of part in whole, 0 when whole is 0. */
double kp_pct(double part, double whole);

/* s with control characters (newlines, escapes) replaced by spaces, so a
 * name cannot break a line-oriented report: s itself when clean, else a
 * copy in buf (truncated to len). Never NULL. */
const char *kp_safe(const char *s, char *buf, size_t len);

/* Write s as one field of a row whose fields are apart by sep: control
 * characters and sep replaced by spaces, so the row keeps its count of
 * separators. NULL is written as "?". */
void kp_put_field(FILE *out, const char *s, char sep);

/* Write s as a JSON string literal (quotes included). */
void kp_json_string(FILE *out, const char *s);

/* Write s (its first len bytes, kp_xml_bytes) as XML character data
 * or an attribute's value: & < > " escaped, control characters (line breaks too) as '?',
 * bytes that are not UTF-8 as U+FFFD. */
void kp_xml_string(FILE *out, const char *s);
void kp_xml_bytes(FILE *out, const char *s, size_t len);

/* The script of the SVG flame graph (svg-js.c). */
extern const char kp_svg_script[];

#endif /* KP_REPORT_INT_H */
