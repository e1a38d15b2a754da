// SPDX-License-Identifier: GPL-2.0-only
/* kptop.c — main: options, rights, wiring of collector → pump → model,
 * the batch loop and the live view.
 *
 * The only place that exits; every layer below returns errors. A
 * SIGINT/SIGTERM during batch sampling sets a flag: the loop stops the
 * collector, drains the queue into the model and writes the complete
 * report, then exits 0. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "main/options.h"
#include "model/model.h"
#include "pump/autodwarf.h"
#include "pump/python.h"
#include "pump/pump.h"
#include "pump/resolve.h"
#include "push/push.h"
#include "report/report.h"
#include "symbols/buildid.h"
#include "symbols/debuginfod.h"
#include "symbols/symbols.h"
#include "tui/tui.h"
#include "unwind/unwind.h"
#include "util/safefile.h"

/* How long the pusher may go on sending at exit (push.h); what is left
 * waits in the spool for the next start. */
#define KP_PUSH_GRACE_MS 2000

/* --push, a fleet agent that runs for days at a low frequency: unless
 * told otherwise, a smaller budget (--max-memory 32M), smaller per-CPU
 * buffers at up to 200 Hz, few modules kept loaded once no process maps
 * them, and the heap given back after each interval (bench/push-agent.sh
 * measures what this saves; man kptop, PUSHING). */
#define KP_PUSH_MAX_MEMORY_MB 32
#define KP_PUSH_CPU_BUFFER (512u << 10)
#define KP_PUSH_LOW_HZ 200
#define KP_PUSH_IDLE_MODULES 8

/* How long a live refresh waits for a JIT map being read (symbols.h). */
#define KP_LIVE_JIT_WAIT_MS 100

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct run {
	struct kp_options o;
	struct kp_symbols *syms;
	struct kp_unwinder *unw;
	struct kp_resolve *res;
	struct kp_autodwarf *ad;	/* the resolver the model gets (not fp mode) */
	struct kp_python *py;		/* around it: Python frames merged */
	struct kp_model *m;
	struct kp_collector *c;
	struct kp_pump *p;
	struct kp_pusher *push;	/* --push */
	FILE *out;
	struct kp_safefile *outf;	/* -o FILE: out until renamed into place */
	int per_file;		/* -o PATTERN: one file per report */
	uint64_t t0, t0_real;	/* start of the period of the next report */
	struct kp_collect_stats cut;	/* the collector's counters when the
					 * last report's interval closed */
	struct kp_report_counts run;	/* since sampling started, up to it */
	int damaged;		/* the input file is damaged: exit 4 after the report */
	int debuginfod;		/* debug files fetched ($DEBUGINFOD_URLS) */
	char host[64];		/* the host sampled (META), for the reports */
	char py_unknown[64];	/* the first Python version kptop cannot read */
	struct kp_err err;
};

static int fail(struct run *r, int status)
{
	fprintf(stderr, "kptop: %s\n", r->err.msg[0] ? r->err.msg :
		kp_strerror(r->err.code));
	return status;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- checks done before anything is loaded (usage errors, exit 2) ---- */

static int check_freq(const struct kp_options *o, struct kp_err *err)
{
	unsigned long max = 0;
	FILE *f;

	if (o->input || o->period)
		return 0;
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &max) != 1)
		max = 0;
	fclose(f);
	if (max && o->freq_hz > max)
		return kp_err_set(err, KP_EUSAGE,
				  "invalid value '%u' for -F: above the kernel's "
				  "perf_event_max_sample_rate (%lu)", o->freq_hz, max);
	return 0;
}

static int check_targets(const struct kp_options *o, struct kp_err *err)
{
	char path[64];
	struct stat st;

	if (o->input)
		return 0;
	for (size_t i = 0; i < o->nr_pids; i++) {
		snprintf(path, sizeof(path), "/proc/%" PRIu32, o->pids[i]);
		if (access(path, F_OK))
			return kp_err_set(err, KP_EUSAGE, "invalid value for -p: "
					  "no process %" PRIu32, o->pids[i]);
	}
	if (o->cgroup && (stat(o->cgroup, &st) || !S_ISDIR(st.st_mode)))
		return kp_err_set(err, KP_EUSAGE, "invalid value '%s' for --cgroup: "
				  "expected a cgroup2 directory such as "
				  "/sys/fs/cgroup/system.slice", o->cgroup);
	return 0;
}

/* --push URL: its form (push.h), before anything is loaded. */
static int check_push_url(struct run *r)
{
	enum kp_push_proto proto;
	char endpoint[2048];

	return kp_push_endpoint(r->o.push, &proto, endpoint, sizeof(endpoint),
				&r->err);
}

