// SPDX-License-Identifier: GPL-2.0-only
/* tui-bench.c — time to build and draw one frame of the live view with
 * 100k functions in the model, and a development driver for the view.
 *
 *   bench/tui-bench [-n FUNCS] [-r FRAMES] [-s SAMPLES] [-v] [-V VIEW]
 *                                            time frames on /dev/null
 *                                            (-v: each frame's time;
 *                                            -V Flame: that view only);
 *                                            -n 450000: a tree of about
 *                                            1M nodes
 *   bench/tui-bench --ui [-n FUNCS]          run the view on this terminal
 *                                            with a synthetic live feed
 *
 * It builds a real model (libkpmodel.a) from synthetic records with a fake
 * resolver, and draws into a newterm() on /dev/null (200x50). As in the
 * live view, every timed frame follows new data: SAMPLES samples (2000:
 * 2 s of 999 Hz on 2 CPUs; a quarter of them on random functions, mostly
 * new stacks) are fed, untimed, before each frame. The first frame (when
 * the view opens and the counts are summed from every stack) is timed on
 * its own; then each view, then the flat view after a new filter at each
 * frame (every stack summed again), with every row made (as after End;
 * the view makes the rows up to the screen's: "rows made/all"), and in
 * the window and the decaying time modes. Each line gives the mean wall
 * time, the draw's part of it and the mean CPU time of the thread (what
 * a frame costs when other programs share the CPUs). Every view includes the flame
 * graph (its boxes for a 200-column screen, drawn in half cells); then
 * the SVG flame graph of the same model is written to /dev/null (its
 * time and its size). In --ui mode the collector and
 * pump are tests/fake-live.c's: the view sees a live profile whose hot
 * functions are hot_a 50%, hot_b 30%, hot_c 20%.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "collect/collect.h"
#include "model/model.h"
#include "pump/pump.h"
#include "report/report.h"
#include "symbols/symbols.h"
#include "tui/app.h"
#include "tui/tui.h"

#include "fake-live.h"	/* the collector and the pump for --ui */

#define BASE 0x400000ULL
#define STEP 0x100ULL
#define NPROC 50

struct fake {
	char **names;
	unsigned nfn;
	struct kp_model *model;
	uint64_t t_ns, seq;
	int efd;
	const char *only;	/* -V: the one view timed, by its name */
};

static int fake_symbolize(void *ctx, const struct kp_map_info *map,
			  uint64_t addr, struct kp_frame_info *out, int max)
{
	struct fake *f = ctx;
	uint64_t i = (addr - BASE) / STEP;

	if (!map || addr < BASE || i >= f->nfn || max < 1)
		return 0;
	memset(out, 0, sizeof(*out));
	out->name = f->names[i];
	return 1;
}

static const struct kp_resolver_ops fake_ops = { .symbolize = fake_symbolize };

static int make_names(struct fake *f, unsigned n)
{
	static const char *const fixed[] = { "main", "hot_a", "hot_b", "hot_c",
		"calcul_π_über_Größe", "日本語の関数名",
		"std::vector<std::pair<int, std::string>>::_M_realloc_insert" };
	unsigned nf = sizeof(fixed) / sizeof(fixed[0]);

	f->names = calloc(n, sizeof(*f->names));
	if (!f->names)
		return -ENOMEM;
	f->nfn = n;
	for (unsigned i = 0; i < n; i++) {
		char buf[64];

		if (i < nf)
			snprintf(buf, sizeof(buf), "%s", fixed[i]);
		else
			snprintf(buf, sizeof(buf), "synthetic_function_%06u", i);
		f->names[i] = strdup(buf);
		if (!f->names[i])
			return -ENOMEM;
	}
	return 0;
}

static void free_names(struct fake *f)
{
	for (unsigned i = 0; f->names && i < f->nfn; i++)
		free(f->names[i]);
	free(f->names);
}

