// SPDX-License-Identifier: GPL-2.0-only
/* unwind-drive.c — drives the collector, the unwinder and the symbols
 * layer directly (no model, no kptop), for the unwinder's end-to-end tests
 * (tests/unwind-*.sh, when kptop --batch cannot sample yet) and its
 * benchmark (bench/unwind-bench.sh). Samples processes and writes one
 * folded line per sample ("outer;...;inner 1"); a summary on stderr.
 *
 * usage: unwind-drive -a | -p PID[,PID...] [-F HZ] [-d SECONDS] [-m fp|dwarf|auto]
 *        [-S STACK_BYTES] [-o FILE]
 * -a: every process (maps from the /proc snapshot and side-band).
 * Each sample's user stack comes from kp_unwinder__user_stack, as in the
 * resolver: fp: frame-pointer stacks, frameless leaves fixed; dwarf: every
 * sample unwound from its registers and stack copy; auto: fp until a
 * stack does not reach the entry, then the process is marked.
 * Stderr: "unwind-drive: samples N dwarf N ok N trunc N no_cfi N short N
 * bad N deep N leaf_fixed N cfi_refused N marked N taken N lost N cpu_s X
 * us_per_dwarf Y run_us_per_dwarf Z": CPU of the whole process (collector thread
 * included) per unwound sample, with and without the start-up (BPF load,
 * /proc snapshot), and inside the unwinder alone; then
 * "unwind-drive: marked pids: P..." (auto mode).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "stream/stream.h"
#include "symbols/symbols.h"
#include "unwind/unwind.h"

#define READ_CAP (8u << 20)
#define MAX_MAPS 4096

#define MAX_TARGETS 4096	/* a power of two: open-addressed by pid */

struct target {
	uint32_t pid;		/* 0: free slot */
	int marked;
	struct kp_unwind_map *maps;
	struct kp_sym_map *smaps;
	size_t nr_maps, cap;
};

struct drive {
	struct kp_collector *c;
	struct kp_decoder *dec;
	struct kp_symbols *syms;
	struct kp_unwinder *u;
	enum kp_unwind_mode mode;
	struct target t[MAX_TARGETS];
	int nr_targets;
	int all;		/* -a: every process is a target */
	FILE *out;
	uint64_t samples, dwarf, trunc, marked;
	double unwind_s;	/* thread CPU time inside kp_unwinder__user_stack */
};

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct target *target_of(struct drive *d, uint32_t pid, int add)
{
	for (uint32_t i = 0, h = pid * 2654435761u; pid && i < MAX_TARGETS; i++) {
		struct target *t = &d->t[(h + i) & (MAX_TARGETS - 1)];

		if (t->pid == pid)
			return t;
		if (t->pid == 0) {
			if (!add || d->nr_targets >= MAX_TARGETS / 2)
				return NULL;
			t->pid = pid;
			d->nr_targets++;
			return t;
		}
	}
	return NULL;
}

static void add_map(struct drive *d, const struct kp_rec_mmap *m)
{
	struct target *t = target_of(d, m->pid, d->all);
	char *path;

	if (!t || t->nr_maps >= MAX_MAPS)
		return;
	if (t->nr_maps == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		void *a = realloc(t->maps, cap * sizeof(*t->maps));
		void *b = a ? realloc(t->smaps, cap * sizeof(*t->smaps)) : NULL;

		if (a)
			t->maps = a;
		if (!b)
			return;
		t->smaps = b;
		t->cap = cap;
	}
	if (!(path = strdup(m->path)))
		return;
	t->maps[t->nr_maps] = (struct kp_unwind_map){
		.start = m->addr, .end = m->addr + m->len, .pgoff = m->pgoff,
		.maj = m->maj, .min = m->min, .ino = m->ino, .path = path };
	t->smaps[t->nr_maps] = (struct kp_sym_map){
		.pid = m->pid, .start = m->addr, .end = m->addr + m->len,
		.pgoff = m->pgoff, .maj = m->maj, .min = m->min, .ino = m->ino,
		.path = path };
	t->nr_maps++;
}

