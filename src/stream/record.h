/* SPDX-License-Identifier: GPL-2.0-only */
/* record.h — the record vocabulary of kptop.
 *
 * Owns: the in-memory form of every record that flows from collect to the
 * model, to the stream writer and back from a saved stream. The wire form
 * is in stream.h and man/kptop-stream.5; nothing here is ever written raw.
 *
 * Who uses it: collect builds records and encodes them (stream.h) into its
 * central queue; the model and the reports consume decoded records.
 *
 * Ownership: a record borrows every pointer it holds (strings, frames,
 * stack bytes, symbol arrays). A decoder's records point into the buffer
 * they were decoded from and are valid until that buffer changes.
 *
 * Never: includes anything but <stdint.h>/<stddef.h> and sample-flags.h;
 * no functions here.
 * Times are CLOCK_MONOTONIC nanoseconds unless a field says otherwise.
 */
#ifndef KP_STREAM_RECORD_H
#define KP_STREAM_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "stream/sample-flags.h"	/* KP_SAMPLE_*, shared with the BPF side */
#include "util/cfi-rec.h"		/* KP_JIT_EH_MAX */

/* Record types. The numbers are part of the stream format: never reuse. */
enum kp_rec_type {
	KP_REC_META = 1,	/* one per stream, first record */
	KP_REC_PROCESS = 2,	/* a process exists (snapshot or fork) */
	KP_REC_EXEC = 3,	/* a process exec'd: new identity, new comm */
	KP_REC_EXIT = 4,	/* a thread or process exited */
	KP_REC_MMAP = 5,	/* an executable mapping appeared */
	KP_REC_SAMPLE = 6,	/* one CPU sample with its stacks */
	KP_REC_LOST = 7,	/* items lost at one stage on one CPU */
	KP_REC_SYMTAB = 8,	/* names for addresses of one module */
	KP_REC_THREAD = 9,	/* a thread exists or was renamed */
	KP_REC_CGROUP = 10,	/* a cgroup id and its path */
	KP_REC_CHECK = 11,	/* closes a block of a saved file (CRC32C) */
	KP_REC_END = 12,	/* the last record of a saved file: its counts */
	KP_REC_CODE = 13,	/* the code and lines of one function (minor 3) */
	KP_REC_OFFCPU = 14,	/* a thread's time off its CPU, with its stacks */
	KP_REC_PYCODE = 15,	/* names of a Python code object of a process */
	KP_REC_JITGEN = 16,	/* a process's JIT code was replaced (minor 12) */
	KP_REC_TYPE_MAX = 16,
};

/* Limits shared by the BPF side, the codec and the model. */
#define KP_MAX_FRAMES 127	/* per stack (kernel or user) */
#define KP_COMM_LEN 16		/* task comm, NUL included */
#define KP_PATH_MAX 4096	/* longest path a record may carry */
#define KP_BUILD_ID_MAX 20	/* bytes */
#define KP_MAX_REGS 17		/* x86-64 DWARF regs 0..16 (rax..rip) */
#define KP_MAX_STACK_BYTES 65536 /* largest user stack copy in a sample */

struct kp_rec_meta {
	const char *version;	/* kptop version string */
	const char *kernel;	/* uname -r */
	const char *hostname;
	const char *arch;	/* uname -m, e.g. "x86_64" */
	uint32_t freq_hz;	/* sampling frequency per CPU; 0 if unknown */
	uint32_t ncpus;		/* online CPUs sampled */
	uint64_t start_mono_ns;	/* CLOCK_MONOTONIC at start */
	uint64_t start_real_ns;	/* CLOCK_REALTIME at the same instant */
	uint32_t page_size;
	uint32_t flags;		/* KP_META_* */
	/* minor 4: the sampling event (-e) by perf's name, "" or NULL for
	 * cpu-clock; its period (-c, events per sample), 0 when sampled
	 * at freq_hz; the event asked for when it could not be counted
	 * here and event is its fallback, "" or NULL otherwise. */
	const char *event;
	uint64_t period;
	const char *event_asked;
};
#define KP_EVENT_NAME_MAX 63	/* longest META event name, in bytes */
#define KP_META_KERNEL_STACKS (1u << 0) /* kernel stacks were sampled */
#define KP_META_USER_STACKS (1u << 1)	/* user stacks were sampled */
#define KP_META_FILTERED (1u << 2)	/* -p or --cgroup filter in force */
#define KP_META_EVENT_COUNT (1u << 3)	/* the event counts occurrences, not
					 * nanoseconds (not a clock) */

