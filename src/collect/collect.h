/* SPDX-License-Identifier: GPL-2.0-only */
/* collect.h — the live collector: BPF sampling on every CPU, per-CPU
 * buffers, a bounded central queue, side-band records, exact drop counts.
 *
 * Owns: the BPF skeleton, the perf events (sampling and side-band), the
 * per-CPU buffers, the consumer thread and the central queue. Records leave
 * it only as encoded stream bytes (stream/stream.h), whole records at a
 * time, through kp_collector__peek() (in place) or kp_collector__read().
 *
 * Who calls it: src/main/kptop.c (batch) and src/tui/ (live view). It depends on
 * the record vocabulary (stream/record.h, stream/stream.h) and nothing else
 * of kptop; it never includes curses, the model or the symbols layer.
 *
 * Threads: kp_collector__new() starts one consumer thread that drains the
 * per-CPU buffers into the queue. Every function below may be called from
 * one other thread (the main thread); they are not reentrant among
 * themselves.
 *
 * Runs of identical idle samples of one CPU leave as one SAMPLE record
 * with a weight (coalesce.h); nothing is held back from one drain pass to
 * the next.
 * Drops: samples may be dropped (counted in kp_collect_stats); process,
 * exec, exit, thread, mmap, cgroup and lost records never are. The
 * invariant, exact at any time after kp_collector__stop() returns:
 *   taken == delivered + lost_bpf_full + lost_cpu_buffer + lost_queue_full
 *            + queued
 * where queued is the samples still in the central queue (0 after reading
 * it empty).
 */
#ifndef KP_COLLECT_H
#define KP_COLLECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/kp_err.h"
#include "util/py-walk.h"

enum { KP_OFFCPU_ON = 1, KP_OFFCPU_READY = 2 };

enum kp_unwind_mode {
	KP_UNWIND_AUTO = 0,	/* copy regs+stack only for marked processes */
	KP_UNWIND_FP = 1,	/* frame pointers only */
	KP_UNWIND_DWARF = 2,	/* copy regs+stack for every user sample */
};

#define KP_COLLECT_IDLE_RANGES 4	/* = KP_BPF_IDLE_RANGES */

/* The collector's defaults, which main's options show and start from. */
#define KP_DEFAULT_FREQ 999
#define KP_DEFAULT_STACK_BYTES 8192

struct kp_collect_opts {
	uint32_t freq_hz;		/* per CPU; 0 = KP_DEFAULT_FREQ */
	const char *event;		/* -e: perf's name (event.h); NULL = cpu-clock */
	uint64_t period;		/* -c: a sample every period events; 0 = freq_hz */
	/* --off-cpu: 0 not loaded; KP_OFFCPU_ON loaded and attached at
	 * start; KP_OFFCPU_READY loaded, attached by kp_collector__set_offcpu */
	int off_cpu;
	uint64_t off_cpu_min_ns;	/* record once a thread's sum reaches it */
	const uint32_t *pids;		/* -p filter, NULL/0 = every process */
	size_t nr_pids;
	const char *cgroup_path;	/* --cgroup filter (a cgroup2 directory), or NULL */
	int user_only, kernel_only;	/* which stacks to take */
	size_t cpu_buffer_bytes;	/* per-CPU buffer size; 0 = default */
	size_t queue_limit_bytes;	/* central queue byte limit; 0 = 64 MiB */
	enum kp_unwind_mode unwind;
	uint32_t stack_bytes;		/* user stack copy for dwarf; 0 = default */
	int no_snapshot;		/* tests: skip the /proc snapshot */
	/* Kernel text where an idle CPU halts ([lo, hi)): a sample of the
	 * idle task there keeps only that address as its kernel stack, as
	 * the idle loop's stack never changes and walking it is the
	 * costliest part of such a sample. Asked for once the BPF program
	 * is loaded and before sampling starts, so that the caller can find
	 * it (reading kallsyms) while the kernel checks the program: fills
	 * r[0..max) and returns the count; called once, within
	 * kp_collector__new. NULL or 0 ranges: idle stacks are walked. */
	size_t (*idle_text)(void *ctx, uint64_t (*r)[2], size_t max);
	void *idle_ctx;
};

