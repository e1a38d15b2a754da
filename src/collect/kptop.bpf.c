// SPDX-License-Identifier: GPL-2.0-only
/* kptop.bpf.c — the sampling program: runs on every cpu-clock tick of
 * every CPU, applies the -p / --cgroup filters, takes the kernel stack
 * (bpf_get_stack), the user registers, the user stack (its own walk of the
 * frame pointers from those registers: cheaper than the kernel's, which
 * reads on through junk frame pointers until a read faults; 32-bit code
 * uses the kernel's) and a copy of the top of the user stack, and writes one
 * variable-size sample into that CPU's ring buffer without a wakeup, but
 * for the sample that takes the buffer past wake_bytes (the collector
 * drains the buffers then, or on a timer). Every way a sample can fail to
 * be recorded is counted in the per-CPU counters map. With --unwind
 * auto, a sample copies kilobytes of user stack for DWARF unwinding when
 * its process is marked (dwarf_pids, by the collector), or its program
 * (exe_state, by file) has not had KP_BPF_SPEC_SAMPLES such samples yet.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "kp_bpf.h"
#include "stream/sample-flags.h"
#include "common.bpf.h"

#define FRAMES_BYTES (KP_BPF_MAX_FRAMES * 8)

/* Settings, written by the collector between open and load.
 * pidns_ino == 0: kptop runs in the initial pid namespace, ids are global. */
const volatile __u64 pidns_dev = 0, pidns_ino = 0;
const volatile __u32 filter_pids = 0;	/* 1: only pids in pid_filter */
const volatile __u32 filter_cgroup = 0;	/* 1: only under cgroup_filter[0] */
const volatile __u32 take_kernel = 1, take_user = 1;
const volatile __u32 unwind_mode = 0;	/* enum kp_unwind_mode */
const volatile __u32 stack_bytes = 8192;
const volatile __u32 max_frames = KP_BPF_MAX_FRAMES;	/* perf_event_max_stack */
const volatile __u64 wake_bytes = 0;	/* wake the collector past it; 0: never */
/* Kernel text where an idle CPU halts, [idle_lo, idle_hi); unused: 0, 0.
 * Written after the load, before the perf events are opened (bpfload.c
 * set_idle): the caller reads kallsyms for them while the kernel checks
 * this program. */
__u64 idle_lo[KP_BPF_IDLE_RANGES] = {};
__u64 idle_hi[KP_BPF_IDLE_RANGES] = {};

struct ringbuf_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
};

/* One ring buffer per CPU, created and inserted by the collector. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct ringbuf_inner);
} cpu_bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_bpf_counters);
} counters SEC(".maps");

/* Scratch for building one sample: a plain array indexed by CPU (sized
 * by the collector), since a per-CPU array value cannot be this large.
 * Perf-event programs do not nest on a CPU, so one slot per CPU is safe. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_bpf_sample);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KP_BPF_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} pid_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KP_BPF_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} dwarf_pids SEC(".maps");

/* --unwind auto's programs (below, auto_dwarf), by their file. */
struct kp_exe_key {
	__u64 ino;
	__u32 dev, pad;
};

struct kp_exe_state {
	__u32 spec;	/* samples of unmarked processes copied */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, KP_BPF_EXE_STATES);
	__type(key, struct kp_exe_key);
	__type(value, struct kp_exe_state);
} exe_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

static __always_inline void count(struct kp_bpf_counters *cnt, int which)
{
	if (cnt && which >= 0 && which < KP_CNT_MAX)
		cnt->c[which]++;
}

#include "python.bpf.h"

/* x86-64 pt_regs into DWARF register order. */
static __always_inline void put_regs(__u64 *r, const struct pt_regs *p)
{
	r[0] = p->rax; r[1] = p->rdx; r[2] = p->rcx; r[3] = p->rbx;
	r[4] = p->rsi; r[5] = p->rdi; r[6] = p->rbp; r[7] = p->rsp;
	r[8] = p->r8; r[9] = p->r9; r[10] = p->r10; r[11] = p->r11;
	r[12] = p->r12; r[13] = p->r13; r[14] = p->r14; r[15] = p->r15;
	r[16] = p->rip;
}

/* The user registers: the interrupted registers when the tick hit user
 * mode (the program's context), else the task's saved user registers
 * (x86-64 saves them at the top of the task stack on entry), read by
 * direct loads through the trusted pointer bpf_task_pt_regs() returns,
 * which cost less than one bpf_probe_read_kernel() of the struct.
 * Returns 0 or -errno. */
static __always_inline int user_regs(struct bpf_perf_event_data *ctx,
				     struct kp_bpf_sample *s, __u64 *cs)
{
	const struct pt_regs *p;

	if (s->flags & KP_SAMPLE_USER_MODE) {
		/* ctx fields by their own loads: a pointer into the context
		 * (shared with the path below) is refused by the verifier */
		put_regs(s->regs, (const struct pt_regs *)&ctx->regs);
		*cs = ctx->regs.cs;
		asm volatile("" ::: "memory");
		return 0;
	}
	p = (const struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!p)
		return -14;
	put_regs(s->regs, p);
	*cs = p->cs;
	return 0;
}

