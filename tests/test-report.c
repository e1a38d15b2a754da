// SPDX-License-Identifier: GPL-2.0-only
/* test-report.c — every report format over a real model fed hand-built
 * records and a fake resolver: shares in the text, tree and json tables,
 * folded lines (the _[k] _[i] _[j] suffixes, unsafe names made safe), and a pprof
 * profile decoded back here (gunzip + a small protobuf reader): sample
 * values, period, string table, mappings, inlined lines. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "model/model.h"
#include "report/report.h"
#include "report/report-int.h"

/* ---- fake resolver: names by file offset in /bin/app ---- */

static int fake_symbolize(void *ctx, const struct kp_map_info *map,
			  uint64_t addr, struct kp_frame_info *out, int max)
{
	static const char *const names[] = { NULL, "main", "a", "b", "hot_a",
					     "hot_b", "hot_c" };
	uint64_t off;

	(void)ctx;
	memset(out, 0, sizeof(*out) * (size_t)max);
	if (!map) {
		out[0].name = "k_leaf";
		return 1;
	}
	if (!strcmp(map->path, "//anon")) {	/* as a perf map names it */
		out[0].name = "jit_fn";
		return 1;
	}
	off = (addr - map->addr + map->pgoff) >> 12;
	if (off == 7 && max >= 2) {	/* "inl" inlined into "b" */
		out[0] = (struct kp_frame_info){ .name = "inl", .file = "inl.h",
						 .line = 7, .inlined = 1 };
		out[1] = (struct kp_frame_info){ .name = "b", .file = "app.c",
						 .line = 30 };
		return 2;
	}
	if (off == 0 || off >= sizeof(names) / sizeof(names[0]))
		return 0;
	out[0].name = names[off];
	out[0].file = "app.c";
	out[0].line = (uint32_t)off * 10;
	return 1;
}

static const struct kp_resolver_ops fake_ops = { .symbolize = fake_symbolize };

/* ---- records ---- */

#define APP(n) (0x400000u + (n) * 0x1000u + 0x10u)
#define KLEAF 0xffffffff81000100ULL

static void feed(struct kp_model *m, struct kp_record *r)
{
	assert_int_equal(kp_model__feed(m, r), 0);
}

