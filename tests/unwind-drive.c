/* unwind-drive.c — drives the collector, the unwinder and the symbols
 * layer directly (no model, no kptop), for the unwinder's end-to-end tests
 * (tests/unwind-*.sh, when kptop --batch cannot sample yet) and its
 * benchmark (bench/unwind-bench.sh). Samples one process and writes one
 * folded line per sample ("outer;...;inner 1"); a summary on stderr.
 *
 * usage: unwind-drive -p PID [-F HZ] [-d SECONDS] [-m fp|dwarf|auto]
 *        [-S STACK_BYTES] [-o FILE]
 * fp: frame-pointer stacks, frameless leaves fixed (kp_unwinder__fix_leaf);
 * dwarf: every sample unwound from its registers and stack copy; auto: fp
 * until a stack does not reach the entry, then the process is marked.
 * Stderr: "unwind-drive: samples N dwarf N ok N trunc N no_cfi N short N
 * bad N deep N leaf_fixed N marked N taken N lost N cpu_s X us_per_dwarf Y".
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
#include "model/stream.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"

#define READ_CAP (8u << 20)
#define MAX_MAPS 4096

struct drive {
	struct kp_collector *c;
	struct kp_decoder *dec;
	struct kp_symbols *syms;
	struct kp_unwinder *u;
	enum kp_unwind_mode mode;
	uint32_t pid;
	FILE *out;
	struct kp_unwind_map maps[MAX_MAPS];
	struct kp_sym_map smaps[MAX_MAPS];
	size_t nr_maps;
	uint64_t samples, dwarf, trunc, marked;
};

static void add_map(struct drive *d, const struct kp_rec_mmap *m)
{
	char *path;

	if (m->pid != d->pid || d->nr_maps >= MAX_MAPS || !(path = strdup(m->path)))
		return;
	d->maps[d->nr_maps] = (struct kp_unwind_map){
		.start = m->addr, .end = m->addr + m->len, .pgoff = m->pgoff,
		.maj = m->maj, .min = m->min, .ino = m->ino, .path = path };
	d->smaps[d->nr_maps] = (struct kp_sym_map){
		.pid = m->pid, .start = m->addr, .end = m->addr + m->len,
		.pgoff = m->pgoff, .maj = m->maj, .min = m->min, .ino = m->ino,
		.path = path };
	d->nr_maps++;
}

static void put_name(struct drive *d, uint64_t pc, int ret_addr)
{
	struct kp_sym_frame f[8];
	uint64_t a = ret_addr ? pc - 1 : pc;

	for (size_t i = d->nr_maps; i-- > 0;) {
		const struct kp_sym_map *m = &d->smaps[i];
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

static void maybe_mark(struct drive *d, const uint64_t *pcs, int n)
{
	if (d->mode != KP_UNWIND_AUTO || d->marked)
		return;
	if (kp_unwinder__reaches_entry(d->u, d->pid, d->maps, d->nr_maps, pcs, n) == 0 &&
	    kp_collector__mark_dwarf(d->c, d->pid, 1) == 0)
		d->marked = 1;
}

static void on_sample(struct drive *d, const struct kp_rec_sample *s)
{
	uint64_t pcs[KP_MAX_FRAMES + 1];
	int n, trunc = 0;

	if (s->pid != d->pid)
		return;
	d->samples++;
	if ((s->flags & KP_SAMPLE_REGS) && s->stack_len > 64 && d->mode != KP_UNWIND_FP) {
		n = kp_unwinder__unwind(d->u, s->pid, d->maps, d->nr_maps, s->regs,
					s->nr_regs, s->stack, s->stack_len, pcs,
					KP_MAX_FRAMES, &trunc);
		d->dwarf++;
		d->trunc += trunc;
	} else {
		n = s->nr_uframes;
		memcpy(pcs, s->uframes, (size_t)n * sizeof(*pcs));
		if (s->flags & KP_SAMPLE_REGS)
			n = kp_unwinder__fix_leaf(d->u, s->pid, d->maps, d->nr_maps,
						  s->regs, s->nr_regs, s->stack,
						  s->stack_len, pcs, n, KP_MAX_FRAMES);
		if (n > 0)
			maybe_mark(d, pcs, n);
	}
	if (n <= 0)
		return;
	for (int i = n - 1; i >= 0; i--) {
		put_name(d, pcs[i], i > 0);
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

static void summary(struct drive *d, double cpu)
{
	struct kp_unwind_stats st;
	struct kp_collect_stats cs;

	kp_unwinder__stats(d->u, &st);
	kp_collector__stats(d->c, &cs);
	fprintf(stderr, "unwind-drive: samples %" PRIu64 " dwarf %" PRIu64 " ok %" PRIu64
		" trunc %" PRIu64 " no_cfi %" PRIu64 " short %" PRIu64 " bad %" PRIu64
		" deep %" PRIu64 " leaf_fixed %" PRIu64 " marked %" PRIu64 " taken %" PRIu64
		" lost %" PRIu64 " cpu_s %.3f us_per_dwarf %.1f\n",
		d->samples, d->dwarf, st.ok, d->trunc, st.no_cfi, st.short_stack,
		st.bad_address, st.too_deep, st.leaf_fixed, d->marked, cs.taken,
		cs.lost_bpf_full + cs.lost_cpu_buffer + cs.lost_queue_full, cpu,
		d->dwarf ? cpu * 1e6 / (double)d->dwarf : 0.0);
}

static int parse(int argc, char **argv, struct kp_collect_opts *o, struct drive *d,
		 double *secs)
{
	int c;

	while ((c = getopt(argc, argv, "p:F:d:m:S:o:")) != -1) {
		switch (c) {
		case 'p': d->pid = (uint32_t)atoi(optarg); break;
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
	return d->pid ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct drive d = { .mode = KP_UNWIND_DWARF };
	struct kp_collect_opts o = { .user_only = 1 };
	struct kp_symbols_opts so = { 0 };
	struct kp_err err = { 0 };
	double secs = 2, end, cpu0;
	uint8_t *buf = malloc(READ_CAP);
	int rc = 1;

	d.out = stdout;
	if (!buf || parse(argc, argv, &o, &d, &secs)) {
		fprintf(stderr, "usage: unwind-drive -p PID [-F HZ] [-d S] [-m fp|dwarf|auto] [-S BYTES] [-o FILE]\n");
		return 2;
	}
	/* The collector's own pid filter is not used (it crashed in
	 * bpfload.c's fill_filters when this was written): every process is
	 * sampled, and samples of others are ignored here. */
	if (!(d.dec = kp_decoder__new()) || !(d.u = kp_unwinder__new(&err)) ||
	    !(d.syms = kp_symbols__new(&so, &err)))
		goto out;
	cpu0 = cpu_s();
	if (!(d.c = kp_collector__new(&o, &err)))
		goto out;
	for (end = mono_s() + secs; mono_s() < end;)
		if (drain(&d, buf, 100))
			goto out;
	kp_collector__stop(d.c);
	if (drain(&d, buf, 0))
		goto out;
	summary(&d, cpu_s() - cpu0);
	rc = 0;
out:
	if (rc && err.msg[0])
		fprintf(stderr, "unwind-drive: %s\n", err.msg);
	kp_collector__free(d.c);
	kp_symbols__free(d.syms);
	kp_unwinder__free(d.u);
	kp_decoder__free(d.dec);
	for (size_t i = 0; i < d.nr_maps; i++)
		free((void *)d.maps[i].path);
	if (d.out != stdout)
		fclose(d.out);
	free(buf);
	return rc;
}
