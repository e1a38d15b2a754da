// SPDX-License-Identifier: GPL-2.0-only
/* offcpu.bpf.c — off-CPU time (--off-cpu): runs on every scheduler switch
 * (BTF raw tracepoint sched_switch) and wakeup (sched_waking).
 *
 * At the switch that takes a thread off its CPU (it is still current), the
 * filters (-p, --cgroup) run, and the thread's ids, state, user registers,
 * user stack (a frame-pointer walk, as kptop.bpf.c does) and the top of
 * its user stack go into its slot of off_threads: only there can its user
 * memory be read. At the switch that puts it back on a CPU, the interval
 * is measured; intervals are summed in the slot until the sum reaches
 * off_min, and then one record goes out with that sum, the count of
 * intervals and the kernel stack the thread is blocked in, read then
 * (bpf_get_task_stack of a task not running: its stack is still the one
 * it left with), so a short block costs two map look-ups and a user-stack
 * walk, and only a recorded one a kernel walk and a ring-buffer write.
 * sched_waking notes the waker (current) in the slot of the thread woken,
 * and whether it ran in interrupt context (then current was only the task
 * the interrupt found running: KP_SAMPLE_WAKER_IRQ).
 * A process unwound by DWARF (--unwind dwarf, or marked by --unwind auto:
 * off_dwarf_pids, the sampling program's dwarf_pids shared) needs kilobytes
 * of its user stack, which only its own thread can read and which would
 * cost a copy at every switch-out: instead, its record is held in its
 * CPU's off_scratch at the switch-in, and completed on the thread's return
 * to user space (rseq_update, in its context), where its user stack is
 * still the one it left with; if it leaves the CPU first (or its thread
 * has no rseq area), the next switch there sends the record as it was
 * held.
 * Every interval is counted, recorded or not, in off_counters.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "kp_bpf.h"
#include "stream/sample-flags.h"
#include "common.bpf.h"

#define UFRAMES_BYTES (KP_BPF_OFF_UFRAMES * 8)
#define KFRAMES_BYTES (KP_BPF_MAX_FRAMES * 8)
#define TASK_REPORT 0x7f	/* the state bits sched_switch reports */

/* The fields read, relocated by CO-RE against the kernel's BTF. */
struct task_struct {
	void *stack;
	unsigned int flags;
	int pid;
	int tgid;
	char comm[16];
} __attribute__((preserve_access_index));

/* Settings, written by the collector between open and load (as in
 * kptop.bpf.c). */
const volatile __u64 pidns_dev = 0, pidns_ino = 0;
const volatile __u32 filter_pids = 0;
const volatile __u32 filter_cgroup = 0;
const volatile __u32 take_kernel = 1, take_user = 1;
const volatile __u64 off_min_ns = 0;	/* record once the sum reaches it */
const volatile __u64 wake_bytes = 0;
const volatile __u32 unwind_mode = 0;	/* enum kp_unwind_mode, as kptop.bpf.c */
const volatile __u32 stack_bytes = 8192;
/* Counted up by the collector at each attach: a slot written before a
 * detach is stale (its interval spans the time nothing was watched). */
__u32 attach_gen = 0;

struct ringbuf_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct ringbuf_inner);
} off_bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_bpf_off_counters);
} off_counters SEC(".maps");

/* Building one record, an entry per CPU (a per-CPU array's value is
 * limited to 32 KiB; the collector sizes it): sched_switch does not nest
 * on a CPU, and rseq_update's probes run with preemption off. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_bpf_offcpu);
} off_scratch SEC(".maps");

/* The record off_scratch holds on its CPU for a whole user stack: the
 * thread (global tid, 0: none) and the attach it was made in. */
struct kp_off_held {
	__u32 gtid, gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_off_held);
} off_held SEC(".maps");

/* kptop.bpf.c's dwarf_pids (the collector reuses its fd). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KP_BPF_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} off_dwarf_pids SEC(".maps");

/* A zeroed slot to insert from (never written). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_bpf_off_thread);
} off_zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, KP_BPF_OFF_THREADS);
	__type(key, __u32);
	__type(value, struct kp_bpf_off_thread);
} off_threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KP_BPF_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} off_pid_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} off_cgroup_filter SEC(".maps");

static __always_inline void count(struct kp_bpf_off_counters *cnt, int which,
				  __u64 n)
{
	if (cnt && which >= 0 && which < KP_OFF_CNT_MAX)
		cnt->c[which] += n;
}

/* Current's ids in kptop's pid namespace (0 outside it). */
static __always_inline void ns_ids(__u32 *pid, __u32 *tid)
{
	struct bpf_pidns_info ns = {};
	__u64 id = bpf_get_current_pid_tgid();

	if (!pidns_ino) {
		*pid = id >> 32;
		*tid = (__u32)id;
		return;
	}
	if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)))
		ns.pid = ns.tgid = 0;
	*pid = ns.tgid;
	*tid = ns.pid;
}