static void feed_process(struct kp_model *m, uint32_t pid, const char *comm)
{
	static const uint8_t bid[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct kp_record r = { .type = KP_REC_PROCESS };

	r.process = (struct kp_rec_process){ .pid = pid, .gpid = pid,
		.start_ns = pid, .comm = comm, .exe = "/bin/app" };
	feed(m, &r);
	r = (struct kp_record){ .type = KP_REC_MMAP };
	r.mmap = (struct kp_rec_mmap){ .pid = pid, .tid = pid, .addr = 0x400000,
		.len = 0x10000, .prot = 5, .build_id_len = 4, .path = "/bin/app" };
	memcpy(r.mmap.build_id, bid, 4);
	feed(m, &r);
}

static void feed_samples(struct kp_model *m, uint32_t pid, const char *comm,
			 int n, const uint64_t *uf, int nu, int kernel)
{
	static const uint64_t kf[1] = { KLEAF };
	struct kp_record r = { .type = KP_REC_SAMPLE };

	for (int i = 0; i < n; i++) {
		r.sample = (struct kp_rec_sample){ .time_ns = 1000000000ULL + i,
			.pid = pid, .tid = pid, .gpid = pid, .gtid = pid,
			.nr_uframes = (uint16_t)nu, .uframes = uf,
			.flags = kernel ? 0 : KP_SAMPLE_USER_MODE };
		snprintf(r.sample.comm, sizeof(r.sample.comm), "%s", comm);
		if (kernel) {
			r.sample.nr_kframes = 1;
			r.sample.kframes = kf;
		}
		feed(m, &r);
	}
}

/* 11 samples: hot_a 5 (+1 in "we;ird"), hot_b 3 (via inl in b), k_leaf 2
 * (kernel, under hot_c). */
static struct kp_model *build_model(void)
{
	static const uint64_t sa[] = { APP(4), APP(2), APP(1) };
	static const uint64_t sb[] = { APP(5), APP(7), APP(1) };
	static const uint64_t sc[] = { APP(6), APP(1) };
	static const uint64_t sw[] = { APP(4), APP(1) };
	struct kp_model_opts o = { .resolver = { &fake_ops, NULL } };
	struct kp_model *m = kp_model__new(&o);
	struct kp_record r = { .type = KP_REC_META };

	assert_non_null(m);
	r.meta = (struct kp_rec_meta){ .version = "t", .kernel = "6.18",
		.hostname = "h", .arch = "x86_64", .freq_hz = 1000, .ncpus = 2 };
	feed(m, &r);
	feed_process(m, 100, "app");
	feed_process(m, 200, "we;ird\n");
	feed_samples(m, 100, "app", 5, sa, 3, 0);
	feed_samples(m, 100, "app", 3, sb, 3, 0);
	feed_samples(m, 100, "app", 2, sc, 2, 1);
	feed_samples(m, 200, "we;ird\n", 1, sw, 2, 0);
	return m;
}

static const struct kp_report_info info = {
	.duration_s = 1.5, .time_real_ns = 1700000000000000000ULL,
	.index = 1, .count = 1, .have_collector = 1,
	.counts = { .taken = 14, .delivered = 11,
		    .lost[KP_LOST_QUEUE_FULL] = 3 },
	.run = { .taken = 14, .delivered = 11, .lost[KP_LOST_QUEUE_FULL] = 3 },
	.jit_maps = 1, .jit_refused = 2, .jit_bad_lines = 5,
};

/* Run format f with in into a memory buffer (caller frees). */
static char *report_with(enum kp_format f, const struct kp_report_info *in,
			 size_t *len)
{
	struct kp_model *m = build_model();
	struct kp_err err = { 0 };
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	assert_int_equal(kp_report__write(out, f, m, in, &err), 0);
	assert_int_equal(fclose(out), 0);
	kp_model__free(m);
	if (len)
		*len = sz;
	return buf;
}

static char *report(enum kp_format f, size_t *len)
{
	return report_with(f, &info, len);
}

/* The line of buf containing word as a whole field, or NULL (static). */
static const char *line_with(const char *buf, const char *word)
{
	static char line[512];
	const char *p = buf;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char pad[64];

		snprintf(line, sizeof(line), "%.*s ", (int)n, p);
		snprintf(pad, sizeof(pad), " %s ", word);
		if (strstr(line, pad))
			return line;
		p += n + (p[n] == '\n');
	}
	return NULL;
}

static void test_text(void **state)
{
	char *t = report(KP_FORMAT_TEXT, NULL);
	const char *l;
	double self, total;

	(void)state;
	assert_non_null(strstr(t, "1000 Hz per CPU, 2 CPUs"));
	assert_non_null(strstr(t, "taken 14, delivered 11"));
	assert_non_null(strstr(t, "queue-full 3"));
	assert_non_null(strstr(t, "duration 1.50 s"));
	assert_non_null(strstr(t, "\njit maps: read 1, refused 2, bad-lines 5\n"));
	l = line_with(t, "hot_a");
	assert_non_null(l);
	assert_int_equal(sscanf(l, "%lf %lf", &self, &total), 2);
	assert_true(self > 54.5 && self < 54.6);	/* 6 / 11 */
	l = line_with(t, "main");
	assert_non_null(l);
	assert_int_equal(sscanf(l, "%lf %lf", &self, &total), 2);
	assert_true(self < 0.01 && total > 99.9);
	assert_non_null(line_with(t, "k_leaf"));
	assert_non_null(line_with(t, "app"));	/* module column */
	free(t);
}

/* Report 2 of 3: its own counts, and those since the start labelled. */
static void test_run_counts(void **state)
{
	struct kp_report_info in = info;
	static const char *const want[] = {
		"collector: taken 14, delivered 11 (since start: taken 30, "
		"delivered 25)\n",
		"drops: bpf-full 0, cpu-buf 0, stack-err 0, queue-full 3, "
		"side-band 0, unwind 0, off-cpu 0\n",
		"drops since start: bpf-full 0, cpu-buf 0, stack-err 0, "
		"queue-full 5, side-band 0, unwind 0, off-cpu 0\n",
	};
	char *t, *j;

	(void)state;
	in.index = 2;
	in.count = 3;
	in.run = (struct kp_report_counts){ .taken = 30, .delivered = 25,
		.lost[KP_LOST_QUEUE_FULL] = 5 };
	t = report_with(KP_FORMAT_TEXT, &in, NULL);
	assert_non_null(strstr(t, " report 2/3 "));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_non_null(strstr(t, want[i]));
	free(t);
	t = report_with(KP_FORMAT_TREE, &in, NULL);
	assert_non_null(strstr(t, "\n# report 2/3 "));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char line[256];

		snprintf(line, sizeof(line), "\n# %s", want[i]);
		assert_non_null(strstr(t, line));
	}
	free(t);
	j = report_with(KP_FORMAT_JSON, &in, NULL);
	assert_non_null(strstr(j, "\"collector\": {\"taken\": 14, \"delivered\": 11,"));
	assert_non_null(strstr(j, "\"since_start\": {\"collector\": {\"taken\": 30, "
			       "\"delivered\": 25,"));
	assert_non_null(strstr(j, "\"queue-full\": 5"));
	free(j);
}