static int feed_procs(struct fake *f)
{
	struct kp_record r;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.type = KP_REC_META;
	r.meta = (struct kp_rec_meta){ .version = "bench", .kernel = "6.1",
		.hostname = "bench", .arch = "x86_64", .freq_hz = 999, .ncpus = 2,
		.page_size = 4096, .flags = KP_META_USER_STACKS };
	rc |= kp_model__feed(f->model, &r);
	for (uint32_t p = 0; p < NPROC; p++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "work-%u", p);
		memset(&r, 0, sizeof(r));
		r.type = KP_REC_PROCESS;
		r.process = (struct kp_rec_process){ .start_ns = 1000 + p,
			.pid = 100 + p, .ppid = 1, .gpid = 100 + p, .comm = comm,
			.exe = "/usr/bin/synthetic" };
		rc |= kp_model__feed(f->model, &r);
		memset(&r, 0, sizeof(r));
		r.type = KP_REC_MMAP;
		r.mmap = (struct kp_rec_mmap){ .pid = 100 + p, .tid = 100 + p,
			.addr = BASE, .len = STEP * f->nfn, .prot = 5,
			.maj = 8, .ino = 42, .path = "/usr/bin/synthetic" };
		rc |= kp_model__feed(f->model, &r);
	}
	return rc;
}

/* One sample: leaf `leaf`, called by leaf/16, leaf/256, then main. */
static int feed_sample(struct fake *f, unsigned leaf, uint32_t pid)
{
	uint64_t frames[4] = { leaf, leaf / 16, leaf / 256, 0 };
	struct kp_record r;

	for (int i = 0; i < 4; i++)
		frames[i] = BASE + frames[i] * STEP + 8;
	memset(&r, 0, sizeof(r));
	r.type = KP_REC_SAMPLE;
	r.sample.time_ns = f->t_ns;
	r.sample.pid = r.sample.tid = r.sample.gpid = r.sample.gtid = pid;
	r.sample.cpu = (uint32_t)(f->seq & 1);
	r.sample.flags = KP_SAMPLE_USER_MODE;
	snprintf(r.sample.comm, sizeof(r.sample.comm), "work-%u", pid - 100);
	r.sample.nr_uframes = 4;
	r.sample.uframes = frames;
	f->seq++;
	return kp_model__feed(f->model, &r);
}

static unsigned hot_leaf(uint64_t seq)
{
	unsigned k = (unsigned)(seq % 10);

	return k < 5 ? 1 : k < 8 ? 2 : 3;	/* hot_a 50%, hot_b 30%, hot_c 20% */
}

static int feed_many(struct fake *f, unsigned n, int spread)
{
	for (unsigned i = 0; i < n; i++) {
		/* spread: 1 on a random function, else on the hot ones; every
		 * other value: one in `spread` samples on a random function */
		int rnd = spread == 1 || (spread > 1 && f->seq % (unsigned)spread == 0);
		unsigned leaf = rnd ? (unsigned)((f->seq * 2654435761u) % f->nfn)
				    : hot_leaf(f->seq);

		if (feed_sample(f, leaf, 100 + (uint32_t)(f->seq % NPROC)) < 0)
			return -ENOMEM;
		f->t_ns += 1000000;
	}
	return 0;
}

/* The view's feed in --ui mode (the shared fake pump calls it while
 * sampling): 100 samples a turn. */
static int feed_turn(void *ctx)
{
	return feed_many(ctx, 100, 0);
}

static double ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1e3 + (b.tv_nsec - a->tv_nsec) / 1e6;
}

/* Time `frames` frames of the current view, each after `per` new samples;
 * refilter: each after a new filter too (the show_idle flag flipped). */
