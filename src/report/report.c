// SPDX-License-Identifier: GPL-2.0-only
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/report-int.h"
#include "stream/lost.h"

int kp_report__write(FILE *out, enum kp_format f, struct kp_model *m,
		     const struct kp_report_info *info, struct kp_err *err)
{
	int rc;

	switch (f) {
	case KP_FORMAT_TEXT: rc = kp_report_text(out, m, info, err); break;
	case KP_FORMAT_TREE: rc = kp_report_tree(out, m, info, err); break;
	case KP_FORMAT_FOLDED: rc = kp_report_folded(out, m, info, err); break;
	case KP_FORMAT_PPROF: rc = kp_report_pprof(out, m, info, err); break;
	case KP_FORMAT_JSON: rc = kp_report_json(out, m, info, err); break;
	case KP_FORMAT_SVG: rc = kp_report_svg(out, m, info, err); break;
	case KP_FORMAT_SPEEDSCOPE: rc = kp_report_speedscope(out, m, info, err); break;
	default:
		return kp_err_set(err, -EINVAL, "unknown report format %d", (int)f);
	}
	if (rc)
		return rc;
	if (fflush(out) || ferror(out))
		return kp_err_set(err, -EIO, "writing the %s report: %s",
				  kp_format_name(f), strerror(errno ? errno : EIO));
	return 0;
}

static void event_facts(const struct kp_report_info *info,
			struct kp_report_facts *out)
{
	const struct kp_model_summary *s = &out->sum;

	if (info && info->event)
		snprintf(out->event, sizeof(out->event), "%s", info->event);
	else if (!s->event[0])
		snprintf(out->event, sizeof(out->event), "unknown");
	else if (s->event_asked[0])
		snprintf(out->event, sizeof(out->event), "%s (%s cannot be counted "
			 "here)", s->event, s->event_asked);
	else
		snprintf(out->event, sizeof(out->event), "%s", s->event);
	if (s->period)
		snprintf(out->rate, sizeof(out->rate), "every %" PRIu64 " %s",
			 s->period, s->event_count ? "events" : "ns");
	else
		snprintf(out->rate, sizeof(out->rate), "%" PRIu32 " Hz per CPU",
			 out->freq_hz);
}

void kp_report_facts(struct kp_model *m, const struct kp_report_info *info,
		     struct kp_report_facts *out)
{
	memset(out, 0, sizeof(*out));
	kp_model__summary(m, &out->sum);
	out->freq_hz = info && info->freq_hz ? info->freq_hz : out->sum.freq_hz;
	out->ncpus = info && info->ncpus ? info->ncpus : out->sum.ncpus;
	if (info && info->duration_s > 0)
		out->duration_s = info->duration_s;
	else if (out->sum.last_ns > out->sum.first_ns)
		out->duration_s = (double)(out->sum.last_ns - out->sum.first_ns) / 1e9;
	if (info && info->have_collector)	/* exact, of this interval */
		memcpy(out->lost, info->counts.lost, sizeof(out->lost));
	else
		memcpy(out->lost, out->sum.lost, sizeof(out->lost));
	event_facts(info, out);
	out->weight = kp_model__weight(m);
	out->unit = out->weight == KP_WEIGHT_CPU ? "samples" : "microseconds";
}

int kp_report_has_run(const struct kp_report_info *info)
{
	return info && info->have_collector && (info->count > 1 || info->endless);
}

static void drops_line(FILE *out, const char *prefix, const char *label,
		       const uint64_t *lost)
{
	fprintf(out, "%s%s:", prefix, label);
	for (unsigned s = 1; s <= KP_LOST_STAGE_MAX; s++)
		fprintf(out, "%s %s %" PRIu64, s > 1 ? "," : "",
			kp_lost_stage_name(s), lost[s]);
	fputc('\n', out);
}

void kp_report_counters(FILE *out, const char *prefix,
			const struct kp_report_facts *f,
			const struct kp_report_info *info)
{
	int run = kp_report_has_run(info);

	if (info && info->have_collector) {
		fprintf(out, "%scollector: taken %" PRIu64 ", delivered %" PRIu64,
			prefix, info->counts.taken, info->counts.delivered);
		if (run)
			fprintf(out, " (since start: taken %" PRIu64 ", delivered %"
				PRIu64 ")", info->run.taken, info->run.delivered);
		fputc('\n', out);
	}
	if (info && info->have_collector && info->counts.off_on) {
		const struct kp_report_counts *k = &info->counts;
		double d = f->duration_s > 0 ? f->duration_s : 1;

		fprintf(out, "%soff-cpu: switches %" PRIu64 " (%.0f/s), intervals %"
			PRIu64 ", %.3f s off", prefix, k->off_switches,
			(double)k->off_switches / d, k->off_intervals,
			(double)k->off_ns / 1e9);
		if (k->off_stack_wanted)
			fprintf(out, ", whole user stacks %" PRIu64 " of %" PRIu64,
				k->off_stack_copied, k->off_stack_wanted);
		fputc('\n', out);
	}
	drops_line(out, prefix, "drops", f->lost);
	if (run)
		drops_line(out, prefix, "drops since start", info->run.lost);
}

