/* SPDX-License-Identifier: GPL-2.0-only */
/* kp_bpf.h — the layout shared by kptop.bpf.c and the collector.
 *
 * Owns: the sample the BPF program writes into its per-CPU ring buffer,
 * the per-CPU counters it keeps, and the limits both sides agree on; the
 * same for the off-CPU program (offcpu.bpf.c), below.
 * Included by the BPF programs (clang -target bpf) and by user space, so it
 * holds only __u32/__u64 fields and fixed arrays, no libc includes, and
 * every limit sits under #ifndef.
 *
 * A sample in the ring buffer is struct kp_bpf_sample up to data[], then
 * nr_kframes + nr_uframes 8-byte addresses (kernel first, innermost first),
 * then stack_len bytes of user stack copied from regs[7] (rsp) up, then
 * (from the next multiple of 8) nr_pyframes Python frames of two 8-byte
 * values (code object, info: record.h KP_PYF_*). Only that used length is
 * written.
 */
#ifndef KP_COLLECT_BPF_H
#define KP_COLLECT_BPF_H

#include "util/py-walk.h"

#ifndef KP_BPF_MAX_FRAMES
#define KP_BPF_MAX_FRAMES 127		/* per stack, = KP_MAX_FRAMES */
#endif
#ifndef KP_BPF_STACK_MAX
#define KP_BPF_STACK_MAX 65536		/* = KP_MAX_STACK_BYTES, power of 2 */
#endif
#ifndef KP_BPF_STACK_MIN
#define KP_BPF_STACK_MIN 64		/* copied at rsp in every mode */
#endif
#ifndef KP_BPF_COMM_LEN
#define KP_BPF_COMM_LEN 16
#endif
#ifndef KP_BPF_NR_REGS
#define KP_BPF_NR_REGS 17		/* x86-64 DWARF 0..16 */
#endif
#ifndef KP_BPF_IDLE_RANGES
#define KP_BPF_IDLE_RANGES 4		/* idle_lo/idle_hi: halting kernel text */
#endif
#ifndef KP_BPF_MAX_PIDS
#define KP_BPF_MAX_PIDS 8192		/* -p filter and dwarf_pids entries */
#endif
#ifndef KP_BPF_EXE_STATES
#define KP_BPF_EXE_STATES 1024		/* programs --unwind auto follows (LRU) */
#endif
#ifndef KP_BPF_SPEC_SAMPLES
#define KP_BPF_SPEC_SAMPLES 512		/* a program's samples copied unmarked */
#endif

#ifndef KP_BPF_PY_MAX_FRAMES
#define KP_BPF_PY_MAX_FRAMES 127	/* = KP_MAX_PYFRAMES */
#endif
#ifndef KP_BPF_PY_MAX_THREADS
#define KP_BPF_PY_MAX_THREADS 64	/* thread states looked at per sample */
#endif
#ifndef KP_BPF_PY_PROCS
#define KP_BPF_PY_PROCS 4096		/* py_procs entries */
#endif
/* The kernel's task flag of a kernel thread (include/linux/sched.h), in
 * task_struct.flags and /proc/PID/stat's flags field. */
#define KP_PF_KTHREAD 0x00200000u

#define KP_BPF_PY_NONE 0xffff		/* an offset the version lacks */
#define KP_BPF_PY_WINDOW 72		/* bytes of a frame read at once */

/* A Python process (py_procs map, key: its pid in kptop's namespace), written by the
 * collector: where the interpreter's state is and the layout of its
 * version (offsets in bytes, from the version's own headers). */