/* Not root and without CAP_BPF + CAP_PERFMON: say so before loading. */
static int check_rights(struct kp_err *err)
{
	unsigned long long eff = 0;
	char line[256];
	FILE *f;

	if (geteuid() == 0)
		return 0;
	f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	if ((eff >> 38 & 1) && (eff >> 39 & 1))	/* CAP_PERFMON, CAP_BPF */
		return 0;
	return kp_err_set(err, KP_ENOBPF, "sampling needs root or the "
			  "capabilities CAP_BPF and CAP_PERFMON (run it with sudo, "
			  "or read a saved stream with -i)");
}

/* -o FILE: checked and created now, before sampling (see util/safefile.h);
 * the report takes the name when kptop ends. */
static int open_output(struct run *r)
{
	char path[PATH_MAX];
	int has_n;

	if (r->o.push && !r->o.output)
		return 0;	/* pushed only: no local report */
	if (!r->o.output || !strcmp(r->o.output, "-")) {
		r->out = stdout;
		return 0;
	}
	r->per_file = kp_report_path_fields(r->o.output, &has_n, &r->err) > 0;
	if (r->per_file)	/* each report's file is made when it is written */
		return kp_report_path(r->o.output, 1, clock_ns(CLOCK_REALTIME),
				      path, sizeof(path), &r->err) ||
		       kp_safefile__check(path, &r->err);
	r->outf = kp_safefile__open(r->o.output, &r->err);
	if (!r->outf)
		return r->err.code ? r->err.code : -errno;
	r->out = kp_safefile__stream(r->outf);
	return 0;
}

/* Put the -o file in place; a run that failed before writing anything
 * leaves nothing behind. */
static int close_output(struct run *r, int status)
{
	struct kp_safefile *f = r->outf;

	r->outf = NULL;
	r->out = NULL;
	if (status != KP_EXIT_OK && ftell(kp_safefile__stream(f)) <= 0) {
		kp_safefile__abort(f);
		return status;
	}
	if (kp_safefile__commit(f, &r->err) == 0)
		return status;
	return fail(r, status == KP_EXIT_OK ? KP_EXIT_RUNTIME : status);
}

/* ---- building the layers ---- */

/* The code a constructor left in r->err (it set errno and the message). */
static int built_error(struct run *r)
{
	return r->err.code ? r->err.code : -ENOMEM;
}

/* --max-memory, the budget of kptop as a whole, in eighths: the model
 * 3, the symbols 3 (modules and JIT tables; the JIT tables 1 at most;
 * the unwinder's modules a KP_UNWIND_PART-th of the three), the spool
 * 1, the central queue 1 (unless --queue-limit says otherwise).
 * man/kptop.1.in says so. */
enum { KP_SHARE_MODEL = 3, KP_SHARE_SYMBOLS = 3, KP_SHARE_JIT = 1,
       KP_SHARE_SPOOL = 1, KP_SHARE_QUEUE = 1, KP_UNWIND_PART = 6 };

static size_t share(const struct run *r, unsigned eighths)
{
	return r->o.max_memory / 8 * eighths;
}

static int build_model(struct run *r)
{
	/* New stacks are named when a view or report needs them, not as
	 * they are sampled: a batch run names them after sampling ends. The
	 * live view, which views at every refresh, keeps the views'
	 * structure as stacks are hung. */
	struct kp_model_opts mo = { .max_nodes = r->o.max_nodes, .defer_stacks = 1,
				    .eager_views = !r->o.batch,
				    .max_bytes = share(r, KP_SHARE_MODEL),
				    /* pprof's cpu label: a pprof report (not a
				     * push: days of stacks per CPU) */
				    .by_cpu = !r->o.push && r->o.batch &&
					      r->o.format == KP_FORMAT_PPROF };
	struct kp_filter f = { .show_idle = r->o.idle };
	/* The live view names frames at every refresh: a big JIT map is read
	 * by a thread of its own and never holds a refresh up for long. */
	struct kp_symbols_opts so = { .jit_wait_ms = r->o.batch ? 0 : KP_LIVE_JIT_WAIT_MS,
				      .jit_budget = share(r, KP_SHARE_JIT),
				      .max_bytes = share(r, KP_SHARE_SYMBOLS) -
						   share(r, KP_SHARE_SYMBOLS) / KP_UNWIND_PART,
				      .debuginfod = r->debuginfod,
				      .debuginfod_signal = r->debuginfod ? SIGRTMIN : 0,
				      .dwarf_cache = 1 };
	struct kp_err uerr = { 0 };

	r->syms = kp_symbols__new(&so, &r->err);
	if (!r->syms)
		return built_error(r);
	/* The unwinder serves every mode: DWARF stacks (dwarf, auto), and the
	 * caller of a frameless leaf that a frame-pointer walk skips (all).
	 * Without one, user stacks keep their frame-pointer walk. */
	r->unw = kp_unwinder__new(&uerr);
	if (r->unw)
		kp_unwinder__set_max_bytes(r->unw, share(r, KP_SHARE_SYMBOLS) / KP_UNWIND_PART);
	r->res = kp_resolve__new(r->syms, r->unw, &r->err);
	if (!r->res)
		return built_error(r);
	kp_resolve__set_replay(r->res, r->o.input != NULL);
	mo.resolver = kp_resolve__resolver(r->res);
	if (r->unw) {
		r->ad = kp_autodwarf__new(mo.resolver);
		if (!r->ad)
			return kp_err_set(&r->err, -ENOMEM, "out of memory");
		kp_autodwarf__set_unwinder(r->ad, r->unw);
		mo.resolver = kp_autodwarf__resolver(r->ad);
	}
	r->py = kp_python__new(mo.resolver);
	if (!r->py)
		return kp_err_set(&r->err, -ENOMEM, "out of memory");
	kp_python__set_raw(r->py, r->o.native_python);
	mo.resolver = kp_python__resolver(r->py);
	r->m = kp_model__new(&mo);
	if (!r->m)
		return kp_err_set(&r->err, -errno, "creating the model: %s", strerror(errno));
	if (kp_model__set_filter(r->m, &f))
		return kp_err_set(&r->err, -EINVAL, "setting the model's filter");
	kp_model__set_weight(r->m, r->o.weight);
	return 0;
}

