// SPDX-License-Identifier: GPL-2.0-only
/* collect-probe.c — test driver of the collector (tests/collect-*.sh and
 * bench/collect-bench.sh): starts a kp_collector with the given options,
 * optionally runs a command, reads and decodes the queue, and prints one
 * line per record plus a STATS line and an INVARIANT line.
 *
 * usage: collect-probe [-F HZ] [-d SECONDS] [-q QUEUE_LIMIT] [-b CPU_BUFFER]
 *        [-s STALL_MS] [-p PID] [-c CGROUP] [-u fp|dwarf|auto]
 *        [-m stopstart|flush] [-n] [-Q] [-- CMD ARGS]
 *   -d   sample this long (default 1 s; with a command: until it exits;
 *        0 without a command: until SIGINT or SIGTERM)
 *   -C COMM  print "COMM_SAMPLES n": samples of that comm (benchmark)
 *   -s   read nothing for the first STALL_MS (overload test)
 *   -m stopstart  sample d/2, stop, read, start, sample d/2
 *   -m flush      after d, flush and read with no wait; print FLUSH lines
 *   -n   no /proc snapshot        -Q  print only the summary lines
 *   -U / -K  user stacks only / kernel stacks only
 *   -D   mark the command's process for DWARF stack copies (-u auto)
 *   -O MIN_US  off-CPU time too (--off-cpu, --off-cpu-min MIN_US): O lines,
 *        and at the end (detached, drained) OFFSTATS and OFFINVARIANT
 * Lines: META, P(rocess), E(xec), X (exit), T(hread), M(map), S(ample),
 * L(ost), C(group), O(ff-CPU), then STATS and INVARIANT ok|BAD. The command's
 * standard output goes to standard error.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "stream/stream.h"

#define READ_CAP (8u << 20)
#define MAX_MAPS 65536

struct map { uint32_t pid; uint64_t addr, len, pgoff; char *path; };

struct probe {
	struct kp_collector *c;
	struct kp_decoder *dec;
	uint8_t *buf;
	int quiet;
	const char *count_comm;
	uint64_t comm_samples;
	uint64_t samples, records, last_sample_ns;
	uint64_t sample_records;	/* SAMPLE records (samples counts weights) */
	uint64_t off_records, off_intervals, off_ns;	/* OFFCPU records read */
	struct map *maps;
	size_t nr_maps;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void add_map(struct probe *p, const struct kp_rec_mmap *m)
{
	if (p->nr_maps >= MAX_MAPS)
		return;
	p->maps[p->nr_maps++] = (struct map){ m->pid, m->addr, m->len, m->pgoff,
					      strdup(m->path) };
}

/* Newest mapping of pid that contains addr. */
static const struct map *find_map(const struct probe *p, uint32_t pid, uint64_t addr)
{
	for (size_t i = p->nr_maps; i-- > 0;)
		if (p->maps[i].pid == pid && addr >= p->maps[i].addr &&
		    addr - p->maps[i].addr < p->maps[i].len)
			return &p->maps[i];
	return NULL;
}

static void print_sample(struct probe *p, const struct kp_rec_sample *s)
{
	printf("S pid=%u tid=%u cpu=%u flags=%#x time=%" PRIu64 " comm=%s nk=%u nu=%u regs=%u stack=%u w=%u u=",
	       s->pid, s->tid, s->cpu, s->flags, s->time_ns, s->comm,
	       s->nr_kframes, s->nr_uframes, s->nr_regs, s->stack_len, s->weight);
	for (unsigned i = 0; i < s->nr_uframes; i++) {
		const struct map *m = find_map(p, s->pid, s->uframes[i]);

		if (m)
			printf("%s%s+%#" PRIx64, i ? ";" : "", m->path,
			       s->uframes[i] - m->addr + m->pgoff);
		else
			printf("%s?+%#" PRIx64, i ? ";" : "", s->uframes[i]);
	}
	printf("\n");
}

static void print_offcpu(struct probe *p, const struct kp_rec_offcpu *o)
{
	printf("O pid=%u tid=%u comm=%s state=%u off_ns=%" PRIu64 " count=%u "
	       "waker=%u/%u/%s nk=%u nu=%u regs=%u stack=%u flags=%#x u=",
	       o->s.pid, o->s.tid, o->s.comm, o->state, o->off_ns, o->count,
	       o->waker_pid, o->waker_tid, o->waker_comm, o->s.nr_kframes,
	       o->s.nr_uframes, o->s.nr_regs, o->s.stack_len, o->s.flags);
	for (unsigned i = 0; i < o->s.nr_uframes; i++) {
		const struct map *m = find_map(p, o->s.pid, o->s.uframes[i]);

		if (m)
			printf("%s%s+%#" PRIx64, i ? ";" : "", m->path,
			       o->s.uframes[i] - m->addr + m->pgoff);
		else
			printf("%s?+%#" PRIx64, i ? ";" : "", o->s.uframes[i]);
	}
	printf("\n");
}

