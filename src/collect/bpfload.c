// SPDX-License-Identifier: GPL-2.0-only
/* bpfload.c — options, rights, the BPF program, its ring buffers, the
 * sampling perf events and the BPF counters of the collector. */
#include "collect/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/event.h"
#include "collect/kp_bpf.h"
#include "collect/kptop.skel.h"

#define KP_DEFAULT_QUEUE (64u << 20)
#define KP_DEFAULT_CPU_BUF (2u << 20)
#define KP_DEFAULT_CPU_BUF_DWARF (8u << 20)
#define KP_PROC_PID_INIT_INO 0xEFFFFFFCu	/* the initial pid namespace */

int kp_collect__pidns(uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) || st.st_ino == KP_PROC_PID_INIT_INO)
		return 0;
	*dev = ((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev);
	*ino = st.st_ino;
	return 1;
}
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

static long read_long(const char *path, long dflt)
{
	char buf[64];
	long v = dflt;
	FILE *f = fopen(path, "re");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

/* "0-3,5,7-8" from /sys/devices/system/cpu/online into c->cpus. */
static int online_cpus(struct kp_collector *c)
{
	char buf[4096], *p = buf, *end;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	long a, b;

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -errno;
	}
	fclose(f);
	c->cpus = calloc((size_t)c->nr_possible, sizeof(*c->cpus));
	if (!c->cpus)
		return -ENOMEM;
	while (*p && *p != '\n') {
		a = b = strtol(p, &end, 10);
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (; a <= b && a < c->nr_possible; a++)
			c->cpus[c->nr_cpus++] = (int)a;
		p = *end == ',' ? end + 1 : end;
		if (end == p && *p != ',' && *p)
			break;
	}
	return c->nr_cpus > 0 ? 0 : -ENODEV;
}