struct kp_bpf_py_proc {
	__u64 runtime;		/* address of _PyRuntime */
	__u32 version;		/* major << 8 | minor */
	__u32 own_pidns;	/* 1: thread ids differ from the global ones */
	__u16 interp_head;	/* _PyRuntime.interpreters.head */
	__u16 tstate_head;	/* PyInterpreterState.threads.head */
	__u16 ts_next;		/* PyThreadState.next */
	__u16 ts_tid;		/* PyThreadState.native_thread_id */
	__u16 ts_cframe;	/* PyThreadState.cframe, NONE: ts_frame direct */
	__u16 ts_frame;		/* cframe.current_frame (or the thread's) */
	__u16 f_code;		/* _PyInterpreterFrame.f_code, < WINDOW - 8 */
	__u16 f_previous;	/* .previous, < WINDOW - 8 */
	__u16 f_instr;		/* .prev_instr, < WINDOW - 8; PyFrameObject.f_lasti
				 * (read apart, anywhere) */
	__u16 f_entry;		/* .is_entry (1 byte), NONE: shim frames */
	__u16 f_owner;		/* .owner (1 byte) */
	__u16 co_linetable;	/* PyCodeObject.co_linetable */
	__u16 co_code;		/* PyCodeObject.co_code_adaptive */
	__u8 frames;		/* util/py-walk.h KP_PY_FRAMES_* */
	__u8 tid;		/* util/py-walk.h KP_PY_TID_* */
	__u16 pad[2];
};

/* Per-CPU counters (counters map, one struct per CPU). */
enum kp_bpf_counter {
	KP_CNT_TAKEN = 0,	/* samples that passed the filters */
	KP_CNT_BPF_FULL,	/* ring buffer output failed (or no buffer) */
	KP_CNT_KSTACK_ERR,	/* kernel stack could not be read */
	KP_CNT_USTACK_ERR,	/* user stack could not be read */
	KP_CNT_DWARF,		/* samples with regs + a stack_bytes copy */
	KP_CNT_DWARF_SPEC,	/* ... of which of a process not marked
				 * (--unwind auto: kptop.bpf.c auto_dwarf) */
	KP_CNT_FILTERED,	/* samples skipped by -p / --cgroup */
	KP_CNT_PY_OK,		/* Python samples: the whole chain read */
	KP_CNT_PY_NO_THREAD,	/* ... the thread's state not found */
	KP_CNT_PY_TRUNC,	/* ... the chain cut at the bound */
	KP_CNT_PY_FAULT,	/* ... a read of the interpreter failed */
	KP_CNT_MAX,
};

struct kp_bpf_counters {
	__u64 c[KP_CNT_MAX];
};

/* Sample flags: src/stream/sample-flags.h (KP_SAMPLE_*). */
struct kp_bpf_sample {
	__u64 time_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 cgroup_id;
	__u32 cpu;
	__u32 pid, tid;		/* kptop's pid namespace, 0 if not visible */
	__u32 gpid, gtid;	/* initial pid namespace */
	__u32 flags;
	__u32 kerr, uerr;	/* -errno (two's complement), 0 if fine */
	__u32 nr_kframes, nr_uframes;
	__u32 nr_regs, stack_len;
	__u32 py_status, nr_pyframes;	/* record.h KP_PY_*; frames after the stack */
	char comm[KP_BPF_COMM_LEN];
	__u64 regs[KP_BPF_NR_REGS];
	__u64 data[2 * KP_BPF_MAX_FRAMES + KP_BPF_STACK_MAX / 8 +
		   2 * KP_BPF_PY_MAX_FRAMES];
};

#define KP_BPF_SAMPLE_HDR ((unsigned long)&((struct kp_bpf_sample *)0)->data)

/* ---- off-CPU time (offcpu.bpf.c, --off-cpu) ---- */

#ifndef KP_BPF_OFF_THREADS
#define KP_BPF_OFF_THREADS 8192		/* threads tracked at once (LRU) */
#endif
#ifndef KP_BPF_OFF_UFRAMES
#define KP_BPF_OFF_UFRAMES 64		/* user frames kept at switch-out */
#endif

