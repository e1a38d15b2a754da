// SPDX-License-Identifier: GPL-2.0-only
/* collect.c — the live collector (see collect.h): loads the BPF program,
 * opens the sampling and side-band perf events on every online CPU, and
 * runs the consumer thread that drains the per-CPU ring buffers into the
 * central queue when one of them is a quarter full, or on a timer that
 * adapts to the sample rate.
 */
#include "collect/collect.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/coalesce.h"
#include "collect/emit.h"
#include "collect/event.h"
#include "collect/internal.h"
#include "collect/kp_bpf.h"
#include "collect/kptop.skel.h"
#include "collect/sideband.h"
#include "collect/snapshot.h"
#include "stream/stream.h"

/* The consumer's cycle adapts to the sample rate: every cycle costs a
 * wakeup of this thread and of the reader (~100 us each in a paravirt
 * guest), so it runs as seldom as the per-CPU buffers allow: it aims to
 * find each buffer at most 1/KP_FILL_DIV full, between KP_DRAIN_MIN_MS and
 * KP_DRAIN_MAX_MS. A burst does not wait for the timer: the BPF program
 * wakes the consumer when a sample buffer passes a quarter full, and so
 * does the kernel for a side-band ring. stop and flush drain at once. */
#define KP_DRAIN_MIN_MS 10
#define KP_DRAIN_MAX_MS 1000
/* After side-band events (processes starting, libraries mapped), the next
 * cycles come sooner: their first samples are named while they live, and
 * --unwind auto judges a new process within a fraction of a second. */
#define KP_DRAIN_BUSY_MS 200
#define KP_DRAIN_START_MS 50
#define KP_FILL_DIV 8

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!getenv("KPTOP_BPF_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* A SAMPLE record (maybe a run of idle ones) staged in the queue; what
 * could not be staged is counted as dropped, its whole weight. */
static int emit_sample(void *ctx, const struct kp_record *r, uint32_t cpu)
{
	struct kp_collector *c = ctx;
	int ret = kp_emit__sample(&c->emit, r);

	if (ret)
		c->qdrop[cpu] += kp_sample_weight(&r->sample);
	return ret;
}

/* One drain cycle: every CPU ring buffer, its samples held (runs of
 * identical idle samples merged, and the last run of every CPU emitted
 * at the end of the pass); then the side-band, queued before them (a
 * process or mapping is queued before the samples that use it, also one
 * that appeared while the rings were read); then the samples, and LOST
 * records for every counter that moved. Called with c->lock held. */
static int drain(struct kp_collector *c)
{
	int sb;

	c->emit.hold = 1;
	ring_buffer__consume(c->rb);
	kp_coalesce__flush(c->co, emit_sample, c);
	c->emit.hold = 0;
	sb = kp_sideband__drain(c->sb, &c->emit, c->sb_lost);
	kp_emit__release(&c->emit);
	kp_collect__emit_lost(c);
	kp_queue__publish(c->q);
	return sb;
}

/* The next cycle length from the fullest CPU buffer of this one. */
static int next_interval(struct kp_collector *c, int ms)
{
	uint64_t most = 0, target = c->o.cpu_buffer_bytes / KP_FILL_DIV;
	uint64_t next;

	for (int i = 0; i < c->nr_possible; i++) {
		if (c->cycle_bytes[i] > most)
			most = c->cycle_bytes[i];
		c->cycle_bytes[i] = 0;
	}
	next = most ? (uint64_t)ms * target / most : KP_DRAIN_MAX_MS;
	if (next > (uint64_t)ms * 2)
		next = (uint64_t)ms * 2;	/* grow gently, shrink at once */
	if (next < KP_DRAIN_MIN_MS)
		next = KP_DRAIN_MIN_MS;
	return next > KP_DRAIN_MAX_MS ? KP_DRAIN_MAX_MS : (int)next;
}

#define KP_POLL_MAX 258	/* stop, the sample rings' epoll fd, side-band rings */

static void *consumer(void *arg)
{
	struct kp_collector *c = arg;
	struct pollfd p[KP_POLL_MAX];
	int fds[KP_POLL_MAX - 2], n, ms = KP_DRAIN_START_MS, busy;
	sigset_t all;

	/* Signals are for the thread that reads the queue (kptop's main):
	 * one taken here would not wake it. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	p[0] = (struct pollfd){ .fd = c->stop_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = ring_buffer__epoll_fd(c->rb), .events = POLLIN };
	n = kp_sideband__fds(c->sb, fds, KP_POLL_MAX - 2);
	for (int i = 0; i < n; i++)
		p[2 + i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	for (;;) {
		if (poll(p, (nfds_t)(2 + n), ms) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		if (p[1].revents) {	/* take the wakeups, so poll sleeps again */
			struct epoll_event ev[8];

			while (epoll_wait(p[1].fd, ev, 8, 0) == 8)
				;
		}
		pthread_mutex_lock(&c->lock);
		busy = drain(c) > 0;
		ms = next_interval(c, ms);
		if (busy && ms > KP_DRAIN_BUSY_MS)
			ms = KP_DRAIN_BUSY_MS;
		pthread_mutex_unlock(&c->lock);
	}
	return NULL;
}