static int rights_code(int code)
{
	return code == KP_ENOBPF || code == KP_ENOPERF || code == -EPERM ||
	       code == -EACCES;
}

/* The idle text found by a thread of its own (kallsyms takes 100-200 ms
 * to read) while the collector loads its BPF program; the collector asks
 * for it before sampling starts. */
struct idle_job {
	struct kp_symbols *syms;
	pthread_t thread;
	int started, joined;
	uint64_t r[KP_COLLECT_IDLE_RANGES][2];
	size_t n;
};

static void *idle_find(void *arg)
{
	struct idle_job *j = arg;

	j->n = kp_symbols__idle_text(j->syms, j->r, KP_COLLECT_IDLE_RANGES);
	return NULL;
}

static void idle_join(struct idle_job *j)
{
	if (j->started && !j->joined)
		pthread_join(j->thread, NULL);
	j->joined = 1;
}

static size_t idle_text(void *ctx, uint64_t (*r)[2], size_t max)
{
	struct idle_job *j = ctx;
	size_t n;

	idle_join(j);
	n = j->n < max ? j->n : max;
	memcpy(r, j->r, n * sizeof(*r));
	return n;
}

/* The job started; without a thread it is done here and now. */
static void idle_start(struct idle_job *j)
{
	j->started = pthread_create(&j->thread, NULL, idle_find, j) == 0;
	if (!j->started)
		idle_find(j);
}

static int build_collector(struct run *r)
{
	struct idle_job idle = { .syms = r->syms };
	struct kp_collect_opts co = {
		.freq_hz = r->o.freq_hz, .event = r->o.event, .period = r->o.period,
		.off_cpu = r->o.off_cpu ? KP_OFFCPU_ON : 0,
		.off_cpu_min_ns = (uint64_t)r->o.off_cpu_min_us * 1000,
		.pids = r->o.pids,
		.nr_pids = r->o.nr_pids, .cgroup_path = r->o.cgroup,
		.user_only = r->o.user_only, .kernel_only = r->o.kernel_only,
		.cpu_buffer_bytes = r->o.cpu_buffer,
		.queue_limit_bytes = r->o.queue_limit ? r->o.queue_limit :
				     share(r, KP_SHARE_QUEUE),
		.unwind = r->o.unwind,
		.stack_bytes = r->o.stack_bytes,
	};

	if (r->o.push && !co.cpu_buffer_bytes && r->o.freq_hz <= KP_PUSH_LOW_HZ)
		co.cpu_buffer_bytes = KP_PUSH_CPU_BUFFER;
	if (r->syms && !r->o.user_only) {	/* idle samples take kernel stacks */
		idle_start(&idle);
		co.idle_text = idle_text;
		co.idle_ctx = &idle;
	}
	r->c = kp_collector__new(&co, &r->err);
	idle_join(&idle);	/* asked for, or the collector failed first */
	if (!r->c) {
		if (!r->err.code)
			kp_err_set(&r->err, -errno, "starting the collector: %s",
				   strerror(errno));
		return rights_code(r->err.code) ? KP_EXIT_RIGHTS :
		       r->err.code == KP_EUSAGE ? KP_EXIT_USAGE : KP_EXIT_RUNTIME;
	}
	if (kp_collector__fallback(r->c))	/* as perf top does */
		fprintf(stderr, "kptop: warning: -e %s: this machine has no hardware "
			"counter for it (no PMU); sampling cpu-clock instead\n",
			kp_collector__fallback(r->c));
	return 0;
}