static int time_frames(struct fake *f, struct kp_tui *t, int frames, unsigned per,
		       const char *what, int verbose, int refilter)
{
	double best = 1e9, sum = 0, draw = 0, cpu = 0;
	struct timespec a, b, ca, cb;
	int rc = 0;

	for (int i = 0; i < frames && rc == 0; i++) {
		if (feed_many(f, per, 4) < 0)
			return -ENOMEM;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (refilter) {	/* as a key would, just before the frame */
			t->filter.show_idle = !t->filter.show_idle;
			rc = kp_tui__set_filter(t);
		}
		rc = rc ? rc : kp_tui__refresh(t);
		clock_gettime(CLOCK_MONOTONIC, &b);
		kp_tui__draw(t);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
		cpu += (cb.tv_sec - ca.tv_sec) * 1e3 + (cb.tv_nsec - ca.tv_nsec) / 1e6;
		double ms = ms_since(&a);
		draw += ms_since(&b);
		sum += ms;
		best = ms < best ? ms : best;
		if (verbose)
			fprintf(stderr, "%s%.2f", i ? " " : "  ", ms);
	}
	if (verbose)
		fprintf(stderr, " ms\n");
	printf("frame %-10s rows %6zu/%-6zu  mean %6.2f ms (draw %5.2f, cpu %6.2f)  "
	       "best %6.2f ms%s\n", kp_view_name(t->vopts.kind),
	       t->view ? t->view->nr_rows : 0, t->view ? t->view->nr_all : 0,
	       sum / frames, draw / frames, cpu / frames, best, what);
	return rc;
}

/* The SVG flame graph of the model, as --format svg writes it: the time
 * to /dev/null (best of 3), then its size. */
static int bench_svg(struct kp_model *m)
{
	struct kp_report_info info = { .freq_hz = 999, .ncpus = 2, .duration_s = 10,
				       .host = "bench", .event = "cpu-clock" };
	struct kp_err err = { 0 };
	double best = 1e9;
	struct timespec a;
	char *buf = NULL;
	size_t bytes = 0;
	FILE *mem;

	for (int i = 0; i < 3; i++) {
		FILE *out = fopen("/dev/null", "w");

		if (!out)
			return -errno;
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (kp_report__write(out, KP_FORMAT_SVG, m, &info, &err)) {
			fprintf(stderr, "tui-bench: svg: %s\n", err.msg);
			fclose(out);
			return -EIO;
		}
		best = ms_since(&a) < best ? ms_since(&a) : best;
		fclose(out);
	}
	mem = open_memstream(&buf, &bytes);
	if (!mem || kp_report__write(mem, KP_FORMAT_SVG, m, &info, &err)) {
		if (mem)
			fclose(mem);
		free(buf);
		return -ENOMEM;
	}
	fclose(mem);
	free(buf);
	printf("svg flame graph: %.1f ms (best of 3), %zu bytes\n", best, bytes);
	return 0;
}