static int indent_of(const char *l)
{
	/* "Total% Self% Samples  name": count spaces after the 3rd field. */
	const char *p = l;

	for (int f = 0; f < 3; f++) {
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')
			p++;
	}
	return (int)strspn(p, " ");
}

static void test_tree(void **state)
{
	char *t = report(KP_FORMAT_TREE, NULL);
	const char *l;
	double tot, self;
	int d_app, d_main, d_a, d_hot;

	(void)state;
	assert_non_null(strstr(t, "\n# jit maps: read 1, refused 2, bad-lines 5\n"));
	/* Roots are processes; comm's newline made safe. */
	l = line_with(t, "app");
	assert_non_null(l);
	d_app = indent_of(l);
	assert_non_null(line_with(t, "we;ird"));
	assert_null(strstr(t, "we;ird\n"));
	l = line_with(t, "main");
	assert_non_null(l);
	d_main = indent_of(l);
	assert_int_equal(sscanf(l, "%lf %lf", &tot, &self), 2);
	assert_true(tot > 90.9 && tot < 91.0 && self < 0.01);	/* 10 / 11 */
	assert_non_null(strstr(t, "k_leaf [kernel]\n"));
	l = line_with(t, "a");
	assert_non_null(l);
	d_a = indent_of(l);
	assert_int_equal(sscanf(l, "%lf", &tot), 1);
	assert_true(tot > 45.4 && tot < 45.5);	/* 5 / 11 in app */
	l = line_with(t, "hot_b");
	assert_non_null(l);
	d_hot = indent_of(l);
	assert_true(d_main > d_app);
	assert_true(d_a > d_main);
	assert_true(d_hot > d_a);
	free(t);
}