static int load_input(struct run *r)
{
	struct kp_err warn = { 0 };
	struct kp_pump_info pi;
	int rc;

	rc = kp_pump__load_file(r->p, r->o.input, r->o.force, &warn, &r->err);
	if (rc)
		return rc == -ENOMEM ? KP_EXIT_RUNTIME : KP_EXIT_INPUT;
	kp_pump__info(r->p, &pi);
	if (warn.msg[0]) {
		fprintf(stderr, "kptop: warning: %s\n", warn.msg);
		r->damaged = 1;
		if (pi.records == 0) {
			kp_err_set(&r->err, warn.code, "%s: no record could be read",
				   r->o.input);
			return KP_EXIT_INPUT;
		}
	}
	return 0;
}

/* --baseline FILE: the stream read into the model by a pump of its own
 * (its records never reach the save file), its counts made the model's
 * baseline, then the counts, drops and times zeroed (the baseline
 * stays): what comes next is compared with it. A damaged file: its
 * records before the damage, a warning, exit 4 at the end (as -i). */
static int load_baseline(struct run *r)
{
	struct kp_err warn = { 0 };
	struct kp_pump *bp = kp_pump__new(NULL, r->m, 0, &r->err);
	struct kp_pump_info pi;
	int rc;

	if (!bp)
		return KP_EXIT_RUNTIME;
	kp_pump__set_python(bp, r->py);
	rc = kp_pump__load_file(bp, r->o.baseline, r->o.force, &warn, &r->err);
	kp_pump__info(bp, &pi);
	kp_pump__free(bp);
	if (rc)
		return rc == -ENOMEM ? KP_EXIT_RUNTIME : KP_EXIT_INPUT;
	if (warn.msg[0]) {
		fprintf(stderr, "kptop: warning: baseline %s\n", warn.msg);
		r->damaged = 1;
		if (pi.records == 0) {
			kp_err_set(&r->err, warn.code, "%s: no record could be read",
				   r->o.baseline);
			return KP_EXIT_INPUT;
		}
	}
	kp_model__baseline_mark(r->m);
	if (!kp_model__has_baseline(r->m)) {
		kp_err_set(&r->err, -ENOMEM, "out of memory for the baseline");
		return KP_EXIT_RUNTIME;
	}
	kp_model__zero(r->m);
	return 0;
}

/* ---- batch ---- */

/* The pprof report's look-up of a mapping's build ID on disk. */
static int main_build_id(void *ctx, const char *path, uint8_t *id, uint8_t *len)
{
	(void)ctx;
	return kp_buildid__file(path, id, len);
}

/* ... and the link-time bias of its segment (go tool pprof -disasm). */
static int main_link_bias(void *ctx, const char *path, uint64_t off, uint64_t *bias)
{
	(void)ctx;
	return kp_buildid__file_bias(path, off, bias);
}

static void fill_python(struct run *r, struct kp_report_info *info)
{
	struct kp_python_stats ps;

	kp_python__stats(r->py, &ps);
	info->py_procs = ps.processes;
	info->py_merged = ps.merged;
	info->py_no_thread = ps.no_thread;
	info->py_trunc = ps.truncated;
	info->py_fault = ps.fault;
	info->py_unreadable = ps.code_unreadable;
	info->py_unplaced = ps.unplaced;
	info->py_unknown = ps.unknown_version;
	if (ps.unknown[0]) {
		snprintf(r->py_unknown, sizeof(r->py_unknown), "%s", ps.unknown);
		info->py_unknown_version = r->py_unknown;
	}
}

static void fill_info(struct run *r, struct kp_report_info *info,
		      uint64_t t_end, unsigned idx)
{
	struct kp_symbols_stats ss;
	struct kp_pump_info pi;

	memset(info, 0, sizeof(*info));
	kp_symbols__stats(r->syms, &ss);
	info->jit_maps = ss.jit_maps;
	info->jit_refused = ss.jit_refused;
	info->jit_bad_lines = ss.jit_bad_lines;
	info->debuginfod = ss.debuginfod;
	info->dbgd_pending = ss.debuginfod_pending;
	info->dbgd_done = ss.debuginfod_done;
	info->dbgd_failed = ss.debuginfod_failed;
	fill_python(r, info);
	kp_pump__info(r->p, &pi);
	snprintf(r->host, sizeof(r->host), "%s", pi.hostname);
	info->index = idx;
	info->count = r->o.count;
	info->endless = r->o.count == 0;
	info->ncpus = pi.ncpus;
	info->field_sep = r->o.field_sep;
	info->folded_pid = r->o.folded_pid;
	info->host = r->host;
	/* Build IDs the records lacked, from the files on this machine (as a
	 * replay names frames from them too). */
	info->build_id = main_build_id;
	info->link_bias = main_link_bias;
	if (kp_buildid__kernel(info->kernel_build_id, &info->kernel_build_id_len))
		info->kernel_build_id_len = 0;
	if (!r->c) {
		info->source = r->o.input;
		info->freq_hz = pi.freq_hz;
		info->time_real_ns = pi.start_real_ns;
		return;
	}
	info->freq_hz = r->o.freq_hz;
	info->time_real_ns = r->t0_real;
	info->duration_s = (double)(t_end - r->t0) / 1e9;
	info->have_collector = 1;	/* counts and run: see count_interval */
}