/* Process identity is (pid, start_ns): a reused pid has a new start time. */
struct kp_rec_process {
	uint64_t time_ns;	/* when it was seen (snapshot or fork time) */
	uint64_t start_ns;	/* process start, CLOCK_MONOTONIC ns */
	uint32_t pid, ppid;	/* in kptop's pid namespace */
	uint32_t gpid;		/* in the initial pid namespace */
	uint32_t uid;
	uint32_t flags;		/* KP_PROC_* */
	const char *comm;	/* NUL-terminated, < KP_COMM_LEN */
	const char *exe;	/* executable path, "" if unknown */
};
#define KP_PROC_SNAPSHOT (1u << 0) /* from the /proc snapshot at start */
#define KP_PROC_KTHREAD (1u << 1)  /* kernel thread */

struct kp_rec_exec {
	uint64_t time_ns;
	uint32_t pid, tid;
	const char *comm;
	const char *exe;	/* "" if unknown; the MMAP of the exe follows */
};

struct kp_rec_exit {
	uint64_t time_ns;
	uint32_t pid, tid;	/* tid == pid: the whole process exited */
};

struct kp_rec_thread {
	uint64_t time_ns;
	uint32_t pid, tid;
	const char *comm;
};

struct kp_rec_mmap {
	uint64_t time_ns;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;	/* pgoff in bytes */
	uint32_t prot, flags;		/* PROT_*, MAP_* */
	uint32_t maj, min;		/* device of the file */
	uint64_t ino, ino_generation;
	uint8_t build_id_len;		/* 0 when not known */
	uint8_t build_id[KP_BUILD_ID_MAX];
	const char *path;		/* "[vdso]", "//anon" etc. as the kernel says */
};

struct kp_rec_sample {
	uint64_t time_ns;
	uint64_t cgroup_id;		/* cgroup v2 id (inode of the directory) */
	uint32_t cpu;
	uint32_t pid, tid;		/* in kptop's pid namespace (0 if not visible) */
	uint32_t gpid, gtid;		/* in the initial pid namespace */
	uint32_t flags;			/* KP_SAMPLE_* */
	int32_t kerr, uerr;		/* -errno from the stack walk, 0 if fine */
	char comm[KP_COMM_LEN];		/* thread comm, NUL-terminated */
	uint16_t nr_kframes, nr_uframes;	/* each <= KP_MAX_FRAMES */
	const uint64_t *kframes;	/* innermost first */
	const uint64_t *uframes;	/* innermost first */
	/* User registers and a copy of the user stack from regs[7] (rsp)
	 * up, for CFI unwinding; nr_regs == 0 and stack_len == 0 when absent.
	 * regs[] uses the DWARF register numbering of the arch (x86-64:
	 * 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8..15 r8..r15,
	 * 16 rip). */
	uint8_t nr_regs;
	uint64_t regs[KP_MAX_REGS];
	uint32_t stack_len;
	const uint8_t *stack;
	/* The number of identical samples this record stands for (a run of
	 * idle samples of one CPU, sent as one record: kptop-stream(5));
	 * time_ns is the first one's. 0 is read as 1, so a zeroed record is
	 * one sample; the decoder always sets it, to 1 or more. */
	uint32_t weight;
	/* Python (minor 5): how the interpreter's frames were read
	 * (KP_PY_*; KP_PY_NONE: not a Python sample, no frames) and its
	 * frames, innermost first, two values each: pyframes[2i] the code
	 * object's address, pyframes[2i + 1] its KP_PYF_* info. */
	uint32_t py_status;
	uint16_t nr_pyframes;		/* <= KP_MAX_PYFRAMES */
	const uint64_t *pyframes;
};