void kp_report_when(const struct kp_report_info *info, char *buf, size_t len)
{
	struct tm tm;
	time_t t;

	if (!len)
		return;
	buf[0] = '\0';
	if (!info || !info->time_real_ns)
		return;
	t = (time_t)(info->time_real_ns / 1000000000u);
	if (localtime_r(&t, &tm) && !strftime(buf, len, "%Y-%m-%d %H:%M:%S %z", &tm))
		buf[0] = '\0';
}

void kp_report_origin(FILE *out, const struct kp_report_info *info)
{
	char when[64];

	kp_report_when(info, when, sizeof(when));
	fputs("report", out);
	if (info && info->count > 1)
		fprintf(out, " %u/%u", info->index, info->count);
	else if (info && info->endless)
		fprintf(out, " %u", info->index);
	if (when[0])
		fprintf(out, " at %s", when);
	fprintf(out, ", source: %s\n",
		info && info->source ? info->source : "live sampling");
}

int kp_report_jit_note(const struct kp_report_info *info, char *buf, size_t len)
{
	static const struct kp_report_info none;

	if (!info)
		info = &none;
	snprintf(buf, len, "jit maps: read %" PRIu64 ", refused %" PRIu64
		 ", bad-lines %" PRIu64, info->jit_maps, info->jit_refused,
		 info->jit_bad_lines);
	return info->jit_refused || info->jit_bad_lines;
}

int kp_report_python_note(const struct kp_report_info *info, char *buf, size_t len)
{
	if (!info || !(info->py_procs || info->py_merged || info->py_no_thread ||
		       info->py_trunc || info->py_fault || info->py_unknown))
		return 0;
	snprintf(buf, len, "python: processes %" PRIu64 ", samples merged %" PRIu64
		 ", thread-not-found %" PRIu64 ", cut %" PRIu64 ", read-failed %"
		 PRIu64 ", code-unreadable %" PRIu64 ", unplaced %" PRIu64
		 ", unknown-version %" PRIu64 "%s%s%s", info->py_procs,
		 info->py_merged, info->py_no_thread, info->py_trunc, info->py_fault,
		 info->py_unreadable, info->py_unplaced, info->py_unknown,
		 info->py_unknown_version ? " (" : "",
		 info->py_unknown_version ? info->py_unknown_version : "",
		 info->py_unknown_version ? ")" : "");
	return 1;
}

int kp_report_debuginfod_note(const struct kp_report_info *info, char *buf,
			      size_t len)
{
	if (!info || !info->debuginfod)
		return 0;
	snprintf(buf, len, "debuginfod: done %" PRIu64 ", failed %" PRIu64
		 ", pending %" PRIu64, info->dbgd_done, info->dbgd_failed,
		 info->dbgd_pending);
	return 1;
}

int kp_report_view(struct kp_model *m, enum kp_view_kind kind,
		   enum kp_sort sort, struct kp_view **out, struct kp_err *err)
{
	struct kp_view_opts o = { .kind = kind, .sort = sort };
	int rc;

	rc = kp_model__view(m, &o, out);
	if (rc)
		return kp_err_set(err, rc, "building the report's view: %s",
				  kp_strerror(rc));
	return 0;
}

double kp_pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not one
 * (stray continuation bytes, overlong forms, surrogates, beyond U+10FFFF). */
static int utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n;

	if (*s < 0x80)
		return 1;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	if (*s == 0xe0)
		lo = 0xa0;
	else if (*s == 0xed)
		hi = 0x9f;
	else if (*s == 0xf0)
		lo = 0x90;
	else if (*s == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void kp_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	fputc('"', out);
	while (p && *p) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else if ((n = utf8_len(p)) == 0)
			fputs("\\ufffd", out);	/* not UTF-8: keep JSON valid */
		else {
			fwrite(p, 1, (size_t)n, out);
			p += n;
			continue;
		}
		p++;
	}
	fputc('"', out);
}

void kp_put_field(FILE *out, const char *s, char sep)
{
	if (!s)
		s = "?";
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f || *s == sep ? ' ' : *s,
		      out);
}

void kp_xml_bytes(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	int n;

	while (p < end && *p) {
		if (*p == '&')
			fputs("&amp;", out);
		else if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '"')
			fputs("&quot;", out);
		else if (*p < 0x20)
			fputc('?', out);	/* not a character of XML 1.0 */
		else if ((n = utf8_len(p)) == 0 || p + n > end)
			fputs("\xef\xbf\xbd", out);	/* U+FFFD: keep the file XML */
		else {	/* U+FFFE and U+FFFF are not XML characters either */
			if (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe)
				fputs("\xef\xbf\xbd", out);
			else
				fwrite(p, 1, (size_t)n, out);
			p += n;
			continue;
		}
		p++;
	}
}

void kp_xml_string(FILE *out, const char *s)
{
	kp_xml_bytes(out, s, s ? strlen(s) : 0);
}

const char *kp_safe(const char *s, char *buf, size_t len)
{
	size_t i;

	if (!s)
		return "?";
	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			break;
	if (!s[i] || len == 0)
		return s;
	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i];
	buf[i] = '\0';
	return buf;
}
