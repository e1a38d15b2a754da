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
	uint64_t lost[KP_LOST_STAGE_MAX + 1];	/* drops by stage */
};
void kp_report_facts(struct kp_model *m, const struct kp_report_info *info,
		     struct kp_report_facts *out);


/* "jit maps: read N, refused N, bad-lines N" into buf; returns 1 when
 * something was refused or skipped (the formats that say it only then). */
int kp_report_jit_note(const struct kp_report_info *info, char *buf, size_t len);

/* Build a view of the given kind (all rows, expanded), with a message. */
int kp_report_view(struct kp_model *m, enum kp_view_kind kind,
		   enum kp_sort sort, struct kp_view **out, struct kp_err *err);

/* Percent of part in whole, 0 when whole is 0. */
double kp_pct(double part, double whole);

/* s with control characters (newlines, escapes) replaced by spaces, so a
 * name cannot break a line-oriented report: s itself when clean, else a
 * copy in buf (truncated to len). Never NULL. */
const char *kp_safe(const char *s, char *buf, size_t len);

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