/* Names of a Python code object of a process, for its frames in SAMPLE
 * records (the identity is pid, code and token). */
struct kp_rec_pycode {
	uint64_t time_ns;
	uint32_t pid;
	uint64_t code;			/* the code object's address */
	uint32_t token;			/* KP_PYF_TOKEN of its frames */
	uint32_t version;		/* interpreter major << 8 | minor */
	uint32_t firstlineno;
	const char *qualname;
	const char *filename;
	uint32_t linetable_len;		/* <= KP_PY_LINETABLE_MAX */
	const uint8_t *linetable;	/* co_linetable, the version's format */
};
#define KP_PY_LINETABLE_MAX 65536

/* The samples a SAMPLE record stands for: its weight, 0 read as 1. */
static inline uint32_t kp_sample_weight(const struct kp_rec_sample *s)
{
	return s->weight ? s->weight : 1;
}

/* Off-CPU time (--off-cpu): one interval a thread spent off its CPU, or
 * count intervals of it each under --off-cpu-min adding up to off_ns.
 * s holds what a SAMPLE would (its weight unused, 1): time_ns when the
 * thread left the CPU, the CPU it left, the stacks it blocked in. */
struct kp_rec_offcpu {
	struct kp_rec_sample s;
	uint64_t off_ns;		/* nanoseconds off the CPU */
	uint32_t count;			/* intervals, >= 1 */
	uint32_t state;			/* KP_OFF_* or the kernel's state bits */
	uint32_t waker_pid, waker_tid;	/* 0 when not woken or not known */
	char waker_comm[KP_COMM_LEN];	/* "" when not known */
};
#define KP_OFF_RUNNABLE 0	/* preempted: R */
#define KP_OFF_SLEEP 1		/* TASK_INTERRUPTIBLE: S */
#define KP_OFF_DISK 2		/* TASK_UNINTERRUPTIBLE: D */

/* Stages at which items can be lost; the numbers are in the stream. */
enum kp_lost_stage {
	KP_LOST_BPF_FULL = 1,	/* BPF could not reserve space in its CPU buffer */
	KP_LOST_CPU_BUFFER = 2,	/* the kernel reported lost records for a CPU buffer */
	KP_LOST_STACK = 3,	/* a stack could not be read (sample kept, stack empty) */
	KP_LOST_QUEUE_FULL = 4,	/* the central queue was at its byte limit */
	KP_LOST_SIDEBAND = 5,	/* perf side-band records lost by the kernel */
	KP_LOST_UNWIND = 6,	/* a DWARF unwind stopped early (sample kept) */
	KP_LOST_OFFCPU = 7,	/* an off-CPU interval could not be recorded */
	KP_LOST_STAGE_MAX = 7,
};

/* count items lost at `stage` on `cpu` since the previous LOST record for
 * the same (stage, cpu); cpu == UINT32_MAX when not tied to a CPU. */
struct kp_rec_lost {
	uint64_t time_ns;
	uint32_t stage;
	uint32_t cpu;
	uint64_t count;
};

/* Names for addresses of one module, so a stream opens with names on
 * another machine. Kernel: path "[kernel.kallsyms]" or "[modname]" and
 * absolute addresses; user modules: addresses are file offsets. */
struct kp_symbol {
	uint64_t addr;
	uint64_t size;		/* 0 if unknown */
	const char *name;	/* "": a function without a name starts at
				 * addr (minor 6, kptop-stream(5)) */
};

/* The owner of a SYMTAB of anonymous (JIT) code, and a JITGEN's
 * process (minor 12): a process, by pid and start time, and the
 * generation of its JIT code. */