static int has_line(const char *buf, const char *want)
{
	size_t n = strlen(want);

	for (const char *p = buf; (p = strstr(p, want)); p++)
		if ((p == buf || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

static void test_folded(void **state)
{
	char *t = report(KP_FORMAT_FOLDED, NULL);
	int lines = 0;

	(void)state;
	for (const char *p = t; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 4);
	assert_true(has_line(t, "app;main;a;hot_a 5"));
	assert_true(has_line(t, "app;main;b;inl_[i];hot_b 3"));
	assert_true(has_line(t, "we:ird ;main;hot_a 1"));
	assert_non_null(strstr(t, "hot_c;k_leaf_[k] 2\n"));
	free(t);
}

/* JIT code: a frame in anonymous memory (no file, no build ID) is
 * suffixed _[j]; with it a kernel leaf (_[k]). A file mapped without a
 * build ID or an inode (a synthetic stream's) is no JIT code. */
static void test_folded_jit(void **state)
{
	static const uint64_t sj[] = { 0x7f0000000040ULL, APP(1) };
	static const uint64_t sf[] = { APP(4), APP(1) };
	static const uint64_t kf[1] = { KLEAF };
	struct kp_model *m = build_model();
	struct kp_record r = { .type = KP_REC_MMAP };
	struct kp_err err = { 0 };
	char *t = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&t, &sz);

	(void)state;
	assert_non_null(out);
	r.mmap = (struct kp_rec_mmap){ .pid = 100, .tid = 100,
		.addr = 0x7f0000000000ULL, .len = 0x1000, .prot = 5, .path = "//anon" };
	feed(m, &r);
	feed_samples(m, 100, "app", 4, sj, 2, 0);
	r = (struct kp_record){ .type = KP_REC_SAMPLE };
	r.sample = (struct kp_rec_sample){ .time_ns = 2000000000ULL, .pid = 100,
		.tid = 100, .gpid = 100, .gtid = 100, .nr_uframes = 2,
		.uframes = sj, .nr_kframes = 1, .kframes = kf };
	strcpy(r.sample.comm, "app");
	feed(m, &r);
	r = (struct kp_record){ .type = KP_REC_PROCESS };
	r.process = (struct kp_rec_process){ .pid = 300, .gpid = 300,
		.start_ns = 300, .comm = "plain", .exe = "/bin/plain" };
	feed(m, &r);
	r = (struct kp_record){ .type = KP_REC_MMAP };
	r.mmap = (struct kp_rec_mmap){ .pid = 300, .tid = 300, .addr = 0x400000,
		.len = 0x10000, .prot = 5, .path = "/bin/plain" };
	feed(m, &r);
	feed_samples(m, 300, "plain", 2, sf, 2, 0);
	assert_int_equal(kp_report__write(out, KP_FORMAT_FOLDED, m, &info, &err), 0);
	assert_int_equal(fclose(out), 0);
	assert_true(has_line(t, "app;main;jit_fn_[j] 4"));
	assert_true(has_line(t, "app;main;jit_fn_[j];k_leaf_[k] 1"));
	assert_true(has_line(t, "app;main;b;inl_[i];hot_b 3"));	/* file code: no _[j] */
	assert_true(has_line(t, "plain;main;hot_a 2"));
	free(t);
	kp_model__free(m);
}

static void test_json(void **state)
{
	char *t = report(KP_FORMAT_JSON, NULL);
	int depth = 0, in_str = 0;

	(void)state;
	for (const char *p = t; *p; p++) {	/* balanced outside strings */
		if (in_str && *p == '\\')
			p++;
		else if (*p == '"')
			in_str = !in_str;
		else if (!in_str && (*p == '{' || *p == '['))
			depth++;
		else if (!in_str && (*p == '}' || *p == ']'))
			assert_true(--depth >= 0);
	}
	assert_int_equal(depth, 0);
	assert_non_null(strstr(t, "\"function\": \"hot_a\", \"module\": \"app\""));
	assert_non_null(strstr(t, "\"self_pct\": 54.545"));
	assert_non_null(strstr(t, "\"queue-full\": 3"));
	assert_non_null(strstr(t, "\"collector\": {\"taken\": 14, \"delivered\": 11,"));
	assert_non_null(strstr(t, "\"since_start\": {\"collector\": {\"taken\": 14,"));
	assert_non_null(strstr(t, "\"jit_maps\": {\"read\": 1, \"refused\": 2, "
			       "\"bad_lines\": 5}"));
	assert_non_null(strstr(t, "\"freq_hz\": 1000"));
	assert_non_null(strstr(t, "\"schema_version\": 3,"));
	/* 64-bit: exact as a string, not a double that rounds it. */
	assert_non_null(strstr(t, "\"time_real_ns\": \"1700000000000000000\","));
	assert_non_null(strstr(t, "\"time_real_s\": 1700000000.000000,"));
	free(t);
}

/* ---- pprof: gunzip and read back ---- */

struct pb {
	const uint8_t *p, *end;
};

static uint64_t varint(struct pb *b)
{
	uint64_t v = 0;

	for (int s = 0; s < 64; s += 7) {
		assert_true(b->p < b->end);
		v |= (uint64_t)(*b->p & 0x7f) << s;
		if (!(*b->p++ & 0x80))
			return v;
	}
	fail();
	return 0;
}

/* Next field: returns 0 at the end; *sub gets wire-type-2 bytes. */
static int field(struct pb *b, unsigned *num, uint64_t *v, struct pb *sub)
{
	uint64_t key;

	if (b->p >= b->end)
		return 0;
	key = varint(b);
	*num = (unsigned)(key >> 3);
	switch (key & 7) {
	case 0: *v = varint(b); return 1;
	case 2:
		*v = varint(b);
		assert_true(*v <= (uint64_t)(b->end - b->p));
		sub->p = b->p;
		sub->end = b->p + *v;
		b->p += *v;
		return 1;
	}
	fail_msg("unexpected wire type %u", (unsigned)(key & 7));
	return 0;
}

static size_t gunzip(const char *in, size_t len, uint8_t **out)
{
	size_t cap = 1 << 20;
	z_stream zs = { 0 };

	*out = malloc(cap);
	assert_non_null(*out);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = *out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	inflateEnd(&zs);
	return cap - zs.avail_out;
}

struct prof {
	int samples, mappings, locations, functions, strings, multi_line_locs;
	uint64_t count, nanos, period, duration, time;
	char str[64][32];
	int build_id_seen;
	uint64_t comments[8];
	int nr_comments;
	uint64_t first_map_file;	/* string id of mapping[0]'s filename */
};

static void read_sample(struct pb *s, struct prof *pr)
{
	struct pb sub, vals;
	unsigned num;
	uint64_t v;
	int i = 0;

	while (field(s, &num, &v, &sub)) {
		if (num != 2)
			continue;
		vals = sub;
		while (vals.p < vals.end) {
			v = varint(&vals);
			if (i++ == 0)
				pr->count += v;
			else
				pr->nanos += v;
		}
	}
	pr->samples++;
}

static void read_location(struct pb *s, struct prof *pr)
{
	struct pb sub;
	unsigned num;
	uint64_t v;
	int lines = 0;

	while (field(s, &num, &v, &sub))
		lines += num == 4;
	pr->locations++;
	pr->multi_line_locs += lines > 1;
}

static void read_profile(const uint8_t *buf, size_t len, struct prof *pr)
{
	struct pb b = { buf, buf + len }, sub, m;
	unsigned num, n2;
	uint64_t v, v2;

	while (field(&b, &num, &v, &sub)) {
		switch (num) {
		case 2: read_sample(&sub, pr); break;
		case 3:
			m = sub;
			while (field(&m, &n2, &v2, &sub)) {
				pr->build_id_seen |= n2 == 6 && v2 != 0;
				if (n2 == 5 && pr->mappings == 0)
					pr->first_map_file = v2;
			}
			pr->mappings++;
			break;
		case 4: read_location(&sub, pr); break;
		case 5: pr->functions++; break;
		case 6:
			if (pr->strings < 64)
				snprintf(pr->str[pr->strings], 32, "%.*s", (int)v,
					 (const char *)sub.p);
			pr->strings++;
			break;
		case 10: pr->duration = v; break;
		case 9: pr->time = v; break;
		case 12: pr->period = v; break;
		case 13:
			if (pr->nr_comments < 8)
				pr->comments[pr->nr_comments++] = v;
			break;
		}
	}
}

static int has_string(const struct prof *pr, const char *s)
{
	for (int i = 0; i < pr->strings && i < 64; i++)
		if (!strcmp(pr->str[i], s))
			return 1;
	return 0;
}

static void test_pprof(void **state)
{
	size_t len, plen;
	char *t = report(KP_FORMAT_PPROF, &len);
	uint8_t *raw;
	struct prof pr = { 0 };

	(void)state;
	assert_true(len > 18);
	assert_int_equal((uint8_t)t[0], 0x1f);	/* gzip magic */
	assert_int_equal((uint8_t)t[1], 0x8b);
	plen = gunzip(t, len, &raw);
	read_profile(raw, plen, &pr);
	assert_int_equal(pr.samples, 4);	/* distinct stacks */
	assert_int_equal(pr.count, 11);
	assert_int_equal(pr.period, 1000000);	/* 1e9 / 1000 Hz */
	assert_int_equal(pr.nanos, 11 * 1000000ULL);
	assert_int_equal(pr.duration, 1500000000ULL);
	assert_int_equal(pr.time, info.time_real_ns);
	assert_string_equal(pr.str[0], "");
	assert_true(has_string(&pr, "samples") && has_string(&pr, "count"));
	assert_true(has_string(&pr, "cpu") && has_string(&pr, "nanoseconds"));
	assert_true(has_string(&pr, "hot_a") && has_string(&pr, "k_leaf"));
	assert_true(has_string(&pr, "/bin/app"));
	assert_true(has_string(&pr, "deadbeef"));
	assert_true(pr.build_id_seen);
	/* kptop's, the event, the drops, and the JIT maps' */
	assert_int_equal(pr.nr_comments, 4);
	for (int i = 0; i < 4; i++)
		assert_true(pr.comments[i] < 64);
	/* (strings are kept to 31 bytes here) */
	assert_string_equal(pr.str[pr.comments[1]], "event: cpu-clock");	/* META */
	assert_string_equal(pr.str[pr.comments[2]], "drops: bpf-full 0, cpu-buf 0, s");
	assert_string_equal(pr.str[pr.comments[3]], "jit maps: read 1, refused 2, ba");
	assert_true(has_string(&pr, "tid") && has_string(&pr, "thread"));
	assert_int_equal(pr.mappings, 2);	/* app (same range in both), kernel */
	assert_int_equal(pr.multi_line_locs, 1);	/* inl inside b */
	assert_int_equal(pr.functions, 8);	/* 7 user names + k_leaf */
	free(raw);
	free(t);
}

/* The pprof look-up of a build ID on disk, faked: 010203 for /bin/app. */
static int fake_build_id(void *ctx, const char *path, uint8_t *id, uint8_t *len)
{
	(void)ctx;
	if (strcmp(path, "/bin/app"))
		return -ENOENT;
	id[0] = 1, id[1] = 2, id[2] = 3;
	*len = 3;
	return 0;
}

/* A process known without build IDs whose first sample is in the
 * kernel: its executable is still mapping[0], with the looked-up build
 * ID, and the kernel's mapping has the kernel's. */
static void test_pprof_main_first(void **state)
{
	static const uint64_t su[] = { APP(4), APP(1) };
	struct kp_model_opts o = { .resolver = { &fake_ops, NULL } };
	struct kp_model *m = kp_model__new(&o);
	struct kp_record r = { .type = KP_REC_META };
	struct kp_report_info in = { .index = 1, .count = 1,
		.build_id = fake_build_id, .kernel_build_id = { 0xaa, 0xbb },
		.kernel_build_id_len = 2, .event = "cpu-clock" };
	struct kp_err err = { 0 };
	struct prof pr = { 0 };
	char *buf = NULL;
	size_t sz = 0, plen;
	uint8_t *raw;
	FILE *out = open_memstream(&buf, &sz);

	(void)state;
	assert_non_null(m);
	r.meta = (struct kp_rec_meta){ .version = "t", .freq_hz = 1000, .ncpus = 1 };
	feed(m, &r);
	r = (struct kp_record){ .type = KP_REC_PROCESS };
	r.process = (struct kp_rec_process){ .pid = 300, .gpid = 300,
		.start_ns = 1, .comm = "app", .exe = "/bin/app" };
	feed(m, &r);
	r = (struct kp_record){ .type = KP_REC_MMAP };
	r.mmap = (struct kp_rec_mmap){ .pid = 300, .tid = 300, .addr = 0x400000,
		.len = 0x10000, .prot = 5, .path = "/bin/app" };
	feed(m, &r);
	feed_samples(m, 300, "app", 1, su, 0, 1);	/* kernel only, first */
	feed_samples(m, 300, "app", 3, su, 2, 0);
	assert_int_equal(kp_report__write(out, KP_FORMAT_PPROF, m, &in, &err), 0);
	fclose(out);
	plen = gunzip(buf, sz, &raw);
	read_profile(raw, plen, &pr);
	assert_int_equal(pr.mappings, 2);
	assert_true(pr.first_map_file < 64);
	assert_string_equal(pr.str[pr.first_map_file], "/bin/app");
	assert_true(has_string(&pr, "010203") && has_string(&pr, "aabb"));
	assert_true(has_string(&pr, "event: cpu-clock"));
	free(raw);
	free(buf);
	kp_model__free(m);
}

static void test_write_error(void **state)
{
	struct kp_model *m = build_model();
	struct kp_err err = { 0 };
	FILE *out = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(out);
	assert_int_equal(kp_report__write(out, KP_FORMAT_TEXT, m, &info, &err), -EIO);
	assert_non_null(strstr(err.msg, "text"));
	fclose(out);
	kp_model__free(m);
}

static void test_json_strings(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	/* quote, backslash, newline, control, valid UTF-8 (é, U+1F600),
	 * a stray byte, a cut sequence, a surrogate */
	kp_json_string(out, "a\"b\\c\nd\001e\xc3\xa9\xf0\x9f\x98\x80\xff\xe2\x82\xed\xa0\x80");
	assert_int_equal(fclose(out), 0);
	assert_string_equal(buf, "\"a\\\"b\\\\c\\nd\\u0001e\xc3\xa9\xf0\x9f\x98\x80"
			    "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
	free(buf);
}

static void test_format_names(void **state)
{
	enum kp_format f;

	(void)state;
	for (int i = 0; i < KP_FORMAT_MAX; i++) {
		assert_int_equal(kp_format_parse(kp_format_name((enum kp_format)i), &f), 0);
		assert_int_equal(f, i);
	}
	assert_int_equal(kp_format_parse("png", &f), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_run_counts),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_folded_jit),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_pprof_main_first),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_json_strings),
		cmocka_unit_test(test_format_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