struct kp_collect_stats {
	uint64_t taken;			/* samples the BPF program took (after filters) */
	uint64_t delivered;		/* samples read out of the queue by the caller */
	uint64_t queued;		/* samples in the queue right now */
	/* (delivered, queued and lost_queue_full count a SAMPLE record of
	 * weight n, a run of idle samples, as n) */
	uint64_t lost_bpf_full;		/* BPF could not write to its CPU buffer */
	uint64_t lost_cpu_buffer;	/* kernel-reported lost records, CPU buffers */
	uint64_t lost_queue_full;	/* dropped at the central queue's limit */
	uint64_t lost_sideband;		/* side-band records lost by the kernel */
	uint64_t stack_err_kernel;	/* samples kept whose kernel stack failed */
	uint64_t stack_err_user;	/* samples kept whose user stack failed */
	uint64_t dwarf_samples;		/* samples that carried regs + stack bytes */
	uint64_t dwarf_spec;		/* ... before their process was marked (auto) */
	uint64_t marked_pids;		/* processes marked for DWARF in auto mode */
	uint64_t queue_bytes, queue_limit;	/* current fill and limit */
	uint64_t records;		/* all records queued (samples + control) */
	int sampling;			/* 1 while sampling is on */
	/* Off-CPU (--off-cpu): on (attached), the scheduler switches seen,
	 * intervals ended and their nanoseconds, records written, intervals
	 * folded into a later record (under --off-cpu-min), intervals lost
	 * (buffer full) and their nanoseconds. Exact: every interval ended
	 * is in a record's count, in off_lost, or waits in BPF for its
	 * thread's sum to reach --off-cpu-min. Records of processes unwound
	 * by DWARF wait for their whole user stack (off_stack_wanted);
	 * off_stack_copied of them had it copied (the others left their CPU
	 * again before returning to user space, or have no rseq area, and
	 * keep the frame-pointer stack). */
	int off_on;
	uint64_t off_switches, off_intervals, off_ns, off_records;
	uint64_t off_short, off_lost, off_lost_ns, off_unpaired, off_wakeups;
	uint64_t off_stack_wanted, off_stack_copied;
	/* Samples of known Python processes, by how their Python frames
	 * were read (kptop-stream(5), SAMPLE py_status). */
	uint64_t py_ok, py_no_thread, py_trunc, py_fault;
};

/* A Python process for the BPF program (python.bpf.h): where its
 * _PyRuntime is and the byte offsets its interpreter version's headers
 * give (KP_COLLECT_PY_NONE: the version has no such field). */
#define KP_COLLECT_PY_NONE 0xffff
struct kp_collect_py {
	uint64_t runtime;		/* address of _PyRuntime */
	uint32_t version;		/* major << 8 | minor */
	int own_pidns;			/* its thread ids are not the global ones */
	uint16_t interp_head;		/* _PyRuntime.interpreters.head */
	uint16_t tstate_head;		/* PyInterpreterState.threads.head */
	uint16_t ts_next, ts_tid;	/* PyThreadState.next, .native_thread_id */
	uint16_t ts_cframe;		/* .cframe (NONE: ts_frame is the thread's) */
	uint16_t ts_frame;		/* _PyCFrame.current_frame */
	uint16_t f_code, f_previous, f_instr;	/* _PyInterpreterFrame, < 64 */
	uint16_t f_entry, f_owner;	/* .is_entry (NONE: shim frames), .owner */
	uint16_t co_linetable, co_code;	/* PyCodeObject */
	/* util/py-walk.h KP_PY_FRAMES_* (with PyFrameObject frames, f_entry
	 * and f_owner are NONE and f_instr at most KP_PY_LASTI_OFF_MAX) */
	uint8_t frames;
	uint8_t tid;			/* util/py-walk.h KP_PY_TID_* */
};

