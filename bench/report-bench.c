// SPDX-License-Identifier: GPL-2.0-only
/* report-bench.c — time to write each batch report format from a model
 * holding many distinct stacks (`make bench`; never run by `make check`).
 *
 * A synthetic model: NR_STACKS distinct stacks (depth 6..20, a quarter
 * with kernel frames) in NR_PROCS processes, names from a resolver that
 * answers at once (one function per 0x100 bytes of code), each stack fed
 * SAMPLES_PER times. Each format is written to /dev/null; the bench
 * prints its time and its size (written to a memory buffer).
 *
 * Usage: report-bench [stacks]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"
#include "report/report.h"

#define NR_PROCS 16
#define SAMPLES_PER 3
#define NAMES 8192

static char names[NAMES][24];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int symbolize(void *ctx, const struct kp_map_info *map, uint64_t addr,
		     struct kp_frame_info *out, int max)
{
	uint64_t off = map ? addr - map->addr + map->pgoff : addr;

	(void)ctx;
	memset(out, 0, sizeof(*out) * (size_t)max);
	out[0].name = names[(off >> 8) % NAMES];
	return 1;
}

static const struct kp_resolver_ops ops = { .symbolize = symbolize };

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void feed_procs(struct kp_model *m)
{
	struct kp_record r;

	for (uint32_t p = 1; p <= NR_PROCS; p++) {
		r = (struct kp_record){ .type = KP_REC_PROCESS };
		r.process = (struct kp_rec_process){ .pid = p, .gpid = p,
			.start_ns = p, .comm = "bench", .exe = "/bin/bench" };
		kp_model__feed(m, &r);
		r = (struct kp_record){ .type = KP_REC_MMAP };
		r.mmap = (struct kp_rec_mmap){ .pid = p, .tid = p,
			.addr = 0x400000, .len = 1 << 24, .prot = 5,
			.path = "/bin/bench" };
		kp_model__feed(m, &r);
	}
}

static void feed_stacks(struct kp_model *m, size_t nr_stacks)
{
	uint64_t seed = 88172645463325252ULL, uf[KP_MAX_FRAMES], kf[8];
	struct kp_record r = { .type = KP_REC_SAMPLE };

	for (size_t i = 0; i < nr_stacks; i++) {
		int nu = 6 + (int)(rnd(&seed) % 15), nk = i % 4 ? 0 : 4;
		uint32_t pid = 1 + (uint32_t)(i % NR_PROCS);

		for (int f = 0; f < nu; f++)	/* shared roots, varied leaves */
			uf[f] = 0x400000 + ((f < 3 ? (uint64_t)f * 7 :
					     rnd(&seed) % NAMES) << 8) + 0x10;
		for (int f = 0; f < nk; f++)
			kf[f] = 0xffffffff81000000ULL + (rnd(&seed) % 512) * 0x100;
		for (int s = 0; s < SAMPLES_PER; s++) {
			r.sample = (struct kp_rec_sample){ .pid = pid, .tid = pid,
				.gpid = pid, .gtid = pid, .nr_uframes = (uint16_t)nu,
				.uframes = uf, .nr_kframes = (uint16_t)nk, .kframes = kf,
				.time_ns = i };
			strcpy(r.sample.comm, "bench");
			kp_model__feed(m, &r);
		}
	}
}

int main(int argc, char **argv)
{
	size_t nr_stacks = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
	struct kp_model_opts o = { .resolver = { &ops, NULL } };
	struct kp_report_info info = { .freq_hz = 999, .ncpus = 2, .duration_s = 10 };
	struct kp_model *m;
	struct kp_err err = { 0 };
	double t;

	for (int i = 0; i < NAMES; i++)
		snprintf(names[i], sizeof(names[i]), "function_%04x", i);
	m = kp_model__new(&o);
	if (!m)
		return 1;
	t = now();
	feed_procs(m);
	feed_stacks(m, nr_stacks);
	printf("model: %zu stacks x %d samples fed in %.0f ms\n", nr_stacks,
	       SAMPLES_PER, (now() - t) * 1e3);
	for (int f = 0; f < KP_FORMAT_MAX; f++) {
		FILE *null = fopen("/dev/null", "w");
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		double ms;

		if (!null || !mem)
			return 1;
		t = now();
		if (kp_report__write(null, (enum kp_format)f, m, &info, &err)) {
			fprintf(stderr, "report-bench: %s\n", err.msg);
			return 1;
		}
		ms = (now() - t) * 1e3;
		kp_report__write(mem, (enum kp_format)f, m, &info, &err);
		fclose(mem);
		fclose(null);
		printf("%-10s %8.1f ms %10zu bytes\n", kp_format_name((enum kp_format)f),
		       ms, len);
		free(buf);
	}
	kp_model__free(m);
	return 0;
}