static uint64_t cap_eff(void)
{
	char line[256];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int check_rights(struct kp_err *err)
{
	uint64_t caps = cap_eff(), admin = 1ull << CAP_SYS_ADMIN_BIT;
	int bpf = !!(caps & (admin | 1ull << CAP_BPF_BIT));
	int perfmon = !!(caps & (admin | 1ull << CAP_PERFMON_BIT));

	if (bpf && perfmon)
		return 0;
	return kp_err_set(err, KP_ENOBPF,
		"kptop needs root, or the capabilities CAP_BPF and CAP_PERFMON (missing:%s%s), "
		"to load its BPF program and sample every CPU: run it with sudo, or "
		"`setcap cap_bpf,cap_perfmon+ep kptop`",
		bpf ? "" : " CAP_BPF", perfmon ? "" : " CAP_PERFMON");
}

static int fill_opts(struct kp_collector *c, const struct kp_collect_opts *o,
		     struct kp_err *err)
{
	long max_rate = read_long("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
	size_t buf;

	c->o = *o;
	c->o.pids = NULL;	/* copied below: the caller's array is not kept */
	if (!c->o.freq_hz)
		c->o.freq_hz = KP_DEFAULT_FREQ;
	if (!c->o.period && c->o.freq_hz > (uint64_t)max_rate)
		return kp_err_set(err, KP_EUSAGE,
			"-F %u is over the kernel's limit of %ld samples per second per CPU "
			"(kernel.perf_event_max_sample_rate): use -F %ld or less, or raise it "
			"with sysctl", c->o.freq_hz, max_rate, max_rate);
	if (c->o.user_only && c->o.kernel_only)
		return kp_err_set(err, KP_EUSAGE, "--user-only and --kernel-only exclude each other");
	if (!c->o.queue_limit_bytes)
		c->o.queue_limit_bytes = KP_DEFAULT_QUEUE;
	if (!c->o.stack_bytes)
		c->o.stack_bytes = KP_DEFAULT_STACK_BYTES;
	if (c->o.stack_bytes > KP_MAX_STACK_BYTES)
		c->o.stack_bytes = KP_MAX_STACK_BYTES;
	buf = c->o.cpu_buffer_bytes;
	if (!buf)
		buf = c->o.unwind == KP_UNWIND_DWARF ? KP_DEFAULT_CPU_BUF_DWARF :
		      KP_DEFAULT_CPU_BUF;
	c->o.cpu_buffer_bytes = (size_t)sysconf(_SC_PAGESIZE);
	while (c->o.cpu_buffer_bytes < buf && c->o.cpu_buffer_bytes < (1ul << 30))
		c->o.cpu_buffer_bytes <<= 1;	/* a power of 2 pages */
	if (o->nr_pids) {
		uint32_t *pids = calloc(o->nr_pids, sizeof(*pids));

		if (!pids)
			return kp_err_set(err, -ENOMEM, "out of memory");
		memcpy(pids, o->pids, o->nr_pids * sizeof(*pids));
		c->o.pids = pids;
	}
	return 0;
}

/* The sampling event's attributes: every period events (-c), or
 * freq_hz times a second per CPU. */
static void event_attr(const struct kp_collector *c, const struct kp_event *e,
		       struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->type;
	a->config = e->config;
	if (c->o.period) {
		a->sample_period = c->o.period;
	} else {
		a->freq = 1;
		a->sample_freq = c->o.freq_hz;
	}
	a->disabled = 1;
}

/* -e: the event, tried on the first CPU. A hardware event this machine
 * has no PMU for falls back to cpu-clock, as perf top does; any other
 * event that cannot be counted is a usage error. No rights: attach says
 * so, naming them. */
static int resolve_event(struct kp_collector *c, struct kp_err *err)
{
	const char *name = c->o.event ? c->o.event : KP_EVENT_DEFAULT;
	const struct kp_event *e = kp_event_find(name);
	struct perf_event_attr a;
	int fd, no;

	if (!e)
		return kp_err_set(err, KP_EUSAGE, "invalid value '%s' for -e: "
				  "expected one of %s", name, kp_event_names());
	c->event = e;
	event_attr(c, e, &a);
	fd = (int)syscall(SYS_perf_event_open, &a, -1, c->cpus[0], -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	no = errno;
	if (no == EACCES || no == EPERM)
		return 0;
	if (e->hardware && (no == ENOENT || no == ENODEV || no == EOPNOTSUPP ||
			    no == EINVAL)) {
		c->asked = e;
		c->event = kp_event_find(KP_EVENT_DEFAULT);
		return 0;
	}
	return kp_err_set(err, KP_EUSAGE, "-e %s: this machine cannot sample "
			  "the event (%s)%s", e->name, strerror(no),
			  e->hardware ? "" : ": try -e cpu-clock");
}

int kp_collect__setup(struct kp_collector *c, const struct kp_collect_opts *o,
		      struct kp_err *err)
{
	int ret;

	c->cgroup_fd = -1;
	ret = fill_opts(c, o, err);
	if (ret)
		return ret;
	ret = check_rights(err);
	if (ret)
		return ret;
	c->nr_possible = libbpf_num_possible_cpus();
	if (c->nr_possible <= 0)
		return kp_err_set(err, c->nr_possible ? c->nr_possible : -ENODEV,
				  "cannot count the possible CPUs");
	ret = online_cpus(c);
	if (ret)
		return kp_err_set(err, ret, "cannot read the online CPUs: %s", strerror(-ret));
	ret = resolve_event(c, err);
	if (ret)
		return ret;
	c->qdrop = calloc((size_t)c->nr_possible, sizeof(*c->qdrop));
	c->cycle_bytes = calloc((size_t)c->nr_possible, sizeof(*c->cycle_bytes));
	c->sb_lost = calloc((size_t)c->nr_cpus, sizeof(*c->sb_lost));
	c->reported = calloc((size_t)(KP_LOST_STAGE_MAX + 1) * (size_t)c->nr_possible,
			     sizeof(*c->reported));
	c->cnt_buf = calloc((size_t)c->nr_possible, sizeof(struct kp_bpf_counters));
	if (!c->qdrop || !c->cycle_bytes || !c->sb_lost || !c->reported || !c->cnt_buf)
		return kp_err_set(err, -ENOMEM, "out of memory");
	return 0;
}

static int bpf_fail(struct kp_err *err, int ret, const char *what)
{
	if (ret == -EPERM)
		return kp_err_set(err, KP_ENOBPF,
			"the kernel refused to %s (%s): kptop needs root or CAP_BPF + "
			"CAP_PERFMON, and a kernel not in lockdown", what, strerror(-ret));
	if (ret == -ENOSYS)
		return kp_err_set(err, KP_ENOBPF,
			"this kernel has no BPF (CONFIG_BPF_SYSCALL): kptop cannot sample here");
	return kp_err_set(err, KP_ENOBPF, "cannot %s: %s (set KPTOP_BPF_DEBUG=1 for the "
			  "verifier log)", what, strerror(ret < 0 ? -ret : EINVAL));
}

_Static_assert(KP_COLLECT_IDLE_RANGES == KP_BPF_IDLE_RANGES,
	       "collect.h and kp_bpf.h agree on the idle ranges");

static void set_rodata(struct kp_collector *c)
{
	struct kptop_bpf *s = c->skel;
	uint64_t dev, ino;
	long max_stack = read_long("/proc/sys/kernel/perf_event_max_stack", KP_MAX_FRAMES);

	/* In the initial pid namespace the global ids are ours: no lookup. */
	if (kp_collect__pidns(&dev, &ino)) {
		s->rodata->pidns_dev = dev;
		s->rodata->pidns_ino = ino;
	}
	s->rodata->filter_pids = c->o.nr_pids > 0;
	s->rodata->filter_cgroup = c->o.cgroup_path != NULL;
	s->rodata->take_kernel = !c->o.user_only;
	s->rodata->take_user = !c->o.kernel_only;
	s->rodata->unwind_mode = (uint32_t)c->o.unwind;
	s->rodata->stack_bytes = c->o.stack_bytes;
	/* a quarter full: the collector is woken to drain (kptop.bpf.c) */
	s->rodata->wake_bytes = c->o.cpu_buffer_bytes / 4;
	s->rodata->max_frames = max_stack > 0 && max_stack < KP_MAX_FRAMES ?
				(uint32_t)max_stack : KP_MAX_FRAMES;
}

static int fill_filters(struct kp_collector *c, const struct kp_collect_opts *o,
			struct kp_err *err)
{
	uint8_t one = 1;
	uint32_t zero = 0;
	int ret;

	for (size_t i = 0; i < o->nr_pids; i++) {
		ret = bpf_map__update_elem(c->skel->maps.pid_filter, &o->pids[i],
					   sizeof(uint32_t), &one, 1, BPF_ANY);
		if (ret)
			return kp_err_set(err, ret, "cannot add pid %u to the filter: %s",
					  o->pids[i], strerror(-ret));
	}
	if (!o->cgroup_path)
		return 0;
	c->cgroup_fd = open(o->cgroup_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->cgroup_fd < 0)
		return kp_err_set(err, -errno, "--cgroup %s: %s", o->cgroup_path,
				  strerror(errno));
	ret = bpf_map__update_elem(c->skel->maps.cgroup_filter, &zero, sizeof(zero),
				   &c->cgroup_fd, sizeof(c->cgroup_fd), BPF_ANY);
	if (ret)
		return kp_err_set(err, ret, "--cgroup %s: not a cgroup2 directory (%s)",
				  o->cgroup_path, strerror(-ret));
	return 0;
}

static int make_ring_buffers(struct kp_collector *c,
			     int (*on_sample)(void *, void *, size_t),
			     struct kp_err *err)
{
	int outer = bpf_map__fd(c->skel->maps.cpu_bufs), ret;

	c->rb_fds = calloc((size_t)c->nr_cpus, sizeof(*c->rb_fds));
	if (!c->rb_fds)
		return kp_err_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < c->nr_cpus; i++)
		c->rb_fds[i] = -1;
	for (int i = 0; i < c->nr_cpus; i++) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.fd = i };
		uint32_t cpu = (uint32_t)c->cpus[i];

		c->rb_fds[i] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "kp_cpu_buf", 0, 0,
					      (uint32_t)c->o.cpu_buffer_bytes, NULL);
		if (c->rb_fds[i] < 0)
			return kp_err_set(err, -errno, "cannot create a %zu-byte ring buffer "
					  "for CPU %u: %s", c->o.cpu_buffer_bytes, cpu,
					  strerror(errno));
		if (bpf_map_update_elem(outer, &cpu, &c->rb_fds[i], BPF_ANY))
			return bpf_fail(err, -errno, "insert a CPU ring buffer");
		if (i == 0)
			c->rb = ring_buffer__new(c->rb_fds[0], on_sample, c, NULL);
		else if ((ret = ring_buffer__add(c->rb, c->rb_fds[i], on_sample, c)))
			return kp_err_set(err, ret, "cannot watch ring buffer %d", i);
		if (!c->rb)
			return kp_err_set(err, -errno, "cannot map ring buffer 0: %s",
					  strerror(errno));
		/* Edge-triggered: the consumer's poll hears the BPF program's
		 * wakeups, not every record already in the buffer (see
		 * collect.c: consumer). */
		if (epoll_ctl(ring_buffer__epoll_fd(c->rb), EPOLL_CTL_MOD, c->rb_fds[i], &ev))
			return kp_err_set(err, -errno, "cannot watch ring buffer %d: %s", i,
					  strerror(errno));
	}
	return 0;
}