/* The Python fields of a BPF sample (kp_bpf.h): -1 if malformed. */
static int on_python(const struct kp_bpf_sample *s, size_t size,
		     struct kp_rec_sample *o)
{
	size_t off = ((s->nr_kframes + s->nr_uframes) * 8ul + s->stack_len + 7) & ~7ul;

	if (s->py_status > KP_PY_STATUS_MAX || s->nr_pyframes > KP_MAX_PYFRAMES ||
	    (s->nr_pyframes && KP_BPF_SAMPLE_HDR + off + s->nr_pyframes * 16ul > size))
		return -1;
	o->py_status = s->py_status;
	o->nr_pyframes = (uint16_t)s->nr_pyframes;
	o->pyframes = s->nr_pyframes ? (const uint64_t *)((const char *)s->data + off)
				     : NULL;
	return 0;
}

/* Turn one BPF sample into a SAMPLE record and hold it (coalesce.h). */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct kp_collector *c = ctx;
	const struct kp_bpf_sample *s = data;
	struct kp_record r = { .type = KP_REC_SAMPLE };
	struct kp_rec_sample *o = &r.sample;
	uint32_t cpu;

	if (size < KP_BPF_SAMPLE_HDR) {
		c->qdrop[0]++;
		return 0;
	}
	cpu = s->cpu < (uint32_t)c->nr_possible ? s->cpu : 0;
	c->cycle_bytes[cpu] += size + 8;	/* + the ring's record header */
	if (s->nr_kframes > KP_MAX_FRAMES || s->nr_uframes > KP_MAX_FRAMES ||
	    s->stack_len > KP_MAX_STACK_BYTES ||
	    KP_BPF_SAMPLE_HDR + (s->nr_kframes + s->nr_uframes) * 8ul +
	    s->stack_len > size) {
		c->qdrop[cpu]++;	/* malformed: counted, never passed on */
		return 0;
	}
	o->time_ns = s->time_ns;
	o->cgroup_id = s->cgroup_id;
	o->cpu = s->cpu;
	o->pid = s->pid;
	o->tid = s->tid;
	o->gpid = s->gpid;
	o->gtid = s->gtid;
	o->flags = s->flags;
	o->kerr = (int32_t)s->kerr;
	o->uerr = (int32_t)s->uerr;
	memcpy(o->comm, s->comm, KP_COMM_LEN);
	o->comm[KP_COMM_LEN - 1] = '\0';
	o->nr_kframes = (uint16_t)s->nr_kframes;
	o->nr_uframes = (uint16_t)s->nr_uframes;
	o->kframes = (const uint64_t *)s->data;
	o->uframes = (const uint64_t *)s->data + s->nr_kframes;
	if (s->nr_regs == KP_MAX_REGS) {
		o->nr_regs = KP_MAX_REGS;
		memcpy(o->regs, s->regs, sizeof(o->regs));
		o->stack_len = s->stack_len;
		o->stack = (const uint8_t *)(s->data + s->nr_kframes + s->nr_uframes);
	}
	if (s->py_status && on_python(s, size, o)) {
		c->qdrop[cpu]++;
		return 0;
	}
	kp_coalesce__sample(c->co, &r, cpu, emit_sample, c);	/* counts drops */
	return 0;
}

