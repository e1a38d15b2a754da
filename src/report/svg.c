// SPDX-License-Identifier: GPL-2.0-only
/* svg.c — the SVG flame graph: one self-contained file (no external
 * script, style or font) that a browser opens as it opens flamegraph.pl's
 * output. The boxes are the model's flame view (KP_VIEW_FLAME: the same
 * layout as the live view's), the root at the bottom; each is a <g
 * class="f"> with a <title> (the tooltip: name, module, samples, share)
 * and a <rect> and a <text>. The title states the host, the time, the
 * event, the duration and the drops. The script (svg-js.c) zooms on a
 * click and searches by regular expression.
 *
 * With a baseline in the model (--baseline) it is a differential flame
 * graph: widths are the current samples, colours the change of each
 * box's share of the whole since the baseline, red grown, blue shrunk, as
 * flamegraph.pl draws difffolded.pl's output. */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "report/report-int.h"
#include "stream/lost.h"

#define SVG_W 1200
#define SVG_PAD 10
#define SVG_BOX_H 16
#define SVG_TOP (SVG_BOX_H * 4 + 4)	/* title, subtitles */
#define SVG_BOTTOM (SVG_BOX_H * 2)	/* the details line */
#define SVG_FONT 12
#define SVG_CHAR_W 0.59			/* a character's width, in font sizes */
/* Boxes narrower than a tenth of a pixel are left out (flamegraph.pl's
 * default --minwidth). */
#define SVG_MIN_PX 0.1

struct svg {
	FILE *out;
	const struct kp_view *v;
	int diff;		/* a differential graph */
	double max_delta;	/* the largest change of share, for colours */
	int height;
};

static double avail(void)
{
	return SVG_W - 2 * SVG_PAD;
}

/* A stable value in [0, 1) from a name and a salt. */
static double name_hash(const char *s, unsigned salt)
{
	uint32_t h = 2166136261u ^ salt;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (double)(h % 1000) / 1000.0;
}

static double delta(const struct svg *g, const struct kp_row *r)
{
	return kp_pct(r->total, g->v->total) - kp_pct(r->base_total, g->v->base_total);
}

static void color(const struct svg *g, const struct kp_row *r, char *buf, size_t n)
{
	double a = name_hash(r->name, 1), b = name_hash(r->name, 2);

	if (g->diff) {
		double d = delta(g, r), k = g->max_delta > 0 ? fabs(d) / g->max_delta : 0;
		int c = (int)lround(250 - 190 * k);

		if (d > 0)
			snprintf(buf, n, "rgb(250,%d,%d)", c, c);
		else if (d < 0)
			snprintf(buf, n, "rgb(%d,%d,250)", c, c);
		else
			snprintf(buf, n, "rgb(240,240,240)");
		return;
	}
	switch (r->kind) {
	case KP_KIND_KERNEL:	/* orange */
		snprintf(buf, n, "rgb(%d,%d,0)", 190 + (int)(65 * a), 90 + (int)(65 * a));
		break;
	case KP_KIND_JIT:	/* green */
		snprintf(buf, n, "rgb(%d,%d,%d)", 50 + (int)(60 * a), 190 + (int)(60 * b),
			 50 + (int)(60 * a));
		break;
	case KP_KIND_PYTHON:	/* blue */
		snprintf(buf, n, "rgb(%d,%d,230)", 80 + (int)(60 * a), 140 + (int)(60 * b));
		break;
	case KP_KIND_UNKNOWN:
		snprintf(buf, n, "rgb(%d,%d,%d)", 180 + (int)(30 * a), 180 + (int)(30 * a),
			 180 + (int)(30 * a));
		break;
	case KP_KIND_PROCESS:
		snprintf(buf, n, "rgb(%d,%d,230)", 190 + (int)(30 * a), 190 + (int)(30 * a));
		break;
	default:		/* user: flamegraph.pl's "hot" */
		snprintf(buf, n, "rgb(%d,%d,%d)", 205 + (int)(50 * b), (int)(230 * a),
			 (int)(55 * b));
	}
}