void kp_collect__set_idle(struct kp_collector *c)
{
	uint64_t r[KP_BPF_IDLE_RANGES][2];
	size_t n = c->o.idle_text ? c->o.idle_text(c->o.idle_ctx, r, KP_BPF_IDLE_RANGES) : 0;

	for (size_t i = 0; i < n && i < KP_BPF_IDLE_RANGES; i++) {
		c->skel->bss->idle_lo[i] = r[i][0];
		c->skel->bss->idle_hi[i] = r[i][1];
	}
}

int kp_collect__open_bpf(struct kp_collector *c,
			 int (*on_sample)(void *ctx, void *data, size_t size),
			 struct kp_err *err)
{
	int ret;

	c->skel = kptop_bpf__open();
	if (!c->skel)
		return bpf_fail(err, -errno, "open the BPF program");
	set_rodata(c);
	bpf_map__set_max_entries(c->skel->maps.cpu_bufs, (uint32_t)c->nr_possible);
	bpf_map__set_max_entries(c->skel->maps.scratch, (uint32_t)c->nr_possible);
	ret = kptop_bpf__load(c->skel);
	if (ret)
		return bpf_fail(err, ret, "load the BPF program");
	ret = make_ring_buffers(c, on_sample, err);
	if (!ret)
		ret = fill_filters(c, &c->o, err);
	return ret;
}

