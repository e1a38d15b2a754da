// SPDX-License-Identifier: GPL-2.0-only
/* offcpu.c — the off-CPU program (offcpu.bpf.c) of the collector: its
 * skeleton, its per-CPU ring buffers (read by the collector's consumer
 * with the sample rings), attach and detach while sampling runs, its
 * counters, and its records turned into OFFCPU records. */
#include "collect/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/kp_bpf.h"
#include "collect/kptop.skel.h"
#include "collect/offcpu.skel.h"


struct kp_offcpu {
	struct offcpu_bpf *skel;
	struct bpf_link *sw, *wk;	/* attached: both, or neither */
	struct bpf_link *uret;		/* rseq_update, with them where it loads */
	int *rb_fds;			/* [nr_cpus] */
	int cgroup_fd;
	uint64_t *cnt_buf;		/* [nr_possible][KP_OFF_CNT_MAX] */
};

_Static_assert(KP_BPF_OFF_UFRAMES <= KP_MAX_FRAMES, "user frames fit a record");

/* One BPF off-CPU record into an OFFCPU record, held with the samples. */
static int on_offcpu(void *ctx, void *data, size_t size)
{
	struct kp_collector *c = ctx;
	const struct kp_bpf_offcpu *b = data;
	struct kp_record r = { .type = KP_REC_OFFCPU };
	struct kp_rec_offcpu *o = &r.offcpu;
	uint32_t cpu;

	if (size < KP_BPF_OFFCPU_HDR)
		return 0;
	cpu = b->cpu < (uint32_t)c->nr_possible ? b->cpu : 0;
	c->cycle_bytes[cpu] += size + 8;
	if (b->nr_kframes > KP_MAX_FRAMES || b->nr_uframes > KP_BPF_OFF_UFRAMES ||
	    b->stack_len > KP_BPF_STACK_MAX || !b->count ||
	    KP_BPF_OFFCPU_HDR + (b->nr_kframes + b->nr_uframes) * 8ul +
	    b->stack_len > size)
		return 0;	/* malformed: the BPF side counted it sent */
	o->s = (struct kp_rec_sample){ .time_ns = b->time_ns,
		.cgroup_id = b->cgroup_id, .cpu = b->cpu, .pid = b->pid,
		.tid = b->tid, .gpid = b->gpid, .gtid = b->gtid,
		.flags = b->flags & ~KP_SAMPLE_USER_MODE,
		.kerr = (int32_t)b->kerr, .uerr = (int32_t)b->uerr,
		.nr_kframes = (uint16_t)b->nr_kframes,
		.nr_uframes = (uint16_t)b->nr_uframes,
		.kframes = (const uint64_t *)b->data,
		.uframes = (const uint64_t *)b->data + b->nr_kframes, .weight = 1 };
	memcpy(o->s.comm, b->comm, KP_COMM_LEN);
	o->s.comm[KP_COMM_LEN - 1] = '\0';
	if (b->nr_regs == KP_MAX_REGS) {
		o->s.nr_regs = KP_MAX_REGS;
		memcpy(o->s.regs, b->regs, sizeof(o->s.regs));
		o->s.stack_len = b->stack_len;
		o->s.stack = (const uint8_t *)(b->data + b->nr_kframes + b->nr_uframes);
	} else {
		o->s.flags &= ~KP_SAMPLE_REGS;
	}
	o->off_ns = b->off_ns;
	o->count = b->count;
	o->state = b->state;
	o->waker_pid = b->waker_pid;
	o->waker_tid = b->waker_tid;
	memcpy(o->waker_comm, b->waker_comm, KP_COMM_LEN);
	o->waker_comm[KP_COMM_LEN - 1] = '\0';
	kp_emit__sample(&c->emit, &r);	/* never refused at the limit */
	return 0;
}

static void set_rodata(struct kp_collector *c, struct offcpu_bpf *s)
{
	uint64_t dev, ino;

	if (kp_collect__pidns(&dev, &ino)) {
		s->rodata->pidns_dev = dev;
		s->rodata->pidns_ino = ino;
	}
	s->rodata->filter_pids = c->o.nr_pids > 0;
	s->rodata->filter_cgroup = c->o.cgroup_path != NULL;
	s->rodata->take_kernel = !c->o.user_only;
	s->rodata->take_user = !c->o.kernel_only;
	s->rodata->off_min_ns = c->o.off_cpu_min_ns;
	s->rodata->wake_bytes = c->o.cpu_buffer_bytes / 4;
	s->rodata->unwind_mode = (uint32_t)c->o.unwind;
	s->rodata->stack_bytes = c->o.stack_bytes;
}