static void head(struct svg *g)
{
	fprintf(g->out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", SVG_W, g->height, SVG_W,
		g->height);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, \"DejaVu Sans\", sans-serif; font-size: 12px;"
	      " fill: rgb(0,0,0); }\n"
	      "#title { text-anchor: middle; font-size: 17px; }\n"
	      ".sub { text-anchor: middle; }\n"
	      "#unzoom, #search { cursor: pointer; }\n"
	      ".f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
	      ".hide { display: none; }\n"
	      ".parent { opacity: 0.5; }\n"
	      "</style>\n<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/>"
	      "<stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n",
	      g->out);
	fprintf(g->out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
		kp_svg_script);
	fprintf(g->out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"url(#bg)\"/>\n", SVG_W, g->height);
}

/* Subtitle 1: host, start, event, frequency, duration, samples. */
static void subtitle_run(struct svg *g, const struct kp_report_facts *f,
			 const struct kp_report_info *info)
{
	char when[64] = "time unknown", buf[512];
	struct tm tm;
	time_t t;

	if (info && info->time_real_ns) {
		t = (time_t)(info->time_real_ns / 1000000000u);
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	}
	snprintf(buf, sizeof(buf), "host %s, %s, %s, %s, %"
		 PRIu32 " CPUs, %.2f s, %.0f samples in the graph%s%s",
		 info && info->host && *info->host ? info->host : "unknown", when,
		 strcmp(f->event, "unknown") ? f->event : "event unknown", f->rate,
		 f->ncpus, f->duration_s, g->v->total,
		 info && info->source ? ", from " : "",
		 info && info->source ? info->source : "");
	fprintf(g->out, "<text class=\"sub\" x=\"%d\" y=\"%d\">", SVG_W / 2,
		SVG_BOX_H * 2 + 8);
	kp_xml_string(g->out, buf);
	fputs("</text>\n", g->out);
}

/* Subtitle 2: the drops by stage, merged processes, [other]. */
static void subtitle_drops(struct svg *g, const struct kp_report_facts *f)
{
	fprintf(g->out, "<text class=\"sub\" x=\"%d\" y=\"%d\">drops:", SVG_W / 2,
		SVG_BOX_H * 3 + 8);
	for (unsigned s = 1; s <= KP_LOST_STAGE_MAX; s++)
		fprintf(g->out, "%s %s %" PRIu64, s > 1 ? "," : "", kp_lost_stage_name(s),
			f->lost[s]);
	fprintf(g->out, "; exited processes merged %" PRIu64 ", samples under "
		"[other] %" PRIu64, f->sum.merged_procs, f->sum.folded_samples);
	if (g->diff)
		fprintf(g->out, "; against a baseline of %.0f samples: red grew, blue "
			"shrank (share of the whole)", g->v->base_total);
	fputs("</text>\n", g->out);
}

static void titles(struct svg *g, const struct kp_report_facts *f,
		   const struct kp_report_info *info)
{
	fprintf(g->out, "<text id=\"title\" x=\"%d\" y=\"%d\">kptop %sflame graph</text>\n",
		SVG_W / 2, SVG_BOX_H + 8, g->diff ? "differential " : "");
	subtitle_run(g, f, info);
	subtitle_drops(g, f);
	fprintf(g->out, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">"
		"Reset Zoom</text>\n", SVG_PAD, SVG_BOX_H + 8);
	fprintf(g->out, "<text id=\"search\" x=\"%d\" y=\"%d\">Search</text>\n",
		SVG_W - SVG_PAD - 100, SVG_BOX_H + 8);
	fprintf(g->out, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		SVG_W - SVG_PAD - 100, g->height - SVG_BOX_H / 2);
	fprintf(g->out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		SVG_PAD, g->height - SVG_BOX_H / 2);
}