static void print_record(struct probe *p, const struct kp_record *r)
{
	switch (r->type) {
	case KP_REC_META:
		printf("META version=%s freq=%u ncpus=%u\n", r->meta.version,
		       r->meta.freq_hz, r->meta.ncpus);
		break;
	case KP_REC_PROCESS:
		printf("P pid=%u ppid=%u start=%" PRIu64 " flags=%#x comm=%s exe=%s\n",
		       r->process.pid, r->process.ppid, r->process.start_ns,
		       r->process.flags, r->process.comm, r->process.exe);
		break;
	case KP_REC_EXEC:
		printf("E pid=%u tid=%u time=%" PRIu64 " comm=%s exe=%s\n", r->exec.pid,
		       r->exec.tid, r->exec.time_ns, r->exec.comm, r->exec.exe);
		break;
	case KP_REC_EXIT:
		printf("X pid=%u tid=%u\n", r->exit.pid, r->exit.tid);
		break;
	case KP_REC_THREAD:
		printf("T pid=%u tid=%u comm=%s\n", r->thread.pid, r->thread.tid,
		       r->thread.comm);
		break;
	case KP_REC_MMAP:
		printf("M pid=%u addr=%#" PRIx64 " len=%#" PRIx64 " pgoff=%#" PRIx64 " bid=%u path=%s\n",
		       r->mmap.pid, r->mmap.addr, r->mmap.len, r->mmap.pgoff,
		       r->mmap.build_id_len, r->mmap.path);
		break;
	case KP_REC_SAMPLE:
		print_sample(p, &r->sample);
		break;
	case KP_REC_LOST:
		printf("L stage=%u cpu=%d count=%" PRIu64 "\n", r->lost.stage,
		       (int)r->lost.cpu, r->lost.count);
		break;
	case KP_REC_CGROUP:
		printf("C id=%" PRIu64 " path=%s\n", r->cgroup.id, r->cgroup.path);
		break;
	case KP_REC_OFFCPU:
		print_offcpu(p, &r->offcpu);
		break;
	default:
		printf("? type=%u\n", r->type);
	}
}

/* Read and decode whatever is queued (waiting up to timeout_ms first).
 * Returns the number of samples read, or -1 on a decode error. */
/* Read and print records until the queue is empty, or after max_reads
 * reads (0: no limit); the first read waits up to timeout_ms. */
static long drain_queue(struct probe *p, int timeout_ms, int max_reads)
{
	struct kp_record r;
	struct kp_err err = { 0 };
	long samples = 0;
	ssize_t n;
	size_t off, used;
	int ret;

	while ((n = kp_collector__read(p->c, p->buf, READ_CAP, timeout_ms)) > 0) {
		timeout_ms = 0;
		for (off = 0; off < (size_t)n; off += used) {
			ret = kp_decoder__next(p->dec, p->buf + off, (size_t)n - off, 0,
					       &used, &r, &err);
			if (ret <= 0) {
				fprintf(stderr, "collect-probe: decode: %s\n",
					ret ? err.msg : "record cut at a read boundary");
				return -1;
			}
			p->records++;
			if (r.type == KP_REC_MMAP)
				add_map(p, &r.mmap);
			if (r.type == KP_REC_OFFCPU) {
				p->off_records++;
				p->off_intervals += r.offcpu.count;
				p->off_ns += r.offcpu.off_ns;
			}
			if (r.type == KP_REC_SAMPLE) {
				samples += r.sample.weight;	/* a run of idle ones */
				p->sample_records++;
				if (p->count_comm && !strcmp(p->count_comm, r.sample.comm))
					p->comm_samples += r.sample.weight;
				if (r.sample.time_ns > p->last_sample_ns)
					p->last_sample_ns = r.sample.time_ns;
			}
			if (!p->quiet)
				print_record(p, &r);
		}
		if (max_reads && --max_reads == 0)
			break;
	}
	if (n < 0) {
		fprintf(stderr, "collect-probe: read: %s\n", strerror((int)-n));
		return -1;
	}
	p->samples += (uint64_t)samples;
	return samples;
}

/* SIGINT or SIGTERM arrived (they are blocked: see main). */
static int interrupted(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGINT) == 1 ||
				     sigismember(&set, SIGTERM) == 1);
}