/* The user stack by its frame pointers, from the user registers: the pc,
 * then each frame's return address, while the frame lies above the last
 * one (the stack grows down) and reads. One bpf_loop() step per frame
 * (a plain loop is too many states for the verifier). */
struct fp_walk {
	struct kp_bpf_sample *s;
	__u64 fp, lo;
	__u32 off, n;
};

static long walk_step(__u64 i, void *ctx)
{
	struct fp_walk *w = ctx;
	struct { __u64 next, ret; } fr;
	__u32 at;

	if (w->fp < w->lo || (w->fp & 7) ||
	    bpf_probe_read_user(&fr, sizeof(fr), (void *)w->fp))
		return 1;
	at = w->off + w->n * 8;
	asm volatile("" : "+r"(at));
	if (at > 2 * FRAMES_BYTES - 8)	/* for the verifier: (nk + nu) * 8 */
		return 1;
	*(__u64 *)((char *)w->s->data + at) = fr.ret;
	w->n++;
	w->lo = w->fp + sizeof(fr);
	w->fp = fr.next;
	return 0;
}

/* Returns the pcs written at off (at least the pc). */
static __always_inline __u32 walk_fp(struct kp_bpf_sample *s, __u32 off)
{
	struct fp_walk w = { .s = s, .fp = s->regs[6], .lo = s->regs[7],
			     .off = off, .n = 1 };

	asm volatile("" : "+r"(off));
	if (off > FRAMES_BYTES)
		return 0;
	*(__u64 *)((char *)s->data + off) = s->regs[16];
	bpf_loop(max_frames - 1, walk_step, &w, 0);
	return w.n;
}

/* The current process's program file (mm->exe_file), read by CO-RE. */
struct super_block___exe {
	unsigned int s_dev;
} __attribute__((preserve_access_index));

struct inode___exe {
	unsigned long i_ino;
	struct super_block___exe *i_sb;
} __attribute__((preserve_access_index));

struct file___exe {
	struct inode___exe *f_inode;
} __attribute__((preserve_access_index));

struct mm_struct___exe {
	struct file___exe *exe_file;
} __attribute__((preserve_access_index));

struct task_struct___exe {
	struct mm_struct___exe *mm;
} __attribute__((preserve_access_index));

static __always_inline int exe_key(struct kp_exe_key *k)
{
	struct task_struct___exe *t = (void *)bpf_get_current_task_btf();
	struct inode___exe *ino = BPF_CORE_READ(t, mm, exe_file, f_inode);

	if (!ino)
		return -1;
	k->ino = BPF_CORE_READ(ino, i_ino);
	k->dev = BPF_CORE_READ(ino, i_sb, s_dev);
	return 0;
}

/* --unwind auto: a marked process copies (1); an unmarked one (2) while its
 * program has had fewer than KP_BPF_SPEC_SAMPLES samples of unmarked
 * processes (speculative: counted). A program whose processes are marked
 * soon keeps most of that budget for its next processes; one whose
 * processes are never marked (frame pointers, or too short-lived to be
 * judged) spends it once. */
static __always_inline int auto_dwarf(__u32 pid, struct kp_bpf_counters *cnt)
{
	struct kp_exe_state *e, zero = {};
	struct kp_exe_key k = {};

	if (bpf_map_lookup_elem(&dwarf_pids, &pid))
		return 1;
	if (exe_key(&k))
		return 0;
	e = bpf_map_lookup_elem(&exe_state, &k);
	if (!e) {
		bpf_map_update_elem(&exe_state, &k, &zero, BPF_NOEXIST);
		e = bpf_map_lookup_elem(&exe_state, &k);
		if (!e)
			return 0;
	}
	if (e->spec >= KP_BPF_SPEC_SAMPLES)
		return 0;
	__sync_fetch_and_add(&e->spec, 1);
	count(cnt, KP_CNT_DWARF_SPEC);
	return 2;
}

/* 0: no copy; 1: a copy; 2: a speculative copy (KP_SAMPLE_SPEC). */
static __always_inline int wants_dwarf(__u32 pid, struct kp_bpf_counters *cnt)
{
	if (unwind_mode == 2)
		return 1;
	if (unwind_mode == 0)
		return auto_dwarf(pid, cnt);
	return 0;
}

/* The idle task halted in the idle loop: its stack is always the same, and
 * walking it (through the interrupt, on a cold CPU) costs several times a
 * busy sample, so the halting address alone stands for it. */
static __always_inline int idle_halt(__u64 ip)
{
	for (int i = 0; i < KP_BPF_IDLE_RANGES; i++)
		if (ip >= idle_lo[i] && ip < idle_hi[i])
			return 1;
	return 0;
}

/* The kernel stack into s->data; returns its frames. */
static __always_inline __u32 kernel_stack(struct bpf_perf_event_data *ctx,
					  struct kp_bpf_sample *s,
					  struct kp_bpf_counters *cnt)
{
	long n;