/* Whole user stacks are taken on the return to user space (offcpu.bpf.c)
 * where DWARF may unwind them: that program loads only then, and shares
 * the sampling program's marked processes. */
static int want_user_return(struct kp_collector *c, struct offcpu_bpf *s)
{
	if (c->o.unwind == KP_UNWIND_FP || c->o.kernel_only ||
	    c->o.stack_bytes <= KP_BPF_STACK_MIN)
		return bpf_program__set_autoload(s->progs.kp_user_return, false);
	return bpf_map__reuse_fd(s->maps.off_dwarf_pids,
				 bpf_map__fd(c->skel->maps.dwarf_pids));
}

static int fill_filters(struct kp_collector *c, struct kp_offcpu *f,
			struct kp_err *err)
{
	uint8_t one = 1;
	uint32_t zero = 0;
	int ret;

	for (size_t i = 0; i < c->o.nr_pids; i++) {
		ret = bpf_map__update_elem(f->skel->maps.off_pid_filter, &c->o.pids[i],
					   sizeof(uint32_t), &one, 1, BPF_ANY);
		if (ret)
			return kp_err_set(err, ret, "off-CPU: cannot add pid %u to the "
					  "filter: %s", c->o.pids[i], strerror(-ret));
	}
	if (!c->o.cgroup_path)
		return 0;
	f->cgroup_fd = open(c->o.cgroup_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->cgroup_fd < 0)
		return kp_err_set(err, -errno, "--cgroup %s: %s", c->o.cgroup_path,
				  strerror(errno));
	ret = bpf_map__update_elem(f->skel->maps.off_cgroup_filter, &zero,
				   sizeof(zero), &f->cgroup_fd, sizeof(f->cgroup_fd),
				   BPF_ANY);
	return ret ? kp_err_set(err, ret, "--cgroup %s: not a cgroup2 directory "
				"(%s)", c->o.cgroup_path, strerror(-ret)) : 0;
}

/* A ring buffer per CPU, read by the collector's ring_buffer (c->rb). */
static int make_rings(struct kp_collector *c, struct kp_offcpu *f,
		      struct kp_err *err)
{
	int outer = bpf_map__fd(f->skel->maps.off_bufs);

	f->rb_fds = calloc((size_t)c->nr_cpus, sizeof(*f->rb_fds));
	if (!f->rb_fds)
		return kp_err_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < c->nr_cpus; i++)
		f->rb_fds[i] = -1;
	for (int i = 0; i < c->nr_cpus; i++) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET,
					  .data.fd = c->nr_cpus + i };
		uint32_t cpu = (uint32_t)c->cpus[i];
		int ret;

		f->rb_fds[i] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "kp_off_buf", 0, 0,
					      (uint32_t)c->o.cpu_buffer_bytes, NULL);
		if (f->rb_fds[i] < 0)
			return kp_err_set(err, -errno, "off-CPU: cannot create a ring "
					  "buffer for CPU %u: %s", cpu, strerror(errno));
		if (bpf_map_update_elem(outer, &cpu, &f->rb_fds[i], BPF_ANY))
			return kp_err_set(err, -errno, "off-CPU: cannot insert a ring "
					  "buffer: %s", strerror(errno));
		ret = ring_buffer__add(c->rb, f->rb_fds[i], on_offcpu, c);
		if (ret)
			return kp_err_set(err, ret, "off-CPU: cannot watch ring buffer %d", i);
		if (epoll_ctl(ring_buffer__epoll_fd(c->rb), EPOLL_CTL_MOD, f->rb_fds[i], &ev))
			return kp_err_set(err, -errno, "off-CPU: cannot watch ring "
					  "buffer %d: %s", i, strerror(errno));
	}
	return 0;
}