static __always_inline __u32 off_state(__u64 prev_state)
{
	__u32 st = (__u32)prev_state & TASK_REPORT;

	if (st == 0)
		return 0;	/* KP_OFF_RUNNABLE: preempted */
	if (st == 1)
		return 1;	/* KP_OFF_SLEEP */
	if (st == 2)
		return 2;	/* KP_OFF_DISK */
	return (__u32)prev_state;
}

/* x86-64 pt_regs into DWARF register order (as kptop.bpf.c). */
static __always_inline void put_regs(__u64 *r, const struct pt_regs *p)
{
	r[0] = p->rax; r[1] = p->rdx; r[2] = p->rcx; r[3] = p->rbx;
	r[4] = p->rsi; r[5] = p->rdi; r[6] = p->rbp; r[7] = p->rsp;
	r[8] = p->r8; r[9] = p->r9; r[10] = p->r10; r[11] = p->r11;
	r[12] = p->r12; r[13] = p->r13; r[14] = p->r14; r[15] = p->r15;
	r[16] = p->rip;
}

/* The user stack by its frame pointers into the slot (kptop.bpf.c's walk). */
struct fp_walk {
	struct kp_bpf_off_thread *v;
	__u64 fp, lo;
	__u32 n;
};

static long walk_step(__u64 i, void *ctx)
{
	struct fp_walk *w = ctx;
	struct { __u64 next, ret; } fr;
	__u32 at = w->n;

	if (w->fp < w->lo || (w->fp & 7) ||
	    bpf_probe_read_user(&fr, sizeof(fr), (void *)w->fp))
		return 1;
	asm volatile("" : "+r"(at));
	if (at >= KP_BPF_OFF_UFRAMES)
		return 1;
	w->v->uframes[at] = fr.ret;
	w->n++;
	w->lo = w->fp + sizeof(fr);
	w->fp = fr.next;
	return 0;
}

/* Current's user registers, stack and stack top into the slot. */
static __always_inline void user_part(struct kp_bpf_off_thread *v,
				      struct kp_bpf_off_counters *cnt)
{
	const struct pt_regs *p;
	struct fp_walk w = { .v = v, .n = 1 };

	p = (const struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!p || p->cs != 0x33 || !p->rip) {	/* not 64-bit user code */
		v->flags |= KP_SAMPLE_UERR;
		v->uerr = (__u32)-14;
		count(cnt, KP_OFF_CNT_USTACK_ERR, 1);
		return;
	}
	put_regs(v->regs, p);
	v->uframes[0] = v->regs[16];
	w.fp = v->regs[6];
	w.lo = v->regs[7];
	bpf_loop(KP_BPF_OFF_UFRAMES - 1, walk_step, &w, 0);
	v->nr_uframes = w.n;
	if (w.n >= KP_BPF_OFF_UFRAMES)
		v->flags |= KP_SAMPLE_UTRUNC;
	v->nr_regs = KP_BPF_NR_REGS;
	v->flags |= KP_SAMPLE_REGS;
	if (!bpf_probe_read_user(v->stack, sizeof(v->stack), (void *)v->regs[7]))
		v->stack_len = KP_BPF_STACK_MIN;
}

static __always_inline int filtered_out(__u32 pid)
{
	if (filter_pids && !bpf_map_lookup_elem(&off_pid_filter, &pid))
		return 1;
	if (filter_cgroup &&
	    bpf_current_task_under_cgroup(&off_cgroup_filter, 0) != 1)
		return 1;
	return 0;
}