/* Sample for ms milliseconds (ms == 0 and no child: until a signal),
 * reading as records are published (after the stall). */
static int run_for(struct probe *p, long ms, long stall_ms, pid_t child)
{
	uint64_t end = mono_ns() + (uint64_t)ms * 1000000ull;
	int status, forever = ms == 0 && child <= 0;

	if (stall_ms > 0)
		sleep_ms(stall_ms);
	while ((child > 0 || forever || mono_ns() < end) && !interrupted()) {
		if (drain_queue(p, 200, 1) < 0)
			return -1;
		if (child > 0 && waitpid(child, &status, WNOHANG) == child)
			child = 0;
	}
	return 0;
}

static int check_invariant(struct probe *p, const char *tag)
{
	struct kp_collect_stats s;
	uint64_t rhs;

	kp_collector__stats(p->c, &s);
	rhs = s.delivered + s.lost_bpf_full + s.lost_cpu_buffer + s.lost_queue_full +
	      s.queued;
	printf("STATS%s taken=%" PRIu64 " delivered=%" PRIu64 " read=%" PRIu64
	       " queued=%" PRIu64 " bpf_full=%" PRIu64 " cpu_buffer=%" PRIu64
	       " queue_full=%" PRIu64 " sideband=%" PRIu64 " kerr=%" PRIu64
	       " uerr=%" PRIu64 " dwarf=%" PRIu64 " dwarf_spec=%" PRIu64 " records=%" PRIu64
	       " sample_records=%" PRIu64 "\n", tag,
	       s.taken, s.delivered, p->samples, s.queued, s.lost_bpf_full,
	       s.lost_cpu_buffer, s.lost_queue_full, s.lost_sideband,
	       s.stack_err_kernel, s.stack_err_user, s.dwarf_samples, s.dwarf_spec, s.records,
	       p->sample_records);
	if (s.taken != rhs || s.delivered != p->samples || s.queued != 0) {
		printf("INVARIANT%s BAD taken=%" PRIu64 " sum=%" PRIu64 "\n", tag,
		       s.taken, rhs);
		return 1;
	}
	printf("INVARIANT%s ok\n", tag);
	return 0;
}

/* After the off-CPU program is detached and everything read: every
 * interval ended is in a record read or counted lost, when min is 0
 * (nothing waits in BPF); with a min, at most the ones still held. */
static int check_offcpu(struct probe *p, int min0)
{
	struct kp_collect_stats s;
	uint64_t rhs;

	kp_collector__stats(p->c, &s);
	rhs = p->off_intervals + s.off_lost;
	printf("OFFSTATS on=%d switches=%" PRIu64 " intervals=%" PRIu64 " ns=%" PRIu64
	       " records=%" PRIu64 " short=%" PRIu64 " lost=%" PRIu64 " lost_ns=%"
	       PRIu64 " unpaired=%" PRIu64 " wakeups=%" PRIu64 " read_records=%"
	       PRIu64 " read_intervals=%" PRIu64 " read_ns=%" PRIu64 "\n", s.off_on,
	       s.off_switches, s.off_intervals, s.off_ns, s.off_records, s.off_short,
	       s.off_lost, s.off_lost_ns, s.off_unpaired, s.off_wakeups,
	       p->off_records, p->off_intervals, p->off_ns);
	if (s.off_records != p->off_records || (min0 ? s.off_intervals != rhs :
						s.off_intervals < rhs)) {
		printf("OFFINVARIANT BAD intervals=%" PRIu64 " read+lost=%" PRIu64 "\n",
		       s.off_intervals, rhs);
		return 1;
	}
	printf("OFFINVARIANT ok\n");
	return 0;
}

static int mode_flush(struct probe *p)
{
	struct kp_collect_stats s;
	uint64_t t0;
	long n;
	int bad = 0;

	for (int i = 0; i < 10; i++) {
		sleep_ms(7 + 3 * i);
		t0 = mono_ns();
		kp_collector__flush(p->c);
		n = drain_queue(p, 0, 0);
		printf("FLUSH n=%ld lag_us=%" PRId64 "\n", n,
		       (int64_t)(t0 - p->last_sample_ns) / 1000);
		bad |= n < 0;
	}
	kp_collector__stats(p->c, &s);
	return bad || !s.sampling;
}