/* The report of this run's kind: --annotate's or the --format one. */
static int report_to(struct run *r, FILE *out, const struct kp_report_info *info)
{
	if (r->o.annotate)
		return kp_report_annotate(out, r->m, r->o.annotate, info, &r->err);
	return kp_report__write(out, r->o.format, r->m, info, &r->err);
}

/* The report, to the output or (-o PATTERN) to its own file put in
 * place at once. */
static int write_report(struct run *r, const struct kp_report_info *info)
{
	char path[PATH_MAX];
	struct kp_safefile *f;
	int rc;

	if (!r->out && !r->per_file)
		return 0;	/* --push without -o */
	if (!r->per_file) {
		/* One stream: text and tree reports apart by a blank line;
		 * folded lines and JSON Lines need none. */
		if (info->index > 1 && (r->o.format == KP_FORMAT_TEXT ||
					r->o.format == KP_FORMAT_TREE))
			fputc('\n', r->out);
		return report_to(r, r->out, info);
	}
	rc = kp_report_path(r->o.output, info->index, info->time_real_ns, path,
			    sizeof(path), &r->err);
	if (rc)
		return rc;
	f = kp_safefile__open(path, &r->err);
	if (!f)
		return r->err.code ? r->err.code : -EIO;
	rc = report_to(r, kp_safefile__stream(f), info);
	if (rc) {
		kp_safefile__abort(f);
		return rc;
	}
	return kp_safefile__commit(f, &r->err);
}

/* Everything queued goes into the model (and the save file). */
static int drain(struct run *r)
{
	int n;

	while ((n = kp_pump__run(r->p, 0, &r->err)) > 0)
		;
	return n;
}

/* Sample until the deadline (0: none) or a signal. The wait sleeps until
 * the collector queues records, the deadline or SIGINT/SIGTERM: those are
 * blocked but inside ppoll, so one cannot slip in between the check and
 * the wait (the collector's thread blocks every signal). */
static int sample(struct run *r, uint64_t deadline)
{
	struct pollfd p = { .fd = kp_collector__fd(r->c), .events = POLLIN };
	sigset_t block, orig;
	int n = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &orig);
	while (!stop_requested) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		struct timespec ts;

		if (deadline && now >= deadline)
			break;
		if (deadline) {
			ts.tv_sec = (time_t)((deadline - now) / 1000000000u);
			ts.tv_nsec = (long)((deadline - now) % 1000000000u);
		}
		if (ppoll(&p, 1, deadline ? &ts : NULL, &orig) < 0 && errno != EINTR) {
			n = kp_err_set(&r->err, -errno, "poll: %s", strerror(errno));
			break;
		}
		n = kp_pump__run(r->p, 0, &r->err);
		if (n < 0)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &orig, NULL);
	return n < 0 ? n : 0;
}

/* Close a report's interval: sampling off, and what it took read into
 * the model, so that every sample taken in the interval is in the report
 * or counted as dropped. The bulk of what the CPUs' buffers hold is read
 * first, while sampling goes on: the pause (until the caller starts
 * sampling again) covers only the rest. *t_end: when sampling stopped. */
static int close_interval(struct run *r, int last, uint64_t *t_end)
{
	int rc;

	if (!last) {
		kp_collector__flush(r->c);
		rc = drain(r);
		if (rc)
			return rc;
	}
	*t_end = clock_ns(CLOCK_MONOTONIC);
	rc = kp_collector__stop(r->c);
	if (rc)
		return kp_err_set(&r->err, rc, "stopping the collector: %s",
				  kp_strerror(rc));
	return drain(r);
}

/* The collector's counts of the interval just closed: since the last
 * cut. Exact: the collector is stopped and its queue read empty, so
 * taken == delivered + bpf-full + cpu-buf + queue-full and delivered is
 * the model's samples. */
static void count_interval(struct run *r, struct kp_report_counts *c)
{
	const struct kp_collect_stats *a = &r->cut;
	struct kp_collect_stats st;

	kp_collector__stats(r->c, &st);
	memset(c, 0, sizeof(*c));
	c->taken = st.taken - a->taken;
	c->delivered = st.delivered - a->delivered;
	c->lost[KP_LOST_BPF_FULL] = st.lost_bpf_full - a->lost_bpf_full;
	c->lost[KP_LOST_CPU_BUFFER] = st.lost_cpu_buffer - a->lost_cpu_buffer;
	c->lost[KP_LOST_QUEUE_FULL] = st.lost_queue_full - a->lost_queue_full;
	c->lost[KP_LOST_SIDEBAND] = st.lost_sideband - a->lost_sideband;
	c->stack_err_kernel = st.stack_err_kernel - a->stack_err_kernel;
	c->stack_err_user = st.stack_err_user - a->stack_err_user;
	c->lost[KP_LOST_STACK] = c->stack_err_kernel + c->stack_err_user;
	c->lost[KP_LOST_OFFCPU] = st.off_lost - a->off_lost;
	c->off_on = st.off_on;
	c->off_switches = st.off_switches - a->off_switches;
	c->off_intervals = st.off_intervals - a->off_intervals;
	c->off_ns = st.off_ns - a->off_ns;
	c->off_stack_wanted = st.off_stack_wanted - a->off_stack_wanted;
	c->off_stack_copied = st.off_stack_copied - a->off_stack_copied;
	r->cut = st;
}