struct kp_jit_owner {
	uint32_t pid;		/* 0: no owner (any other SYMTAB) */
	uint64_t start_ns;
	uint32_t gen;
};

struct kp_rec_symtab {
	const char *path;
	uint8_t build_id_len;
	uint8_t build_id[KP_BUILD_ID_MAX];
	uint32_t nr_syms;
	const struct kp_symbol *syms;	/* sorted by addr */
	struct kp_jit_owner owner;	/* pid 0: none */
};

/* From here on, the samples of process owner.pid in its anonymous
 * mappings are of generation owner.gen (not 0). */
struct kp_rec_jitgen {
	uint64_t time_ns;
	struct kp_jit_owner owner;
};

struct kp_rec_cgroup {
	uint64_t time_ns;
	uint64_t id;
	const char *path;	/* relative to the cgroup2 mount, "/" for the root */
};

/* A saved file's blocks (kptop-stream(5), "BLOCKS AND THE END"). */
struct kp_rec_check {
	uint64_t length;	/* bytes of the block, this record excluded */
	uint32_t crc32c;	/* of those bytes */
};

#define KP_END_MAX_TYPES 255	/* counts an END record may hold */

struct kp_rec_end {
	uint64_t samples;	/* sum of the SAMPLE weights before END */
	uint32_t nr_types;	/* <= KP_END_MAX_TYPES */
	const uint64_t *counts;	/* counts[i]: records of type i + 1 before END */
};

/* The code of one function of a user module, with the source line of
 * each instruction (kptop-stream(5), "13 CODE"). */
#define KP_CODE_MAX 65536	/* bytes of code a CODE record may hold */

struct kp_code_line {
	uint32_t off;		/* in code: where this entry starts */
	uint32_t file;		/* 1 + index in strs, 0: not known */
	uint32_t line;		/* 0: not known */
	uint32_t inlined;	/* 1 + index in strs of the inlined function, 0: none */
};

struct kp_rec_code {
	const char *path;
	uint8_t build_id_len;
	uint8_t build_id[KP_BUILD_ID_MAX];
	uint64_t start;		/* file offset of the first byte */
	uint64_t vaddr;		/* link-time address of the first byte */
	const char *name;	/* the function, as the module spells it */
	uint32_t len;		/* 1 .. KP_CODE_MAX */
	const uint8_t *code;
	uint32_t nr_strs;
	const char *const *strs;	/* file and inlined function names */
	uint32_t nr_lines;
	const struct kp_code_line *lines;	/* by increasing off */
	uint32_t start_line;	/* minor 8: the function's first line, 0: not known */
	/* minor 8: strs[i]'s first line when it names an inlined function,
	 * else 0; NULL: none known (nr_strs entries otherwise) */
	const uint32_t *str_lines;
	/* minor 11: JIT code's call frame information (.eh_frame records,
	 * as a jitdump gave it), its pc-relative pointers counted from
	 * eh_vaddr; eh_len 0: none (1 .. KP_JIT_EH_MAX otherwise) */
	uint32_t eh_len;
	const uint8_t *eh_frame;
	uint64_t eh_vaddr;
};

struct kp_record {
	uint32_t type;	/* enum kp_rec_type */
	union {
		struct kp_rec_meta meta;
		struct kp_rec_process process;
		struct kp_rec_exec exec;
		struct kp_rec_exit exit;
		struct kp_rec_thread thread;
		struct kp_rec_mmap mmap;
		struct kp_rec_sample sample;
		struct kp_rec_lost lost;
		struct kp_rec_symtab symtab;
		struct kp_rec_cgroup cgroup;
		struct kp_rec_check check;
		struct kp_rec_end end;
		struct kp_rec_code code;
		struct kp_rec_offcpu offcpu;
		struct kp_rec_pycode pycode;
		struct kp_rec_jitgen jitgen;
	};
};

#endif /* KP_STREAM_RECORD_H */