/* Perf events on every CPU, under the lock: on or off. */
static int set_sampling(struct kp_collector *c, int on)
{
	int ret = 0;

	for (int i = 0; i < c->nr_cpus; i++)
		if (ioctl(c->ev_fds[i], on ? PERF_EVENT_IOC_ENABLE :
			  PERF_EVENT_IOC_DISABLE, 0) && !ret)
			ret = -errno;
	if (!ret)
		c->sampling = on;
	return ret;
}

int kp_collector__start(struct kp_collector *c)
{
	int ret;

	pthread_mutex_lock(&c->lock);
	ret = set_sampling(c, 1);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

int kp_collector__stop(struct kp_collector *c)
{
	int ret;

	pthread_mutex_lock(&c->lock);
	ret = set_sampling(c, 0);
	drain(c);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

int kp_collector__flush(struct kp_collector *c)
{
	pthread_mutex_lock(&c->lock);
	drain(c);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

ssize_t kp_collector__peek(struct kp_collector *c, const void **data,
			   int timeout_ms)
{
	return kp_queue__peek(c->q, data, timeout_ms);
}

void kp_collector__consume(struct kp_collector *c)
{
	kp_queue__consume(c->q);
}

ssize_t kp_collector__read(struct kp_collector *c, void *buf, size_t cap,
			   int timeout_ms)
{
	return kp_queue__pop(c->q, buf, cap, timeout_ms);
}

int kp_collector__fd(const struct kp_collector *c)
{
	return kp_queue__fd(c->q);
}

void kp_collector__set_lazy_fd(struct kp_collector *c, int lazy)
{
	kp_queue__set_notify(c->q, lazy ? c->o.queue_limit_bytes / 8 : 0);
}

int kp_collector__set_offcpu(struct kp_collector *c, int on)
{
	struct kp_err e = { 0 };
	int ret = 0;

	pthread_mutex_lock(&c->lock);
	if (on && !c->off)	/* loaded now: its rings join the consumer's */
		ret = kp_offcpu__open(c, &e);
	if (!ret)
		ret = kp_offcpu__enable(c, on);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/* The off-CPU counters into the stats (under the lock). */
static void offcpu_stats(struct kp_collector *c, struct kp_collect_stats *out)
{
	uint64_t off[KP_OFF_CNT_MAX];

	kp_offcpu__counters(c, off);
	out->off_on = kp_offcpu__on(c);
	out->off_switches = off[KP_OFF_CNT_SWITCHES];
	out->off_intervals = off[KP_OFF_CNT_INTERVALS];
	out->off_ns = off[KP_OFF_CNT_NS];
	out->off_records = off[KP_OFF_CNT_RECORDS];
	out->off_short = off[KP_OFF_CNT_SHORT];
	out->off_lost = off[KP_OFF_CNT_LOST];
	out->off_lost_ns = off[KP_OFF_CNT_LOST_NS];
	out->off_unpaired = off[KP_OFF_CNT_UNPAIRED];
	out->off_wakeups = off[KP_OFF_CNT_WAKEUPS];
	out->off_stack_wanted = off[KP_OFF_CNT_STACK_WANTED];
	out->off_stack_copied = off[KP_OFF_CNT_STACK_COPIED];
}

int kp_collector__mark_dwarf(struct kp_collector *c, uint32_t pid, int on)
{
	uint8_t one = 1;
	int ret;

	if (on)
		ret = bpf_map__update_elem(c->skel->maps.dwarf_pids, &pid, sizeof(pid),
					   &one, sizeof(one), BPF_ANY);
	else
		ret = bpf_map__delete_elem(c->skel->maps.dwarf_pids, &pid,
					   sizeof(pid), 0);
	if (ret == -ENOENT && !on)
		return 0;
	if (!ret) {
		pthread_mutex_lock(&c->lock);
		c->marked += on ? 1 : -1;
		pthread_mutex_unlock(&c->lock);
	}
	return ret;
}

int kp_collector__python(struct kp_collector *c, uint32_t pid,
			 const struct kp_collect_py *py)
{
	struct kp_bpf_py_proc v = { 0 };
	int ret;

	if (!py) {
		ret = bpf_map__delete_elem(c->skel->maps.py_procs, &pid,
					   sizeof(pid), 0);
		return ret == -ENOENT ? 0 : ret;
	}
	if (py->f_code > KP_BPF_PY_WINDOW - 8 || py->f_previous > KP_BPF_PY_WINDOW - 8 ||
	    py->frames > KP_PY_FRAMES_LASTI_BYTES || py->tid > KP_PY_TID_PTHREAD)
		return -EINVAL;
	if (py->frames == KP_PY_FRAMES_INTERP ?
	    py->f_instr > KP_BPF_PY_WINDOW - 8 || py->f_owner >= KP_BPF_PY_WINDOW ||
	    (py->f_entry != KP_COLLECT_PY_NONE && py->f_entry >= KP_BPF_PY_WINDOW) :
	    py->f_instr > KP_PY_LASTI_OFF_MAX || py->f_entry != KP_COLLECT_PY_NONE ||
	    py->f_owner != KP_COLLECT_PY_NONE)
		return -EINVAL;
	v.runtime = py->runtime;
	v.version = py->version;
	v.own_pidns = !!py->own_pidns;
	v.interp_head = py->interp_head;
	v.tstate_head = py->tstate_head;
	v.ts_next = py->ts_next;
	v.ts_tid = py->ts_tid;
	v.ts_cframe = py->ts_cframe;
	v.ts_frame = py->ts_frame;
	v.f_code = py->f_code;
	v.f_previous = py->f_previous;
	v.f_instr = py->f_instr;
	v.f_entry = py->f_entry;
	v.f_owner = py->f_owner;
	v.co_linetable = py->co_linetable;
	v.co_code = py->co_code;
	v.frames = py->frames;
	v.tid = py->tid;
	return bpf_map__update_elem(c->skel->maps.py_procs, &pid, sizeof(pid),
				    &v, sizeof(v), BPF_ANY);
}

void kp_collector__stats(struct kp_collector *c, struct kp_collect_stats *out)
{
	struct kp_queue_stats qs;
	uint64_t sum[KP_CNT_MAX] = { 0 };

	pthread_mutex_lock(&c->lock);
	kp_collect__read_counters(c, sum);
	kp_queue__stats(c->q, &qs);
	memset(out, 0, sizeof(*out));
	out->taken = sum[KP_CNT_TAKEN];
	out->delivered = qs.delivered;
	out->queued = qs.samples;
	out->lost_bpf_full = sum[KP_CNT_BPF_FULL];
	out->lost_cpu_buffer = 0;	/* BPF ring buffers: losses are BPF_FULL */
	for (int i = 0; i < c->nr_possible; i++)
		out->lost_queue_full += c->qdrop[i];
	for (int i = 0; i < c->nr_cpus; i++)
		out->lost_sideband += c->sb_lost[i];
	out->stack_err_kernel = sum[KP_CNT_KSTACK_ERR];
	out->stack_err_user = sum[KP_CNT_USTACK_ERR];
	out->dwarf_samples = sum[KP_CNT_DWARF];
	out->dwarf_spec = sum[KP_CNT_DWARF_SPEC];
	out->py_ok = sum[KP_CNT_PY_OK];
	out->py_no_thread = sum[KP_CNT_PY_NO_THREAD];
	out->py_trunc = sum[KP_CNT_PY_TRUNC];
	out->py_fault = sum[KP_CNT_PY_FAULT];
	out->marked_pids = c->marked;
	out->queue_bytes = qs.bytes;
	out->queue_limit = qs.limit;
	out->records = qs.records;
	out->sampling = c->sampling;
	offcpu_stats(c, out);
	pthread_mutex_unlock(&c->lock);
}

void kp_collector__free(struct kp_collector *c)
{
	uint64_t one = 1;

	if (!c)
		return;
	if (c->thread_started) {
		if (write(c->stop_fd, &one, sizeof(one)) < 0)
			perror("kptop: stopping the consumer thread");
		pthread_join(c->thread, NULL);
	}
	if (c->thread_started) {	/* fully built: stop and drain */
		pthread_mutex_lock(&c->lock);
		set_sampling(c, 0);
		drain(c);
		pthread_mutex_unlock(&c->lock);
	}
	kp_collect__close_bpf(c);
	kp_sideband__free(c->sb);
	kp_emit__fini(&c->emit);
	kp_coalesce__free(c->co);
	kp_queue__free(c->q);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	pthread_mutex_destroy(&c->lock);
	free((void *)c->o.pids);
	free(c->cpus);
	free(c->qdrop);
	free(c->cycle_bytes);
	free(c->sb_lost);
	free(c->reported);
	free(c->cnt_buf);
	free(c);
}

const char *kp_collector__fallback(const struct kp_collector *c)
{
	return c && c->asked ? c->asked->name : NULL;
}

/* The META record: first in the queue. */
static int emit_meta(struct kp_collector *c)
{
	struct kp_record r = { .type = KP_REC_META };
	struct utsname u;
	struct timespec m, rt;
	char host[256];

	if (uname(&u))
		return -errno;
	if (gethostname(host, sizeof(host)))
		strcpy(host, "");
	host[sizeof(host) - 1] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &rt);
	r.meta = (struct kp_rec_meta){ .version = PACKAGE_VERSION,
		.kernel = u.release, .hostname = host, .arch = u.machine,
		.freq_hz = c->o.freq_hz, .ncpus = (uint32_t)c->nr_cpus,
		.start_mono_ns = (uint64_t)m.tv_sec * 1000000000ull + (uint64_t)m.tv_nsec,
		.start_real_ns = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec,
		.page_size = (uint32_t)sysconf(_SC_PAGESIZE),
		.flags = (c->o.user_only ? 0 : KP_META_KERNEL_STACKS) |
			 (c->o.kernel_only ? 0 : KP_META_USER_STACKS) |
			 (c->o.nr_pids || c->o.cgroup_path ? KP_META_FILTERED : 0) |
			 (kp_event_is_clock(c->event) ? 0 : KP_META_EVENT_COUNT),
		.event = c->event->name, .period = c->o.period,
		.event_asked = c->asked ? c->asked->name : "" };
	return kp_emit(&c->emit, &r);
}

static int start_side(struct kp_collector *c, struct kp_err *err)
{
	int ret;

	c->sb = kp_sideband__new(c->cpus, c->nr_cpus, err);
	if (!c->sb)
		return -errno;
	ret = emit_meta(c);
	if (!ret && !c->o.no_snapshot) {
		ret = kp_snapshot__procs(&c->emit);
		if (!ret)
			ret = kp_snapshot__cgroups(&c->emit, NULL);
	}
	if (ret)
		kp_err_set(err, ret, "cannot take the /proc snapshot: %s", kp_strerror(ret));
	return ret;
}

struct kp_collector *kp_collector__new(const struct kp_collect_opts *opts,
				       struct kp_err *err)
{
	struct kp_collector *c = calloc(1, sizeof(*c));
	int ret = -ENOMEM;

	if (!c) {
		kp_err_set(err, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	c->stop_fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	libbpf_set_print(libbpf_quiet);
	ret = kp_collect__setup(c, opts, err);	/* options, rights, CPUs */
	if (ret)
		goto out_free;
	c->q = kp_queue__new(c->o.queue_limit_bytes);
	c->stop_fd = eventfd(0, EFD_CLOEXEC);
	c->co = kp_coalesce__new((uint32_t)c->nr_possible);
	if (!c->q || c->stop_fd < 0 || !c->co || kp_emit__init(&c->emit, c->q)) {
		ret = kp_err_set(err, -ENOMEM, "cannot create the central queue: %s",
				 strerror(errno ? errno : ENOMEM));
		goto out_free;
	}
	if (c->o.nr_pids) {
		c->emit.pids = c->o.pids;	/* ours until kp_collector__free */
		c->emit.nr_pids = c->o.nr_pids;
	}
	ret = kp_collect__open_bpf(c, on_sample, err);
	if (!ret && c->o.off_cpu)
		ret = kp_offcpu__open(c, err);
	if (!ret)
		ret = start_side(c, err);
	if (!ret) {
		kp_collect__set_idle(c);
		ret = kp_collect__attach(c, err);
	}
	if (!ret && c->o.off_cpu == KP_OFFCPU_ON && (ret = kp_offcpu__enable(c, 1)))
		kp_err_set(err, ret, "cannot attach the off-CPU program to "
			   "sched_switch: %s", strerror(-ret));
	kp_queue__publish(c->q);
	if (ret)
		goto out_free;
	ret = -pthread_create(&c->thread, NULL, consumer, c);
	if (ret) {
		kp_err_set(err, ret, "cannot start the consumer thread: %s", strerror(-ret));
		goto out_free;
	}
	c->thread_started = 1;
	return c;

out_free:
	kp_collector__free(c);
	errno = ret == KP_EUSAGE ? EINVAL : ret < -KP_ERR_BASE ? EPERM : -ret;
	return NULL;
}