struct kp_collector;

/* Check rights, load the BPF program, open the perf events on every online
 * CPU and start the consumer thread. Sampling starts at once. The /proc
 * snapshot (PROCESS, THREAD, MMAP, CGROUP records) and a META record are
 * the first records queued. Returns NULL with errno set and a one-line
 * message in err naming what is missing (root, CAP_BPF + CAP_PERFMON,
 * perf_event_paranoid, a frequency over perf_event_max_sample_rate) on
 * failure; KP_EUSAGE for an event this machine cannot count. A hardware
 * event (-e cycles) on a machine without a PMU for it falls back to
 * cpu-clock: kp_collector__fallback() says so, the META record too. */
struct kp_collector *kp_collector__new(const struct kp_collect_opts *opts,
				       struct kp_err *err);

/* Stop: sampling off on every CPU, then every per-CPU buffer drained into
 * the queue, so nothing already sampled is lost. Start: sampling on again.
 * Flush: drain the per-CPU buffers into the queue now. */
int kp_collector__start(struct kp_collector *c);
int kp_collector__stop(struct kp_collector *c);
int kp_collector__flush(struct kp_collector *c);

/* The oldest queued records, in place: *data and their byte count (whole
 * encoded records), 0 on timeout, or -errno. Waits up to timeout_ms (0:
 * no wait, -1: forever) for the first record. The bytes stay valid until
 * kp_collector__consume, which must follow a peek that returned more
 * than 0 before the next peek or read. */
ssize_t kp_collector__peek(struct kp_collector *c, const void **data,
			   int timeout_ms);
void kp_collector__consume(struct kp_collector *c);
/* A peek copied into buf and consumed: the byte count, 0 on timeout, or
 * -errno (-ENOSPC: more than cap bytes, nothing taken; 256 KiB or the
 * largest record, whichever is more, always suffices). */
ssize_t kp_collector__read(struct kp_collector *c, void *buf, size_t cap,
			   int timeout_ms);

/* An fd that is readable while the queue is not empty (for poll()). */
int kp_collector__fd(const struct kp_collector *c);
/* lazy = 1: the fd turns readable only once the queue holds an eighth of
 * its limit, for a reader that reads on its own timer as well (the live
 * view, at each refresh): an idle machine then costs it no wakeup between
 * refreshes, a busy one is read long before samples are dropped.
 * 0 (the default): as soon as it holds a record. */
void kp_collector__set_lazy_fd(struct kp_collector *c, int lazy);

/* Counters, exact; also written into the queue as LOST records. */
void kp_collector__stats(struct kp_collector *c, struct kp_collect_stats *out);

/* The event asked for when it could not be counted here and cpu-clock
 * is sampled instead (static: from the event table), else NULL. */
const char *kp_collector__fallback(const struct kp_collector *c);

/* --off-cpu: attach (on) or detach the off-CPU program while running,
 * loading it first if the collector was made without it (off_cpu 0);
 * 0 or -errno (-ENOTSUP: this kernel cannot load it). */
int kp_collector__set_offcpu(struct kp_collector *c, int on);

/* Mark or unmark a process for DWARF stack copies (auto unwind mode). */
int kp_collector__mark_dwarf(struct kp_collector *c, uint32_t pid, int on);

/* Read the Python frames of process pid (in kptop's pid namespace) at
 * its samples, with py's layout; py NULL: stop (no error if it was not
 * known). */
int kp_collector__python(struct kp_collector *c, uint32_t pid,
			 const struct kp_collect_py *py);

/* Stop everything, join the thread, free. NULL is a no-op. */
void kp_collector__free(struct kp_collector *c);

#endif /* KP_COLLECT_H */