/* prev (current) leaves its CPU. */
static __always_inline void switch_out(struct task_struct *prev, __u64 state,
				       __u64 now, struct kp_bpf_off_counters *cnt)
{
	struct kp_bpf_off_thread *v;
	__u32 tid = prev->pid, zero = 0, pid, ntid;
	void *z;

	if (tid == 0)
		return;		/* the idle task */
	ns_ids(&pid, &ntid);
	if (filtered_out(pid)) {
		count(cnt, KP_OFF_CNT_FILTERED, 1);
		return;
	}
	v = bpf_map_lookup_elem(&off_threads, &tid);
	if (!v) {
		z = bpf_map_lookup_elem(&off_zero, &zero);
		if (!z || bpf_map_update_elem(&off_threads, &tid, z, BPF_NOEXIST))
			return;
		v = bpf_map_lookup_elem(&off_threads, &tid);
		if (!v)
			return;
	}
	if (v->gen != attach_gen) {	/* held intervals of an earlier attach */
		count(cnt, KP_OFF_CNT_LOST, v->pend_n);
		count(cnt, KP_OFF_CNT_LOST_NS, v->pend_ns);
		v->pend_n = 0;
		v->pend_ns = 0;
		v->gen = attach_gen;
	}
	v->out_ns = now;
	v->state = off_state(state);
	v->cgroup_id = bpf_get_current_cgroup_id();
	v->cpu = bpf_get_smp_processor_id();
	v->pid = pid;
	v->tid = ntid;
	v->gpid = prev->tgid;
	v->gtid = tid;
	v->flags = 0;
	v->uerr = 0;
	v->nr_uframes = v->nr_regs = v->stack_len = 0;
	v->waker_pid = v->waker_tid = 0;
	v->waker_comm[0] = '\0';
	bpf_get_current_comm(v->comm, sizeof(v->comm));
	if (take_user && !(prev->flags & KP_PF_KTHREAD))
		user_part(v, cnt);
}

/* The slot's user part after nk kernel frames in the record. */
static __always_inline void put_user(struct kp_bpf_offcpu *r,
				     const struct kp_bpf_off_thread *v, __u32 nk)
{
	__u32 nu = v->nr_uframes;

	asm volatile("" : "+r"(nk));
	if (nk > KP_BPF_MAX_FRAMES)
		return;
	if (nu > KP_BPF_OFF_UFRAMES)
		nu = KP_BPF_OFF_UFRAMES;
	bpf_probe_read_kernel(&r->data[nk], UFRAMES_BYTES, v->uframes);
	r->nr_uframes = nu;
	r->nr_regs = v->nr_regs;
	__builtin_memcpy(r->regs, v->regs, sizeof(r->regs));
	r->stack_len = 0;
	asm volatile("" : "+r"(nu));
	if (v->stack_len != KP_BPF_STACK_MIN || nu > KP_BPF_OFF_UFRAMES)
		return;
	bpf_probe_read_kernel(&r->data[nk + nu], KP_BPF_STACK_MIN, v->stack);
	r->stack_len = KP_BPF_STACK_MIN;
}

/* Send the record built in r on this CPU's ring buffer. */
static __always_inline void output(struct kp_bpf_offcpu *r, __u32 cpu,
				   struct kp_bpf_off_counters *cnt)
{
	void *rb = bpf_map_lookup_elem(&off_bufs, &cpu);
	__u64 len;

	len = KP_BPF_OFFCPU_HDR + (__u64)(r->nr_kframes + r->nr_uframes) * 8 +
	      r->stack_len;
	if (len > sizeof(*r))
		len = sizeof(*r);
	if (!rb || bpf_ringbuf_output(rb, r, len, kp_ring_flags(rb, len, wake_bytes))) {
		count(cnt, KP_OFF_CNT_LOST, r->count);
		count(cnt, KP_OFF_CNT_LOST_NS, r->off_ns);
		return;
	}
	count(cnt, KP_OFF_CNT_RECORDS, 1);
}

/* Is the slot's record to wait for the whole user stack (above)? */
static __always_inline int wants_stack(const struct kp_bpf_off_thread *v)
{
	__u32 pid = v->pid;

	if (!v->nr_regs || stack_bytes <= KP_BPF_STACK_MIN)
		return 0;
	if (unwind_mode == 2)
		return 1;
	return unwind_mode == 0 && bpf_map_lookup_elem(&off_dwarf_pids, &pid);
}