static void put_name(struct drive *d, struct target *t, uint64_t pc, int ret_addr)
{
	struct kp_sym_frame f[8];
	uint64_t a = ret_addr ? pc - 1 : pc;

	for (size_t i = t->nr_maps; i-- > 0;) {
		const struct kp_sym_map *m = &t->smaps[i];
		int n;

		if (a < m->start || a >= m->end)
			continue;
		n = kp_symbols__user(d->syms, m, a, f, 8);
		if (n > 0)
			fputs(f[n - 1].name, d->out);
		else
			fprintf(d->out, "[%s]", kp_symbols__module_name(d->syms, m, a));
		return;
	}
	fputs("[unknown]", d->out);
}

static void on_sample(struct drive *d, const struct kp_rec_sample *s)
{
	uint64_t pcs[KP_MAX_FRAMES + 1];
	struct target *t = target_of(d, s->pid, 0);
	enum kp_ustack_how how;
	int n, trunc = 0, want = 0;
	double t0;

	if (!t)
		return;
	d->samples++;
	t0 = thread_cpu_s();
	n = kp_unwinder__user_stack(d->u, s->pid, t->maps, t->nr_maps, s->regs,
				    (s->flags & KP_SAMPLE_REGS) ? s->nr_regs : 0,
				    s->stack, s->stack_len, s->uframes, s->nr_uframes,
				    pcs, KP_MAX_FRAMES, &trunc, &how,
				    d->mode == KP_UNWIND_AUTO && !t->marked ? &want : NULL);
	d->unwind_s += thread_cpu_s() - t0;
	if (how == KP_USTACK_DWARF)
		d->dwarf++;
	d->trunc += trunc;
	if (want && kp_collector__mark_dwarf(d->c, t->pid, 1) == 0) {
		t->marked = 1;
		d->marked++;
	}
	if (n <= 0)
		return;
	for (int i = n - 1; i >= 0; i--) {
		put_name(d, t, pcs[i], i > 0);
		fputc(i ? ';' : ' ', d->out);
	}
	fputs("1\n", d->out);
}