/* The stages only the model counts (unwind: its LOST records since the
 * zero), then c added to the run's. After sampling started again: the
 * model's summary names the interval's new stacks first, which takes
 * time; nothing is fed to the model until its zero. */
static void count_model(struct run *r, struct kp_report_counts *c)
{
	struct kp_model_summary sum;

	kp_model__summary(r->m, &sum);
	c->lost[KP_LOST_UNWIND] = sum.lost[KP_LOST_UNWIND];
	r->run.taken += c->taken;
	r->run.delivered += c->delivered;
	r->run.stack_err_kernel += c->stack_err_kernel;
	r->run.stack_err_user += c->stack_err_user;
	for (unsigned i = 0; i <= KP_LOST_STAGE_MAX; i++)
		r->run.lost[i] += c->lost[i];
}

/* --push: the interval's profiles into the pusher's spool (its thread
 * sends them), and the status line when its counters changed. */
static int push_interval(struct run *r, const struct kp_report_info *info)
{
	char line[256];

	if (!r->push)
		return 0;
	if (kp_pusher__interval(r->push, r->m, info, &r->err))
		return r->err.code ? r->err.code : -EIO;
	if (kp_pusher__status(r->push, line, sizeof(line)))
		fprintf(stderr, "kptop: %s\n", line);
	malloc_trim(0);	/* an agent's heap between intervals given back */
	return 0;
}

static int one_report(struct run *r, unsigned idx)
{
	uint64_t deadline = 0, t_end, t_next = 0;
	struct kp_report_counts counts;
	struct kp_report_info info;
	int last = idx == r->o.count, rc;

	if (r->o.delay_set)
		deadline = r->t0 + (uint64_t)llround(r->o.delay_s * 1e9);
	rc = sample(r, deadline);
	if (rc)
		return rc;
	last = last || stop_requested;
	rc = close_interval(r, last, &t_end);
	if (rc)
		return rc;
	count_interval(r, &counts);
	if (!last) {	/* the next interval, while this report is written */
		rc = kp_collector__start(r->c);
		if (rc)
			return kp_err_set(&r->err, rc, "starting the collector "
					  "again: %s", kp_strerror(rc));
		t_next = clock_ns(CLOCK_MONOTONIC);
	}
	count_model(r, &counts);
	kp_model__refresh(r->m, clock_ns(CLOCK_MONOTONIC));
	fill_info(r, &info, t_end, idx);
	info.counts = counts;
	info.run = r->run;
	rc = push_interval(r, &info);
	rc = rc ? rc : write_report(r, &info);
	/* The saved stream ends with what the last report was made of: the
	 * side-band keeps coming after the sampling stops, and a replay of
	 * the file must be that report, not the state at exit. */
	if (rc == 0 && last && kp_pump__saving(r->p, NULL, NULL))
		rc = kp_pump__save_stop(r->p, &r->err);
	if (rc == 0 && !last) {
		kp_model__zero(r->m);
		r->t0_real += t_next - r->t0;
		r->t0 = t_next;
	}
	return rc ? rc : last;
}

/* Perf maps refused or with bad lines: said on standard error too (the
 * folded format has no place for it). */
static void jit_note(struct run *r)
{
	struct kp_symbols_stats ss;

	kp_symbols__stats(r->syms, &ss);
	if (!ss.jit_refused && !ss.jit_bad_lines)
		return;
	fprintf(stderr, "kptop: JIT maps (/tmp/perf-PID.map): %llu refused (a link, "
		"another user's file, or too big for the JIT budget), %llu bad "
		"lines skipped; their code is shown unnamed\n",
		(unsigned long long)ss.jit_refused,
		(unsigned long long)ss.jit_bad_lines);
}

/* Python processes of a version kptop cannot read: said on standard
 * error too (once, with the first version). */
static void python_note(struct run *r)
{
	struct kp_python_stats ps;

	kp_python__stats(r->py, &ps);
	if (!ps.unknown_version)
		return;
	fprintf(stderr, "kptop: %llu Python process%s of a version kptop cannot "
		"read (%s): %s native stacks are shown\n",
		(unsigned long long)ps.unknown_version,
		ps.unknown_version > 1 ? "es" : "", ps.unknown,
		ps.unknown_version > 1 ? "their" : "its");
}