	if (s->gtid == 0 && idle_halt(ctx->regs.rip)) {
		s->data[0] = ctx->regs.rip;
		return 1;
	}
	n = bpf_get_stack(ctx, s->data, FRAMES_BYTES, 0);
	if (n < 0) {
		s->kerr = (__u32)n;
		s->flags |= KP_SAMPLE_KERR;
		count(cnt, KP_CNT_KSTACK_ERR);
		return 0;
	}
	if ((__u32)n / 8 >= max_frames)
		s->flags |= KP_SAMPLE_KTRUNC;
	return (__u32)n / 8;
}

static __always_inline void take_stacks(struct bpf_perf_event_data *ctx,
					struct kp_bpf_sample *s,
					struct kp_bpf_counters *cnt)
{
	__u32 nk = 0, nu = 0, want, how;
	__u64 cs = 0;
	int regs;
	long n;

	if (take_kernel && !(s->flags & KP_SAMPLE_USER_MODE))
		nk = kernel_stack(ctx, s, cnt) & 127;
	s->nr_kframes = nk;
	if (!take_user || s->gpid == 0)
		return;
	regs = user_regs(ctx, s, &cs) == 0;
	if (regs && cs == 0x33 && s->regs[16]) {	/* 64-bit user code */
		nu = walk_fp(s, nk * 8) & 127;
	} else {
		n = bpf_get_stack(ctx, (char *)s->data + nk * 8, FRAMES_BYTES,
				  BPF_F_USER_STACK);
		if (n < 0) {
			s->uerr = (__u32)n;
			s->flags |= KP_SAMPLE_UERR;
			count(cnt, KP_CNT_USTACK_ERR);
			return;
		}
		nu = ((__u32)n / 8) & 127;
	}
	if (nu >= max_frames)
		s->flags |= KP_SAMPLE_UTRUNC;
	s->nr_uframes = nu;
	if (nu == 0 || !regs)
		return;	/* a kernel thread, or no saved user registers */
	s->nr_regs = KP_BPF_NR_REGS;
	s->flags |= KP_SAMPLE_REGS;
	how = wants_dwarf(s->pid, cnt);
	want = how ? stack_bytes : KP_BPF_STACK_MIN;
	s->stack_len = kp_copy_user_stack((char *)s->data, (nk + nu) * 8,
					   2 * FRAMES_BYTES, s->regs[7], want);
	if (want > KP_BPF_STACK_MIN && s->stack_len > KP_BPF_STACK_MIN) {
		count(cnt, KP_CNT_DWARF);
		if (how == 2)
			s->flags |= KP_SAMPLE_SPEC;
	}
}

static __always_inline int filtered_out(__u32 pid)
{
	if (filter_pids && !bpf_map_lookup_elem(&pid_filter, &pid))
		return 1;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup_filter, 0) != 1)
		return 1;
	return 0;
}

SEC("perf_event")
int kp_sample(struct bpf_perf_event_data *ctx)
{
	struct bpf_pidns_info ns = {};
	struct kp_bpf_counters *cnt;
	struct kp_bpf_sample *s;
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	__u64 id = bpf_get_current_pid_tgid(), len;
	void *rb;

	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!pidns_ino) {
		ns.tgid = id >> 32;
		ns.pid = (__u32)id;
	} else if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns))) {
		ns.pid = ns.tgid = 0;	/* outside kptop's pid namespace */
	}
	if (filtered_out(ns.tgid)) {
		count(cnt, KP_CNT_FILTERED);
		return 0;
	}
	count(cnt, KP_CNT_TAKEN);
	s = bpf_map_lookup_elem(&scratch, &cpu);
	rb = bpf_map_lookup_elem(&cpu_bufs, &cpu);
	if (!s || !rb) {
		count(cnt, KP_CNT_BPF_FULL);
		return 0;
	}
	s->time_ns = bpf_ktime_get_ns();
	s->cgroup_id = bpf_get_current_cgroup_id();
	s->cpu = cpu;
	s->gpid = id >> 32;
	s->gtid = (__u32)id;
	s->pid = ns.tgid;
	s->tid = ns.pid;
	s->flags = (ctx->regs.cs & 3) ? KP_SAMPLE_USER_MODE : 0;
	if (s->gtid == 0)
		s->flags |= KP_SAMPLE_IDLE;
	s->kerr = s->uerr = 0;
	s->nr_kframes = s->nr_uframes = s->nr_regs = s->stack_len = 0;
	s->py_status = s->nr_pyframes = 0;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	take_stacks(ctx, s, cnt);
	len = (__u64)(s->nr_kframes + s->nr_uframes) * 8 + s->stack_len;
	if (take_user && s->gpid) {	/* Python frames: python.bpf.h */
		py_stack(s, (__u32)((len + 7) & ~7ull), cnt);
		if (s->nr_pyframes)
			len = ((len + 7) & ~7ull) + (__u64)s->nr_pyframes * 16;
	}
	len += KP_BPF_SAMPLE_HDR;
	if (len > sizeof(*s))
		len = sizeof(*s);
	if (bpf_ringbuf_output(rb, s, len, kp_ring_flags(rb, len, wake_bytes)))
		count(cnt, KP_CNT_BPF_FULL);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