static int drain(struct drive *d, uint8_t *buf, int timeout_ms)
{
	struct kp_record r;
	struct kp_err err = { 0 };
	ssize_t n;
	size_t off, used;
	int ret;

	while ((n = kp_collector__read(d->c, buf, READ_CAP, timeout_ms)) > 0) {
		timeout_ms = 0;
		for (off = 0; off < (size_t)n; off += used) {
			ret = kp_decoder__next(d->dec, buf + off, (size_t)n - off, 0, &used, &r, &err);
			if (ret < 0) {
				fprintf(stderr, "unwind-drive: %s\n", err.msg);
				return -1;
			}
			if (ret == 0)
				break;
			if (r.type == KP_REC_MMAP)
				add_map(d, &r.mmap);
			else if (r.type == KP_REC_SAMPLE)
				on_sample(d, &r.sample);
		}
	}
	return n < 0 ? -1 : 0;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void summary(struct drive *d, double cpu, double cpu_run)
{
	struct kp_unwind_stats st;
	struct kp_collect_stats cs;

	kp_unwinder__stats(d->u, &st);
	kp_collector__stats(d->c, &cs);
	fprintf(stderr, "unwind-drive: samples %" PRIu64 " dwarf %" PRIu64 " ok %" PRIu64
		" trunc %" PRIu64 " no_cfi %" PRIu64 " short %" PRIu64 " bad %" PRIu64
		" deep %" PRIu64 " leaf_fixed %" PRIu64 " cfi_refused %" PRIu64
		" marked %" PRIu64 " taken %" PRIu64
		" lost %" PRIu64 " cpu_s %.3f us_per_dwarf %.1f run_us_per_dwarf %.1f"
		" unwind_us_per_sample %.1f\n",
		d->samples, d->dwarf, st.ok, d->trunc, st.no_cfi, st.short_stack,
		st.bad_address, st.too_deep, st.leaf_fixed, st.cfi_refused, d->marked, cs.taken,
		cs.lost_bpf_full + cs.lost_cpu_buffer + cs.lost_queue_full, cpu,
		d->dwarf ? cpu * 1e6 / (double)d->dwarf : 0.0,
		d->dwarf ? cpu_run * 1e6 / (double)d->dwarf : 0.0,
		d->samples ? d->unwind_s * 1e6 / (double)d->samples : 0.0);
	fprintf(stderr, "unwind-drive: marked pids:");
	for (int i = 0; i < MAX_TARGETS; i++)
		if (d->t[i].marked)
			fprintf(stderr, " %u", d->t[i].pid);
	fprintf(stderr, "\n");
}

static int parse(int argc, char **argv, struct kp_collect_opts *o, struct drive *d,
		 double *secs)
{
	int c;

	while ((c = getopt(argc, argv, "ap:F:d:m:S:o:")) != -1) {
		switch (c) {
		case 'p':
			for (char *p = optarg; *p; p += *p == ',')
				target_of(d, (uint32_t)strtoul(p, &p, 10), 1);
			break;
		case 'a': d->all = 1; break;
		case 'F': o->freq_hz = (uint32_t)atoi(optarg); break;
		case 'd': *secs = atof(optarg); break;
		case 'S': o->stack_bytes = (uint32_t)atoi(optarg); break;
		case 'o':
			if (!(d->out = fopen(optarg, "w")))
				return perror(optarg), -1;
			break;
		case 'm':
			d->mode = !strcmp(optarg, "fp") ? KP_UNWIND_FP :
				  !strcmp(optarg, "dwarf") ? KP_UNWIND_DWARF : KP_UNWIND_AUTO;
			break;
		default: return -1;
		}
	}
	o->unwind = d->mode;
	return d->nr_targets || d->all ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct drive d = { .mode = KP_UNWIND_DWARF };
	struct kp_collect_opts o = { .user_only = 1 };
	struct kp_symbols_opts so = { 0 };
	struct kp_err err = { 0 };
	double secs = 2, end, cpu0, cpu1;
	uint8_t *buf = malloc(READ_CAP);
	int rc = 1;

	d.out = stdout;
	if (!buf || parse(argc, argv, &o, &d, &secs)) {
		fprintf(stderr, "usage: unwind-drive -a | -p PID[,PID] [-F HZ] [-d S] [-m fp|dwarf|auto] [-S BYTES] [-o FILE]\n");
		return 2;
	}
	uint32_t pids[MAX_TARGETS];
	size_t nr_pids = 0;

	for (int i = 0; i < MAX_TARGETS && !d.all; i++)
		if (d.t[i].pid)
			pids[nr_pids++] = d.t[i].pid;
	o.pids = pids;
	o.nr_pids = nr_pids;
	if (!(d.dec = kp_decoder__new()) || !(d.u = kp_unwinder__new(&err)) ||
	    !(d.syms = kp_symbols__new(&so, &err)))
		goto out;
	cpu0 = cpu_s();
	if (!(d.c = kp_collector__new(&o, &err)))
		goto out;
	cpu1 = cpu_s();	/* after loading BPF and the /proc snapshot */
	for (end = mono_s() + secs; mono_s() < end;)
		if (drain(&d, buf, 100))
			goto out;
	kp_collector__stop(d.c);
	if (drain(&d, buf, 0))
		goto out;
	summary(&d, cpu_s() - cpu0, cpu_s() - cpu1);
	rc = 0;
out:
	if (rc && err.msg[0])
		fprintf(stderr, "unwind-drive: %s\n", err.msg);
	kp_collector__free(d.c);
	kp_symbols__free(d.syms);
	kp_unwinder__free(d.u);
	kp_decoder__free(d.dec);
	for (int t = 0; t < MAX_TARGETS; t++) {
		for (size_t i = 0; i < d.t[t].nr_maps; i++)
			free((void *)d.t[t].maps[i].path);
		free(d.t[t].maps);
		free(d.t[t].smaps);
	}
	if (d.out != stdout)
		fclose(d.out);
	free(buf);
	return rc;
}