static int bench_frames(struct fake *f, struct kp_tui_config *cfg, int frames,
			unsigned per, int verbose)
{
	static const enum kp_time_mode modes[] = { KP_TIME_WINDOW, KP_TIME_DECAY };
	static const char *const mode_names[] = { "  [window 10 s]", "  [decaying]" };
	struct kp_crt_opts co = { .term = "xterm-256color" };
	struct kp_err err = { 0 };
	struct kp_tui *t;
	struct timespec a;
	uint64_t hot_fn = 0;
	int rc = 0;

	co.out = fopen("/dev/null", "w");
	co.in = fopen("/dev/null", "r");
	setenv("LINES", "50", 1);
	setenv("COLUMNS", "200", 1);
	t = co.out && co.in ? kp_tui__new(cfg, &co, &err) : NULL;
	if (!t) {
		fprintf(stderr, "tui-bench: %s\n", err.msg[0] ? err.msg : strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = kp_tui__refresh(t);
	kp_tui__draw(t);
	printf("first frame (%s, counts summed from every stack): %.2f ms\n",
	       kp_view_name(t->vopts.kind), ms_since(&a));
	for (int k = 0; k < KP_VIEW_KIND_MAX && rc == 0; k++) {
		if (f->only && strcasecmp(f->only, kp_view_name((enum kp_view_kind)k)))
			continue;
		/* Callers of the hottest function, as Enter on it shows them. */
		t->vopts.root_fn = k == KP_VIEW_BOTTOMUP ? hot_fn : 0;
		t->vopts.kind = (enum kp_view_kind)k;
		rc = time_frames(f, t, frames, per, "", verbose, 0);
		if (k == KP_VIEW_FLAT && t->view && t->view->nr_rows)
			hot_fn = t->view->rows[0].fn;
	}
	t->vopts.kind = KP_VIEW_FLAT;
	t->vopts.root_fn = 0;
	if (f->only)
		goto out;
	if (rc == 0)
		rc = time_frames(f, t, frames, per, "  [new filter each frame]", verbose, 1);
	t->rows_all = 1;	/* as after End: every row made */
	if (rc == 0)
		rc = time_frames(f, t, frames, per, "  [every row made]", verbose, 0);
	t->rows_all = 0;
	for (int i = 0; i < 2 && rc == 0; i++) {
		t->mode = modes[i];
		kp_model__set_time_mode(cfg->model, t->mode, cfg->window_s);
		rc = time_frames(f, t, frames, per, mode_names[i], verbose, 0);
	}
out:
	kp_tui__free(t);
	fclose(co.out);
	fclose(co.in);
	if (rc == 0 && !f->only)
		rc = bench_svg(cfg->model);
	return rc < 0;
}

int main(int argc, char **argv)
{
	struct fake f = { .t_ns = 1000000000ULL };
	struct kp_model_opts mo = { .resolver = { &fake_ops, &f }, .eager_views = 1 };
	struct kp_tui_config cfg = { .delay_ms = 1000, .freq_hz = 999, .window_s = 10 };
	struct kp_model_summary sum;
	unsigned nfn = 100000, per = 2000;
	int ui = 0, frames = 5, verbose = 0, rc;
	struct timespec a;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ui"))
			ui = 1;
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			nfn = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			frames = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "-V") && i + 1 < argc)
			f.only = argv[++i];
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			per = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "-d") && i + 1 < argc)
			cfg.delay_ms = (unsigned)(atof(argv[++i]) * 1000);
	}
	f.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	f.model = kp_model__new(&mo);
	if (f.efd < 0 || !f.model || make_names(&f, nfn < 8 ? 8 : nfn) < 0) {
		perror("tui-bench");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (feed_procs(&f) < 0 || feed_many(&f, 2 * f.nfn, 1) < 0 ||
	    feed_many(&f, f.nfn, 0) < 0) {
		fprintf(stderr, "tui-bench: feeding the model failed\n");
		return 1;
	}
	cfg.model = f.model;
	if (ui) {
		struct kp_err err = { 0 };
		struct kp_fake_live live;
		uint64_t one = 1;

		/* The eventfd stays readable, so the view pumps at its own
		 * pace (every 50 ms), feeding 100 samples a turn. */
		kp_fake_live__init(&live);
		live.sampling = 1;
		live.fd = f.efd;
		live.no_save = 1;
		live.lost_queue_full = 3;	/* to see a highlighted counter */
		live.run = feed_turn;
		live.ctx = &f;
		cfg.collector = kp_fake_live__collector(&live);
		cfg.pump = kp_fake_live__pump(&live);
		rc = write(f.efd, &one, sizeof(one)) < 0;
		rc = kp_tui__run(&cfg, &err);
		if (rc < 0)
			fprintf(stderr, "tui-bench: %s\n", err.msg);
		kp_model__free(f.model);
		free_names(&f);
		return rc < 0;
	}
	kp_model__summary(f.model, &sum);
	printf("model: %u functions, %llu samples fed in %.0f ms: %llu nodes; "
	       "%u new samples before each frame\n", f.nfn, (unsigned long long)f.seq,
	       ms_since(&a), (unsigned long long)sum.nodes, per);
	cfg.input_path = "(synthetic)";
	rc = bench_frames(&f, &cfg, frames < 1 ? 1 : frames, per, verbose);
	kp_model__free(f.model);
	free_names(&f);
	close(f.efd);
	return rc;
}