int kp_offcpu__open(struct kp_collector *c, struct kp_err *err)
{
	struct kp_offcpu *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return kp_err_set(err, -ENOMEM, "out of memory");
	f->cgroup_fd = -1;
	c->off = f;
	f->cnt_buf = calloc((size_t)c->nr_possible, sizeof(struct kp_bpf_off_counters));
	f->skel = offcpu_bpf__open();
	if (!f->cnt_buf || !f->skel)
		return kp_err_set(err, -errno ? -errno : -ENOMEM,
				  "cannot open the off-CPU BPF program: %s",
				  strerror(errno ? errno : ENOMEM));
	set_rodata(c, f->skel);
	bpf_map__set_max_entries(f->skel->maps.off_bufs, (uint32_t)c->nr_possible);
	bpf_map__set_max_entries(f->skel->maps.off_scratch, (uint32_t)c->nr_possible);
	ret = want_user_return(c, f->skel);
	if (ret)
		return kp_err_set(err, ret, "cannot share the marked processes with "
				  "the off-CPU program: %s", strerror(-ret));
	ret = offcpu_bpf__load(f->skel);
	if (ret)
		return kp_err_set(err, -ENOTSUP, "cannot load the off-CPU BPF program "
				  "(%s): it needs the BTF tracepoints sched_switch and "
				  "sched_waking of Linux 5.18 or later (set "
				  "KPTOP_BPF_DEBUG=1 for the verifier log)", strerror(-ret));
	ret = make_rings(c, f, err);
	return ret ? ret : fill_filters(c, f, err);
}

int kp_offcpu__enable(struct kp_collector *c, int on)
{
	struct kp_offcpu *f = c->off;
	int ret;

	if (!f)
		return -ENODEV;
	if (!on || f->sw) {
		if (!on && f->sw) {
			bpf_link__destroy(f->sw);
			bpf_link__destroy(f->wk);
			bpf_link__destroy(f->uret);
			f->sw = f->wk = f->uret = NULL;
		}
		return 0;
	}
	f->skel->bss->attach_gen++;	/* slots of an earlier attach are stale */
	if (bpf_program__autoload(f->skel->progs.kp_user_return) &&
	    !(f->uret = bpf_program__attach(f->skel->progs.kp_user_return)))
		return -errno;
	f->wk = bpf_program__attach(f->skel->progs.kp_waking);
	if (!f->wk) {
		ret = -errno;
		goto out;
	}
	f->sw = bpf_program__attach(f->skel->progs.kp_switch);
	if (f->sw)
		return 0;
	ret = -errno;
out:
	bpf_link__destroy(f->wk);
	bpf_link__destroy(f->uret);
	f->wk = f->uret = NULL;
	return ret;
}

int kp_offcpu__on(const struct kp_collector *c)
{
	return c->off && c->off->sw;
}

void kp_offcpu__counters(struct kp_collector *c, uint64_t *sum)
{
	const struct kp_bpf_off_counters *pc;
	uint32_t zero = 0;

	memset(sum, 0, KP_OFF_CNT_MAX * sizeof(*sum));
	if (!c->off || bpf_map_lookup_elem(bpf_map__fd(c->off->skel->maps.off_counters),
					   &zero, c->off->cnt_buf))
		return;
	pc = (const void *)c->off->cnt_buf;
	for (int cpu = 0; cpu < c->nr_possible; cpu++)
		for (int k = 0; k < KP_OFF_CNT_MAX; k++)
			sum[k] += pc[cpu].c[k];
}

uint64_t kp_offcpu__lost(const struct kp_collector *c, int cpu)
{
	const struct kp_bpf_off_counters *pc;

	if (!c->off || cpu < 0 || cpu >= c->nr_possible)
		return 0;
	pc = (const void *)c->off->cnt_buf;	/* as last read */
	return pc[cpu].c[KP_OFF_CNT_LOST];
}

void kp_offcpu__close(struct kp_collector *c)
{
	struct kp_offcpu *f = c->off;

	if (!f)
		return;
	kp_offcpu__enable(c, 0);
	offcpu_bpf__destroy(f->skel);
	for (int i = 0; f->rb_fds && i < c->nr_cpus; i++)
		if (f->rb_fds[i] >= 0)
			close(f->rb_fds[i]);
	free(f->rb_fds);
	if (f->cgroup_fd >= 0)
		close(f->cgroup_fd);
	free(f->cnt_buf);
	free(f);
	c->off = NULL;
}
