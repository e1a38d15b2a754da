// SPDX-License-Identifier: GPL-2.0-only
/* churn-mem.c — where the model's memory goes under process churn
 * (`make bench` builds it; never run by `make check`).
 *
 * Replays a saved stream (kptop -w FILE) into a model with the fake
 * resolver of the model tests (names by offset, no files read), and
 * every EVERY exited processes prints the model's heap (mallinfo2), its
 * breakdown by structure (kp_model__mem) and the bytes per process seen,
 * so a growth per exited process shows where it lives.
 *
 * Usage: churn-mem FILE [EVERY (default 10000)] [max_nodes] [live]
 * live (1): the live view's model (new stacks named late, the views'
 * structure kept as stacks are hung: kptop without --batch), else the
 * model of the tests (named at once, views built when asked). live 2:
 * that model, and the functions view made (100 rows) at every 2 s of the
 * stream's sample times, as the live view's refresh does: the CPU of the
 * model under churn, views and merges included, for perf or callgrind.
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "stream/stream.h"
#include "../tests/model-fake.h"

static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

#define REFRESH_NS 2000000000ull

/* The live view's refresh: the model told the time, the flat view made
 * again over the last one. */
static int refresh(struct kp_model *m, uint64_t now, struct kp_view **v)
{
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT, .sort = KP_SORT_SELF,
				  .max_rows = 100 };

	kp_model__refresh(m, now);
	return kp_model__view_reuse(m, &o, *v, v);
}

static void print_mem(struct kp_model *m, size_t heap, uint64_t procs, uint64_t exits)
{
	struct kp_model_mem it[40];
	struct kp_model_summary s;
	size_t i, n = kp_model__mem(m, it, 40);

	kp_model__summary(m, &s);
	printf("%llu processes seen, %llu exits: heap %.1f MB (%.0f B per process); "
	       "%llu procs, %llu threads, %llu nodes, %llu stacks-folded samples of %llu\n",
	       (unsigned long long)procs, (unsigned long long)exits, heap / 1e6,
	       procs ? (double)heap / procs : 0, (unsigned long long)s.processes,
	       (unsigned long long)s.threads, (unsigned long long)s.nodes,
	       (unsigned long long)s.folded_samples, (unsigned long long)s.samples);
	for (i = 0; i < n && i < 40; i++)
		if (it[i].bytes > 100000)
			printf("    %-22s %8.1f MB %6.0f B/process\n", it[i].name,
			       it[i].bytes / 1e6, procs ? (double)it[i].bytes / procs : 0);
}

int main(int argc, char **argv)
{
	uint64_t every = argc > 2 ? strtoull(argv[2], NULL, 0) : 10000;
	size_t max_nodes = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
	int live = argc > 4 ? atoi(argv[4]) : 0;
	uint64_t next_view = 0;
	struct kp_view *v = NULL;
	struct fake *f = calloc(1, sizeof(*f));
	struct kp_decoder *d = kp_decoder__new();
	struct kp_stream_header h;
	struct kp_err err = { 0 };
	struct kp_record r;
	struct kp_model *m;
	struct stat st;
	uint64_t off, procs = 0, exits = 0;
	const uint8_t *buf;
	size_t h0, used;
	int fd, rc;

	if (argc < 2 || !f || !d)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return perror(argv[1]), 1;
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (buf == MAP_FAILED || kp_stream_header_decode(buf, (size_t)st.st_size, &h, &err))
		return fprintf(stderr, "%s: not a stream\n", argv[1]), 1;
	kp_decoder__set_minor(d, h.minor);
	f->instant = 1;
	h0 = heap_used();
	if (live)
		m = kp_model__new(&(struct kp_model_opts){ .max_nodes = max_nodes,
			.resolver = { .ops = &fake_ops, .ctx = f },
			.defer_stacks = 1, .eager_views = 1 });
	else
		m = fake_model(f, max_nodes);
	if (!m)
		return 1;
	for (off = h.header_len; off < (uint64_t)st.st_size; off += used) {
		rc = kp_decoder__next(d, buf + off, (size_t)st.st_size - off, off, &used, &r, &err);
		if (rc <= 0)
			break;
		if (r.type == KP_REC_PROCESS || r.type == KP_REC_EXEC)
			procs++;
		if (r.type == KP_REC_EXIT && r.exit.pid == r.exit.tid &&
		    ++exits % every == 0)
			print_mem(m, heap_used() - h0, procs, exits);
		if (kp_model__feed(m, &r) < 0)
			return fprintf(stderr, "feed failed\n"), 1;
		if (live != 2 || r.type != KP_REC_SAMPLE || r.sample.time_ns < next_view)
			continue;
		if (next_view && refresh(m, r.sample.time_ns, &v))
			return fprintf(stderr, "view failed\n"), 1;
		next_view = r.sample.time_ns + REFRESH_NS;
	}
	print_mem(m, heap_used() - h0, procs, exits);
	kp_view__free(v);
	kp_model__free(m);
	kp_decoder__free(d);
	free(f);
	return 0;
}
