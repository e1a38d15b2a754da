// SPDX-License-Identifier: GPL-2.0-only
/* test-svg.c — the SVG flame graph (src/report/svg.c) over a real model
 * with the fake resolver: one <g> per box of the flame view with its
 * tooltip, rect widths in proportion to the samples, the title's facts,
 * nothing external, names escaped for XML, and the differential colours
 * with a baseline. tests/batch-svg.sh parses and renders a real one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"
#include "report/report.h"
#include "report/report-int.h"
#include "model-fake.h"

#define APP 0x400000ull
#define U(x) (APP + (uint64_t)(x) * 0x100 + 0x10)	/* pc in fn_<x> */
#define NS 1000000000ull

static const struct kp_report_info info = {
	.duration_s = 2, .time_real_ns = 1700000000000000000ULL, .index = 1,
	.count = 1, .host = "box<1>", .event = "cpu-clock", .freq_hz = 99,
	.ncpus = 2,
};

static void proc(struct kp_model *m, uint32_t pid, const char *comm)
{
	assert_int_equal(feed_process(m, pid, pid, comm), 0);
	assert_int_equal(feed_mmap(m, pid, APP, 0x1000000, 0, "/bin/app", 1), 0);
}

/* n samples of fn_1 -> fn_<leaf> in pid */
static void samples(struct kp_model *m, uint32_t pid, int n, int leaf)
{
	uint64_t u[2] = { U(leaf), U(1) };

	for (int i = 0; i < n; i++)
		assert_int_equal(feed_sample(m, pid, pid, NS, 0, 0, NULL, 0, u, 2), 0);
}

/* app: fn_1 -> fn_2 x5, -> fn_3 x3, -> fn_4 x2; a process whose comm
 * needs escaping: fn_1 -> fn_5 x2. */
static struct kp_model *build(struct fake *f)
{
	struct kp_model *m = fake_model(f, 0);

	assert_non_null(m);
	proc(m, 100, "app");
	proc(m, 200, "a<b&\"c\xff");
	samples(m, 100, 5, 2);
	samples(m, 100, 3, 3);
	samples(m, 100, 2, 4);
	samples(m, 200, 2, 5);
	return m;
}

static char *svg(struct kp_model *m)
{
	struct kp_err err = { 0 };
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	assert_int_equal(kp_report__write(out, KP_FORMAT_SVG, m, &info, &err), 0);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The width of the rect of the box whose tooltip starts with name. */
static double width_of(const char *s, const char *name)
{
	char key[64];
	const char *p;
	double w = -1;

	snprintf(key, sizeof(key), "<title>%s\n", name);
	p = strstr(s, key);
	if (!p || !(p = strstr(p, "width=\"")) || sscanf(p, "width=\"%lf\"", &w) != 1)
		fail_msg("no box %s", name);
	return w;
}

/* The fill of the box whose tooltip starts with name (static). */
static const char *fill_of(const char *s, const char *name)
{
	static char fill[64];
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "<title>%s\n", name);
	p = strstr(s, key);
	if (!p || !(p = strstr(p, "fill=\"")) || sscanf(p, "fill=\"%63[^\"]", fill) != 1)
		fail_msg("no box %s", name);
	return fill;
}

static void test_boxes(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = build(&f);
	char *s = svg(m);
	const char *t = strstr(s, "<g id=\"frames\">");

	(void)state;
	assert_true(!strncmp(s, "<?xml version=\"1.0\"", 19));
	assert_non_null(strstr(s, "width=\"1200\""));
	assert_non_null(t);
	/* all, app, fn_1, fn_2, fn_3, fn_4, the other command, its fn_1, fn_5 */
	assert_int_equal(count(t, "<g class=\"f\">"), 9);
	assert_int_equal(count(t, "<title>"), 9);
	/* 1180 pixels for 12 samples */
	assert_true(width_of(s, "all") > 1179.9 && width_of(s, "all") < 1180.1);
	assert_true(width_of(s, "fn_2") > 491.6 && width_of(s, "fn_2") < 491.7);
	assert_true(width_of(s, "fn_4") > 196.6 && width_of(s, "fn_4") < 196.7);
	assert_non_null(strstr(s, "<title>fn_2\nmodule app, 5 samples, 41.67%</title>"));
	assert_non_null(strstr(s, "<title>app\n1 process, 10 samples, 83.33%</title>"));
	/* the title: host (escaped), time, event, duration, drops */
	assert_non_null(strstr(s, ">kptop flame graph</text>"));
	assert_non_null(strstr(s, "host box&lt;1&gt;, 2023-11-14 22:13:20 UTC, cpu-clock, "
			       "99 Hz per CPU, 2 CPUs, 2.00 s, 12 samples"));
	assert_non_null(strstr(s, "drops: bpf-full 0, cpu-buf 0"));
	/* escaped comm, U+FFFD for the stray byte */
	assert_non_null(strstr(s, "<title>a&lt;b&amp;&quot;c\xef\xbf\xbd\n"));
	/* self-contained: nothing fetched */
	assert_null(strstr(s, "href"));
	assert_null(strstr(s, "@import"));
	assert_null(strstr(s, "<image"));
	assert_int_equal(count(s, "url("), 1);	/* the background gradient */
	assert_int_equal(count(s, "<script"), 1);
	assert_int_equal(count(s, "]]>"), 1);
	free(s);
	kp_model__free(m);
}

static void test_differential(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = build(&f);
	char *s;

	(void)state;
	kp_model__baseline_mark(m);
	samples(m, 100, 9, 2);	/* fn_2 grows from 5/12 to 9/10 */
	samples(m, 100, 1, 3);
	s = svg(m);
	assert_non_null(strstr(s, ">kptop differential flame graph</text>"));
	assert_non_null(strstr(s, "against a baseline of 12 samples"));
	assert_non_null(strstr(s, "<title>fn_2\nmodule app, 9 samples, 90.00% "
			       "(baseline 41.67%, change +48.33)</title>"));
	/* the largest change is the deepest red, a shrunk box blue (fn_3:
	 * 25% to 10%, 15/48.33 of the largest), the root unchanged */
	assert_string_equal(fill_of(s, "fn_2"), "rgb(250,60,60)");
	assert_string_equal(fill_of(s, "fn_3"), "rgb(191,191,250)");
	assert_string_equal(fill_of(s, "all"), "rgb(240,240,240)");
	assert_null(strstr(s, "<title>fn_4\n"));	/* gone: no width */
	free(s);
	kp_model__free(m);
}

static void test_empty(void **state)
{
	struct fake f = { 0 };
	struct kp_model *m = fake_model(&f, 0);
	char *s;

	(void)state;
	assert_non_null(m);
	s = svg(m);
	assert_non_null(strstr(s, ">no samples</text>"));
	assert_int_equal(count(s, "<g class=\"f\">"), 0);
	free(s);
	kp_model__free(m);
}

static void test_xml_strings(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	/* markup, a line break, a control, UTF-8 (é, U+1F600), a stray byte,
	 * a cut sequence, U+FFFE (not an XML character) */
	kp_xml_string(out, "<a&b>\"\n\001\xc3\xa9\xf0\x9f\x98\x80\xff\xe2\x82\xef\xbf\xbe");
	kp_xml_bytes(out, "xyz", 2);
	assert_int_equal(fclose(out), 0);
	assert_string_equal(buf, "&lt;a&amp;b&gt;&quot;??\xc3\xa9\xf0\x9f\x98\x80"
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdxy");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boxes),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_xml_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