/* The tooltip: the name, then the module, samples and share. */
static void tooltip(struct svg *g, const struct kp_row *r)
{
	fputs("<title>", g->out);
	kp_xml_string(g->out, r->name ? r->name : "?");
	fputs("\n", g->out);
	if (r->module) {
		fputs("module ", g->out);
		kp_xml_string(g->out, r->module);
		fputs(", ", g->out);
	} else if (r->kind == KP_KIND_PROCESS && r->depth > 0) {
		fprintf(g->out, "%u process%s, ", r->nr_procs, r->nr_procs == 1 ? "" : "es");
	}
	fprintf(g->out, "%.0f samples, %.2f%%", r->total, kp_pct(r->total, g->v->total));
	if (g->diff)
		fprintf(g->out, " (baseline %.2f%%, change %+.2f)",
			kp_pct(r->base_total, g->v->base_total), delta(g, r));
	fputs("</title>", g->out);
}

/* The label that fits w pixels, as the script cuts it: "" under two
 * characters, else cut with "..". */
static void label(struct svg *g, const char *name, double w)
{
	int room = (int)((w - 6) / (SVG_FONT * SVG_CHAR_W)), n = 0;
	const unsigned char *s = (const unsigned char *)name, *cut = NULL;

	if (room < 3)
		return;
	for (const unsigned char *p = s; *p; p++)
		if ((*p & 0xc0) != 0x80 && ++n == room - 1)	/* characters, not bytes */
			cut = p;
	if (n <= room) {
		kp_xml_string(g->out, name);
		return;
	}
	kp_xml_bytes(g->out, name, (size_t)(cut - s));
	fputs("..", g->out);
}

static void box(struct svg *g, const struct kp_row *r)
{
	double x = SVG_PAD + r->x * avail(), w = r->w * avail();
	double y = g->height - SVG_BOTTOM - (r->depth + 1) * SVG_BOX_H;
	char fill[64];

	color(g, r, fill, sizeof(fill));
	fputs("<g class=\"f\">", g->out);
	tooltip(g, r);
	fprintf(g->out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">", x, y, w,
		SVG_BOX_H - 1, fill, x + 3, y + SVG_BOX_H - 5);
	label(g, r->name ? r->name : "?", w);
	fputs("</text></g>\n", g->out);
}

int kp_report_svg(FILE *out, struct kp_model *m, const struct kp_report_info *info,
		  struct kp_err *err)
{
	struct kp_view_opts o = { .kind = KP_VIEW_FLAME,
				  .min_share = SVG_MIN_PX / (SVG_W - 2 * SVG_PAD) };
	struct svg g = { .out = out };
	struct kp_report_facts f;
	struct kp_view *v = NULL;
	int depth = 0, rc;

	kp_report_facts(m, info, &f);
	rc = kp_model__view(m, &o, &v);
	if (rc)
		return kp_err_set(err, rc, "building the flame graph: %s", kp_strerror(rc));
	g.v = v;
	g.diff = kp_model__has_baseline(m);
	for (size_t i = 0; i < v->nr_rows; i++) {
		if (v->rows[i].depth > depth)
			depth = v->rows[i].depth;
		if (fabs(delta(&g, &v->rows[i])) > g.max_delta)
			g.max_delta = fabs(delta(&g, &v->rows[i]));
	}
	g.height = SVG_TOP + (depth + 1) * SVG_BOX_H + SVG_BOTTOM;
	head(&g);
	titles(&g, &f, info);
	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < v->nr_rows; i++)
		box(&g, &v->rows[i]);
	if (!v->nr_rows)
		fprintf(out, "<text x=\"%d\" y=\"%d\">no samples</text>\n", SVG_PAD,
			SVG_TOP + SVG_BOX_H);
	fputs("</g>\n</svg>\n", out);
	kp_view__free(v);
	return 0;
}