static int mode_stopstart(struct probe *p, long ms)
{
	struct kp_collect_stats a, b;
	uint64_t t_stop, t_start, before;
	int bad;

	if (run_for(p, ms / 2, 0, 0))
		return 1;
	kp_collector__stop(p->c);
	t_stop = mono_ns();
	if (drain_queue(p, 0, 0) < 0)
		return 1;
	bad = check_invariant(p, "1");
	before = p->samples;
	kp_collector__stats(p->c, &a);
	sleep_ms(300);
	kp_collector__stats(p->c, &b);
	printf("PAUSE taken_delta=%" PRIu64 " sampling=%d\n", b.taken - a.taken, b.sampling);
	t_start = mono_ns();
	kp_collector__start(p->c);
	if (run_for(p, ms / 2, 0, 0))
		return 1;
	kp_collector__stop(p->c);
	if (drain_queue(p, 0, 0) < 0)
		return 1;
	printf("PHASES first=%" PRIu64 " second=%" PRIu64 " stop=%" PRIu64 " start=%" PRIu64 "\n",
	       before, p->samples - before, t_stop, t_start);
	return bad;
}

static pid_t spawn(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* the command's output on stderr: written into our stdout, it
		 * would land inside a record line at a buffer boundary */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(argv[0], argv);
		perror("collect-probe: exec");
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	struct kp_collect_opts o = { 0 };
	struct probe p = { 0 };
	struct kp_err err = { 0 };
	const char *mode = "";
	long ms = 1000, stall = 0;
	uint32_t pids[64];
	pid_t child = 0;
	sigset_t sigs;
	int opt, bad = 0, mark = 0;

	while ((opt = getopt(argc, argv, "F:d:q:b:s:p:m:u:c:C:O:nQUKD")) != -1) {
		switch (opt) {
		case 'F': o.freq_hz = (uint32_t)atol(optarg); break;
		case 'd': ms = (long)(atof(optarg) * 1000); break;
		case 'q': o.queue_limit_bytes = (size_t)atol(optarg); break;
		case 'b': o.cpu_buffer_bytes = (size_t)atol(optarg); break;
		case 's': stall = atol(optarg); break;
		case 'p':
			if (o.nr_pids < 64)
				pids[o.nr_pids++] = (uint32_t)atol(optarg);
			break;
		case 'm': mode = optarg; break;
		case 'u': o.unwind = !strcmp(optarg, "dwarf") ? KP_UNWIND_DWARF :
				     !strcmp(optarg, "fp") ? KP_UNWIND_FP : KP_UNWIND_AUTO;
			  break;
		case 'c': o.cgroup_path = optarg; break;
		case 'n': o.no_snapshot = 1; break;
		case 'C': p.count_comm = optarg; break;
		case 'U': o.user_only = 1; break;
		case 'D': mark = 1; break;
		case 'K': o.kernel_only = 1; break;
		case 'Q': p.quiet = 1; break;
		case 'O':
			o.off_cpu = KP_OFFCPU_ON;
			o.off_cpu_min_ns = (uint64_t)atol(optarg) * 1000;
			break;
		default: return 2;
		}
	}
	o.pids = pids;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);	/* polled by interrupted() */
	p.c = kp_collector__new(&o, &err);
	if (!p.c) {
		fprintf(stderr, "collect-probe: %s\n", err.msg);
		return err.code == KP_ENOBPF || err.code == KP_ENOPERF ? 3 : 1;
	}
	p.buf = malloc(READ_CAP);
	p.maps = calloc(MAX_MAPS, sizeof(*p.maps));
	p.dec = kp_decoder__new();
	if (!p.buf || !p.maps || !p.dec)
		return 1;
	if (optind < argc)
		child = spawn(argv + optind);
	if (mark && child > 0 && kp_collector__mark_dwarf(p.c, (uint32_t)child, 1))
		bad = 1;
	if (!strcmp(mode, "stopstart")) {
		bad = mode_stopstart(&p, ms);
	} else {
		bad = run_for(&p, ms, stall, child);
		if (!bad && !strcmp(mode, "flush"))
			bad = mode_flush(&p);
		kp_collector__stop(p.c);
		if (o.off_cpu)
			kp_collector__set_offcpu(p.c, 0);
		kp_collector__flush(p.c);
		bad |= drain_queue(&p, 0, 0) < 0;
	}
	bad |= check_invariant(&p, "");
	if (o.off_cpu)
		bad |= check_offcpu(&p, o.off_cpu_min_ns == 0);
	if (p.count_comm)
		printf("COMM_SAMPLES %" PRIu64 "\n", p.comm_samples);
	kp_collector__free(p.c);
	kp_decoder__free(p.dec);
	for (size_t i = 0; i < p.nr_maps; i++)
		free(p.maps[i].path);
	free(p.maps);
	free(p.buf);
	return bad;
}