/* Per-CPU counters of offcpu.bpf.c (its off_counters map). */
enum kp_bpf_off_counter {
	KP_OFF_CNT_SWITCHES = 0,	/* sched_switch calls seen */
	KP_OFF_CNT_INTERVALS,		/* intervals ended (a thread seen leaving came back) */
	KP_OFF_CNT_NS,			/* their nanoseconds */
	KP_OFF_CNT_SHORT,		/* intervals held for a later record (sum < off_min) */
	KP_OFF_CNT_RECORDS,		/* records written */
	KP_OFF_CNT_LOST,		/* intervals whose record could not be written */
	KP_OFF_CNT_LOST_NS,		/* their nanoseconds */
	KP_OFF_CNT_FILTERED,		/* switch-outs skipped by -p / --cgroup */
	KP_OFF_CNT_UNPAIRED,		/* switch-ins of a thread not seen leaving */
	KP_OFF_CNT_KSTACK_ERR,		/* kernel stack could not be read */
	KP_OFF_CNT_USTACK_ERR,		/* user stack could not be read */
	KP_OFF_CNT_WAKEUPS,		/* wakers noted */
	KP_OFF_CNT_STACK_WANTED,	/* records held for a whole user stack */
	KP_OFF_CNT_STACK_COPIED,	/* ... which had it copied (offcpu.bpf.c) */
	KP_OFF_CNT_MAX,
};

struct kp_bpf_off_counters {
	__u64 c[KP_OFF_CNT_MAX];
};

/* A thread's state from the switch that took it off its CPU to the one
 * that puts it back (the off_threads map, keyed by global tid). */
struct kp_bpf_off_thread {
	__u64 out_ns;			/* when it left; 0: on a CPU */
	__u64 pend_ns;			/* intervals ended, not yet recorded */
	__u64 cgroup_id;
	__u32 pend_n;
	__u32 gen;			/* the attach it was written in */
	__u32 state;			/* KP_OFF_* (stream/record.h) or raw bits */
	__u32 cpu, flags, uerr;
	__u32 pid, tid, gpid, gtid;	/* kptop's namespace, then global */
	__u32 nr_uframes, nr_regs, stack_len;
	__u32 waker_pid, waker_tid;
	char comm[KP_BPF_COMM_LEN];
	char waker_comm[KP_BPF_COMM_LEN];
	__u64 regs[KP_BPF_NR_REGS];
	__u64 uframes[KP_BPF_OFF_UFRAMES];
	__u8 stack[KP_BPF_STACK_MIN];	/* at rsp, for the frameless leaf */
};

/* An off-CPU record in its ring buffer: struct kp_bpf_offcpu up to
 * data[], then nr_kframes + nr_uframes addresses (kernel first,
 * innermost first), then stack_len bytes of user stack at regs[7]:
 * KP_BPF_STACK_MIN copied at the switch-out, or, for a process unwound by
 * DWARF, up to stack_bytes copied when the thread returns to user space
 * (its user stack is still the one it left with). */
struct kp_bpf_offcpu {
	__u64 time_ns;			/* switch-out of the last interval */
	__u64 off_ns;			/* the intervals' sum */
	__u64 cgroup_id;
	__u32 count, state, cpu, flags;
	__u32 pid, tid, gpid, gtid;
	__u32 kerr, uerr;
	__u32 nr_kframes, nr_uframes, nr_regs, stack_len;
	__u32 waker_pid, waker_tid;
	char comm[KP_BPF_COMM_LEN];
	char waker_comm[KP_BPF_COMM_LEN];
	__u64 regs[KP_BPF_NR_REGS];
	__u64 data[KP_BPF_MAX_FRAMES + KP_BPF_OFF_UFRAMES + KP_BPF_STACK_MAX / 8];
};

#define KP_BPF_OFFCPU_HDR ((unsigned long)&((struct kp_bpf_offcpu *)0)->data)

#endif /* KP_COLLECT_BPF_H */