static int run_batch(struct run *r)
{
	struct kp_report_info info;
	int rc = 0;

	if (!r->c) {	/* -i: one report of the whole file */
		fill_info(r, &info, 0, 1);
		info.count = 1;
		rc = write_report(r, &info);
		jit_note(r);
		python_note(r);
		return rc ? KP_EXIT_RUNTIME : KP_EXIT_OK;
	}
	for (unsigned i = 1; (r->o.count == 0 || i <= r->o.count) && rc == 0; i++)
		rc = one_report(r, i);	/* -n 0: until a signal */
	jit_note(r);
	python_note(r);
	if (rc < 0)
		return KP_EXIT_RUNTIME;
	return KP_EXIT_OK;
}

static int run_live(struct run *r)
{
	struct kp_tui_config cfg = {
		.collector = r->c, .model = r->m, .pump = r->p,
		.input_path = r->o.input,
		.delay_ms = (unsigned)llround(r->o.delay_s * 1000),
		.freq_hz = r->o.freq_hz, .window_s = r->o.window_s,
		.save_default = NULL,	/* the view offers kptop-DATE-TIME.kps */
		.show_idle = r->o.idle, .symbols = r->syms,
		.no_mouse = r->o.no_mouse, .delay_set = r->o.delay_set,
		.baseline_path = r->o.baseline, .python = r->py,
	};

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		kp_err_set(&r->err, KP_EUSAGE, "the live view needs a terminal; "
			   "use --batch for a report");
		return KP_EXIT_USAGE;
	}
	if (kp_tui__run(&cfg, &r->err))
		return KP_EXIT_RUNTIME;
	return KP_EXIT_OK;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: waits end early */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void on_wake(int sig)
{
	(void)sig;	/* it only ends the debuginfod fetcher's wait */
}

/* $DEBUGINFOD_URLS set: debug files are fetched into a checked cache
 * directory, named in $DEBUGINFOD_CACHE_PATH for libdebuginfod now,
 * before any thread starts (the environment is the process's). A cache
 * the user named that is not safe is an error; kptop's own that cannot
 * be made only turns the fetching off, with a warning. */
static int setup_debuginfod(struct run *r)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct sigaction sa;
	char dir[PATH_MAX];
	int from_env;

	if (!urls || !urls[strspn(urls, " \t")])
		return 0;
	if (kp_debuginfod__cache_dir(dir, sizeof(dir), &from_env, &r->err)) {
		if (from_env)
			return KP_EXIT_USAGE;
		fprintf(stderr, "kptop: warning: %s; debug files are not fetched "
			"from DEBUGINFOD_URLS\n", r->err.msg);
		memset(&r->err, 0, sizeof(r->err));
		return 0;
	}
	if (setenv("DEBUGINFOD_CACHE_PATH", dir, 1)) {
		kp_err_set(&r->err, -errno, "setting DEBUGINFOD_CACHE_PATH: %s",
			   strerror(errno));
		return KP_EXIT_RUNTIME;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	r->debuginfod = 1;
	return 0;
}

/* --push: the spool read and the pushing thread started before BPF is
 * loaded (a bad secret file or spool directory is said first). */
static int start_push(struct run *r)
{
	char host[256] = "";
	struct kp_push_opts po = {
		.url = r->o.push, .app_name = r->o.app_name,
		.headers = r->o.push_headers, .nr_headers = r->o.nr_push_headers,
		.basic_auth_file = r->o.push_basic_auth,
		.bearer_file = r->o.push_bearer,
		.cacert_file = r->o.push_cacert, .spool_dir = r->o.push_spool,
		.spool_max = r->o.push_spool_size, .host = host,
	};

	gethostname(host, sizeof(host) - 1);
	r->push = kp_pusher__new(&po, &r->err);
	if (!r->push)
		return r->err.code == KP_EUSAGE ? KP_EXIT_USAGE : KP_EXIT_RUNTIME;
	return 0;
}