static int perf_fail(struct kp_err *err, const char *ev, int e, int cpu)
{
	long paranoid = read_long("/proc/sys/kernel/perf_event_paranoid", 2);

	if (e == EACCES || e == EPERM)
		return kp_err_set(err, KP_ENOPERF,
			"cannot open a %s perf event on CPU %d (%s, "
			"kernel.perf_event_paranoid=%ld): run kptop as root or with "
			"CAP_PERFMON", ev, cpu, strerror(e), paranoid);
	return kp_err_set(err, KP_ENOPERF, "cannot open a %s perf event on CPU %d: %s",
			  ev, cpu, strerror(e));
}

int kp_collect__attach(struct kp_collector *c, struct kp_err *err)
{
	struct perf_event_attr a;
	int fd, ret;

	c->ev_fds = calloc((size_t)c->nr_cpus, sizeof(*c->ev_fds));
	c->links = calloc((size_t)c->nr_cpus, sizeof(*c->links));
	if (!c->ev_fds || !c->links)
		return kp_err_set(err, -ENOMEM, "out of memory");
	event_attr(c, c->event, &a);
	for (int i = 0; i < c->nr_cpus; i++) {
		fd = (int)syscall(SYS_perf_event_open, &a, -1, c->cpus[i], -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return perf_fail(err, c->event->name, errno, c->cpus[i]);
		c->links[i] = bpf_program__attach_perf_event(c->skel->progs.kp_sample, fd);
		if (!c->links[i]) {
			ret = -errno;
			close(fd);
			return bpf_fail(err, ret, "attach the BPF program to a perf event");
		}
		c->ev_fds[i] = fd;	/* owned by the link from here */
	}
	c->sampling = 1;
	for (int i = 0; i < c->nr_cpus; i++)
		ioctl(c->ev_fds[i], PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

void kp_collect__close_bpf(struct kp_collector *c)
{
	for (int i = 0; c->links && i < c->nr_cpus; i++)
		bpf_link__destroy(c->links[i]);	/* closes ev_fds[i] */
	free(c->links);
	free(c->ev_fds);
	ring_buffer__free(c->rb);
	kp_offcpu__close(c);
	for (int i = 0; c->rb_fds && i < c->nr_cpus; i++)
		if (c->rb_fds[i] >= 0)
			close(c->rb_fds[i]);
	free(c->rb_fds);
	if (c->cgroup_fd >= 0)
		close(c->cgroup_fd);
	kptop_bpf__destroy(c->skel);
}

void kp_collect__read_counters(struct kp_collector *c, uint64_t *sum)
{
	const struct kp_bpf_counters *pc = (const void *)c->cnt_buf;
	uint32_t zero = 0;

	memset(sum, 0, KP_CNT_MAX * sizeof(*sum));
	if (!c->skel || bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.counters),
					    &zero, c->cnt_buf))
		return;
	for (int cpu = 0; cpu < c->nr_possible; cpu++)
		for (int k = 0; k < KP_CNT_MAX; k++)
			sum[k] += pc[cpu].c[k];
}

static void lost_one(struct kp_collector *c, uint32_t stage, int cpu,
		     uint64_t now_total, uint64_t t)
{
	uint64_t *rep = &c->reported[stage * (uint32_t)c->nr_possible + (uint32_t)cpu];
	struct kp_record r = { .type = KP_REC_LOST };

	if (now_total == *rep)
		return;
	r.lost = (struct kp_rec_lost){ .time_ns = t, .stage = stage,
		.cpu = (uint32_t)cpu, .count = now_total - *rep };
	if (!kp_emit(&c->emit, &r))
		*rep = now_total;
}

void kp_collect__emit_lost(struct kp_collector *c)
{
	const struct kp_bpf_counters *pc = (const void *)c->cnt_buf;
	uint64_t sum[KP_CNT_MAX], off[KP_OFF_CNT_MAX], t = kp_mono_ns();

	kp_collect__read_counters(c, sum);
	kp_offcpu__counters(c, off);
	for (int cpu = 0; cpu < c->nr_possible; cpu++) {
		lost_one(c, KP_LOST_BPF_FULL, cpu, pc[cpu].c[KP_CNT_BPF_FULL], t);
		lost_one(c, KP_LOST_STACK, cpu, pc[cpu].c[KP_CNT_KSTACK_ERR] +
			 pc[cpu].c[KP_CNT_USTACK_ERR], t);
		lost_one(c, KP_LOST_QUEUE_FULL, cpu, c->qdrop[cpu], t);
		lost_one(c, KP_LOST_OFFCPU, cpu, kp_offcpu__lost(c, cpu), t);
	}
	for (int i = 0; i < c->nr_cpus; i++)
		lost_one(c, KP_LOST_SIDEBAND, c->cpus[i], c->sb_lost[i], t);
}