/* The record's fields from the slot. */
static __always_inline void put_header(struct kp_bpf_offcpu *r,
				       const struct kp_bpf_off_thread *v)
{
	r->time_ns = v->out_ns;
	r->off_ns = v->pend_ns;
	r->count = v->pend_n;
	r->cgroup_id = v->cgroup_id;
	r->state = v->state;
	r->cpu = v->cpu;
	r->flags = v->flags;
	r->pid = v->pid;
	r->tid = v->tid;
	r->gpid = v->gpid;
	r->gtid = v->gtid;
	r->kerr = 0;
	r->uerr = v->uerr;
	r->waker_pid = v->waker_pid;
	r->waker_tid = v->waker_tid;
	__builtin_memcpy(r->comm, v->comm, sizeof(r->comm));
	__builtin_memcpy(r->waker_comm, v->waker_comm, sizeof(r->waker_comm));
}

/* The record of the slot's intervals, next's kernel stack read now; sent,
 * or held in off_scratch until next returns to user space. */
static __always_inline void emit(struct task_struct *next,
				 struct kp_bpf_off_thread *v, __u32 cpu,
				 struct kp_bpf_off_counters *cnt)
{
	__u32 zero = 0, nk = 0;
	struct kp_bpf_offcpu *r = bpf_map_lookup_elem(&off_scratch, &cpu);
	struct kp_off_held *h = bpf_map_lookup_elem(&off_held, &zero);
	long n;

	if (!r || !h) {
		count(cnt, KP_OFF_CNT_LOST, v->pend_n);
		count(cnt, KP_OFF_CNT_LOST_NS, v->pend_ns);
		return;
	}
	put_header(r, v);
	if (take_kernel) {
		n = bpf_get_task_stack(next, r->data, KFRAMES_BYTES, 0);
		if (n < 0) {
			r->kerr = (__u32)n;
			r->flags |= KP_SAMPLE_KERR;
			count(cnt, KP_OFF_CNT_KSTACK_ERR, 1);
		} else {
			nk = ((__u32)n / 8) & 127;
		}
	}
	r->nr_kframes = nk;
	put_user(r, v, nk);
	if (wants_stack(v)) {
		h->gtid = v->gtid;
		h->gen = attach_gen;
		count(cnt, KP_OFF_CNT_STACK_WANTED, 1);
		return;
	}
	output(r, cpu, cnt);
}

/* A record still held on this CPU goes out as it is (its thread left the
 * CPU, or exited, before it returned to user space), before
 * off_scratch is used again; one of an earlier attach is counted lost. */
static __always_inline void flush_held(__u32 cpu, struct kp_bpf_off_counters *cnt)
{
	__u32 zero = 0;
	struct kp_off_held *h = bpf_map_lookup_elem(&off_held, &zero);
	struct kp_bpf_offcpu *r = bpf_map_lookup_elem(&off_scratch, &cpu);

	if (!h || !h->gtid || !r)
		return;
	h->gtid = 0;
	if (h->gen != attach_gen) {
		count(cnt, KP_OFF_CNT_LOST, r->count);
		count(cnt, KP_OFF_CNT_LOST_NS, r->off_ns);
		return;
	}
	output(r, cpu, cnt);
}

/* next comes back on a CPU: the interval ends. */
static __always_inline void switch_in(struct task_struct *next, __u64 now,
				      __u32 cpu, struct kp_bpf_off_counters *cnt)
{
	struct kp_bpf_off_thread *v;
	__u32 tid = next->pid;
	__u64 d;

	if (tid == 0)
		return;
	v = bpf_map_lookup_elem(&off_threads, &tid);
	if (!v || !v->out_ns || v->gen != attach_gen) {
		count(cnt, KP_OFF_CNT_UNPAIRED, 1);
		return;
	}
	d = now > v->out_ns ? now - v->out_ns : 0;
	count(cnt, KP_OFF_CNT_INTERVALS, 1);
	count(cnt, KP_OFF_CNT_NS, d);
	v->pend_ns += d;
	v->pend_n++;
	if (v->pend_ns < off_min_ns) {
		count(cnt, KP_OFF_CNT_SHORT, 1);
	} else {
		emit(next, v, cpu, cnt);
		v->pend_ns = 0;
		v->pend_n = 0;
	}
	v->out_ns = 0;
}

SEC("tp_btf/sched_switch")
int kp_switch(__u64 *ctx)
{
	/* (bool preempt, prev, next, unsigned int prev_state): 5.18+ */
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct kp_bpf_off_counters *cnt = bpf_map_lookup_elem(&off_counters, &zero);
	__u64 now = bpf_ktime_get_ns();

	count(cnt, KP_OFF_CNT_SWITCHES, 1);
	flush_held(cpu, cnt);
	switch_out(prev, ctx[3], now, cnt);
	switch_in(next, now, cpu, cnt);
	return 0;
}