static int start(struct run *r)
{
	int rc;

	if (r->o.batch && open_output(r))
		return KP_EXIT_RUNTIME;
	if (r->o.save && kp_safefile__check(r->o.save, &r->err))
		return KP_EXIT_RUNTIME;	/* before BPF is loaded; opened below */
	if (r->o.batch)
		install_signals();
	rc = setup_debuginfod(r);
	if (rc)
		return rc;
	if (r->o.push && (rc = start_push(r)) != 0)
		return rc;
	if (build_model(r))
		return KP_EXIT_RUNTIME;
	if (r->o.baseline) {
		rc = load_baseline(r);
		if (rc)
			return rc;
	}
	if (!r->o.input) {
		rc = build_collector(r);
		if (rc)
			return rc;
		if (r->ad && r->o.unwind == KP_UNWIND_AUTO)
			kp_autodwarf__set_collector(r->ad, r->c);
		kp_python__set_collector(r->py, r->c, r->o.unwind == KP_UNWIND_AUTO);
		r->t0 = clock_ns(CLOCK_MONOTONIC);	/* sampling runs from here */
		r->t0_real = clock_ns(CLOCK_REALTIME);
	}
	r->p = kp_pump__new(r->c, r->m, r->o.batch ? 0 : r->o.spool_s,
			    &r->err);
	if (!r->p)
		return KP_EXIT_RUNTIME;
	kp_pump__set_python(r->p, r->py);
	kp_pump__set_spool_max(r->p, share(r, KP_SHARE_SPOOL));
	if (r->o.input)
		return load_input(r);
	if (r->o.save && kp_pump__save_start(r->p, r->o.save, &r->err))
		return KP_EXIT_RUNTIME;
	return 0;
}

static int finish(struct run *r, int status)
{
	struct kp_err e = { 0 };

	if (r->p && kp_pump__saving(r->p, NULL, NULL)) {
		if (r->c)
			kp_collector__stop(r->c);
		if (status == KP_EXIT_OK && drain(r) < 0)
			status = fail(r, KP_EXIT_RUNTIME);
		if (kp_pump__save_stop(r->p, &e)) {	/* said even after an error */
			r->err = e;
			status = fail(r, status == KP_EXIT_OK ? KP_EXIT_RUNTIME : status);
		}
	}
	if (r->push) {
		char line[256];

		kp_pusher__stop(r->push, KP_PUSH_GRACE_MS);
		kp_pusher__status(r->push, line, sizeof(line));
		fprintf(stderr, "kptop: at exit: %s\n", line);
		kp_pusher__free(r->push);
		r->push = NULL;
	}
	kp_pump__free(r->p);
	kp_collector__free(r->c);
	kp_model__free(r->m);
	kp_python__free(r->py);
	kp_autodwarf__free(r->ad);
	kp_resolve__free(r->res);
	kp_unwinder__free(r->unw);
	kp_symbols__free(r->syms);
	if (r->outf)
		status = close_output(r, status);
	kp_options_fini(&r->o);
	return status;
}

/* Options read and checked: an exit status when kptop is done already
 * (--help, --version, a bad option), or KP_GO_ON. */
#define KP_GO_ON (-1)
static int prepare(struct run *r, int argc, char **argv)
{
	int rc = kp_options_parse(&r->o, argc, argv, &r->err);

	if (rc)
		return fail(r, rc == KP_EUSAGE ? KP_EXIT_USAGE : KP_EXIT_RUNTIME);
	if (r->o.help) {
		kp_options_usage(stdout, "kptop");
		return KP_EXIT_OK;
	}
	if (r->o.version) {
		printf("kptop %s\n", PACKAGE_VERSION);
		return KP_EXIT_OK;
	}
	if (check_freq(&r->o, &r->err) || check_targets(&r->o, &r->err))
		return fail(r, KP_EXIT_USAGE);
	if (r->o.push && check_push_url(r))
		return fail(r, KP_EXIT_USAGE);
	if (!r->o.batch && kp_tui__check_term(NULL, &r->err))
		return fail(r, KP_EXIT_USAGE);	/* before BPF: the terminal untouched */
	if (!r->o.input && check_rights(&r->err))
		return fail(r, KP_EXIT_RIGHTS);
	return KP_GO_ON;
}

/* The heap kptop grows into while sampling (names, stacks, unwind
 * tables), taken and touched now. A first touch of a page costs a fault,
 * and in a paravirtualized guest some 12 us each: thousands of them in
 * the first busy seconds, on the CPU the profile is about. Freed memory
 * stays in the heap for reuse (trim and mmap thresholds raised) instead
 * of going back to the kernel to be faulted in again. */
#define KP_HEAP_WARM (4u << 20)

static void warm_heap(void)
{
	void *p;

	mallopt(M_MMAP_THRESHOLD, 8 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	p = malloc(KP_HEAP_WARM);
	if (!p)
		return;		/* then pages are touched as they come */
	explicit_bzero(p, KP_HEAP_WARM);	/* a memset before free is elided */
	free(p);
}

int main(int argc, char **argv)
{
	struct run r;
	int status;

	memset(&r, 0, sizeof(r));
	status = prepare(&r, argc, argv);
	if (status != KP_GO_ON) {
		kp_options_fini(&r.o);
		return status;
	}
	status = start(&r);
	if (status) {
		fail(&r, status);
		return finish(&r, status);
	}
	if (r.c && !r.o.push)
		warm_heap();	/* sampling; after start, which took its own */
	status = r.o.batch ? run_batch(&r) : run_live(&r);
	if (status)
		fail(&r, status);
	else if (r.damaged)
		status = KP_EXIT_INPUT;	/* the report of what was read is out */
	return finish(&r, status);
}