/* current is about to return to user space after it was switched back
 * in (rseq's notification on that return: glibc registers every thread
 * with rseq, so the kernel's rseq_update runs there, in its context,
 * after each switch): if its CPU holds its record, the user stack it left
 * with is copied in and the record sent. Runs once per return after a
 * switch; one per-CPU look-up when nothing is held. */
SEC("tp_btf/rseq_update")
int kp_user_return(__u64 *ctx)
{
	__u32 zero = 0, cpu, off, n;
	struct kp_off_held *h = bpf_map_lookup_elem(&off_held, &zero);
	struct kp_bpf_off_counters *cnt;
	const struct pt_regs *p;
	struct kp_bpf_offcpu *r;

	if (!h || !h->gtid || h->gtid != (__u32)bpf_get_current_pid_tgid())
		return 0;
	h->gtid = 0;
	cnt = bpf_map_lookup_elem(&off_counters, &zero);
	cpu = bpf_get_smp_processor_id();
	r = bpf_map_lookup_elem(&off_scratch, &cpu);
	if (!r)
		return 0;
	if (h->gen != attach_gen) {	/* held before a detach */
		count(cnt, KP_OFF_CNT_LOST, r->count);
		count(cnt, KP_OFF_CNT_LOST_NS, r->off_ns);
		return 0;
	}
	p = (const struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	off = (r->nr_kframes + r->nr_uframes) * 8;
	if (p && p->rsp == r->regs[7]) {	/* the stack it left with */
		n = kp_copy_user_stack((char *)r->data, off, KFRAMES_BYTES + UFRAMES_BYTES,
				       r->regs[7], stack_bytes);
		if (n > r->stack_len) {
			r->stack_len = n;
			count(cnt, KP_OFF_CNT_STACK_COPIED, 1);
		}
	}
	output(r, cpu, cnt);
	return 0;
}

/* Is current interrupted (a hard or soft interrupt, an NMI)? The kernel's
 * in_task() reads the CPU's preempt count, a per-CPU variable that a
 * kernel without CONFIG_KALLSYMS_ALL gives BPF no address for. Instead,
 * on x86-64: an interrupt of kernel code runs on a stack of its own (the
 * CPU's IRQ stack, an NMI's IST stack), and this program's frame is on
 * the stack it runs on, then outside current's; an interrupt of user code
 * runs on current's stack, whose saved user registers then say so: their
 * orig_ax is a vector's (negative), where a system call's is its number.
 * (A softirq run by ksoftirqd is in its task: current, the waker, is then
 * ksoftirqd.) */
#define KP_THREAD_SIZE (16u << 10)	/* x86-64's, without KASAN */
static __always_inline int in_irq_context(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 fp, here = 0, base = (__u64)t->stack;
	long orig_ax = 0;

	/* the frame's address as a number (a copy: the verifier does no
	 * arithmetic on the frame pointer itself) */
	asm volatile("%0 = r10" : "=r"(fp));
	if (bpf_probe_read_kernel(&here, sizeof(here), &fp) || !base)
		return 0;
	if (here - base > KP_THREAD_SIZE)
		return 1;
	if (t->flags & KP_PF_KTHREAD)
		return 0;
	if (bpf_probe_read_kernel(&orig_ax, sizeof(orig_ax),
				  (char *)bpf_task_pt_regs(t) + offsetof(struct pt_regs, orig_rax)))
		return 0;
	return orig_ax < 0;
}

/* current wakes p: note the waker in p's slot. */
SEC("tp_btf/sched_waking")
int kp_waking(__u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct kp_bpf_off_thread *v;
	__u32 tid = p->pid, zero = 0;
	struct kp_bpf_off_counters *cnt;

	v = bpf_map_lookup_elem(&off_threads, &tid);
	if (!v || !v->out_ns)
		return 0;
	ns_ids(&v->waker_pid, &v->waker_tid);
	bpf_get_current_comm(v->waker_comm, sizeof(v->waker_comm));
	v->flags &= ~KP_SAMPLE_WAKER_IRQ;
	if (in_irq_context())
		v->flags |= KP_SAMPLE_WAKER_IRQ;
	cnt = bpf_map_lookup_elem(&off_counters, &zero);
	count(cnt, KP_OFF_CNT_WAKEUPS, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
