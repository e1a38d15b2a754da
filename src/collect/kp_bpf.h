/* kp_bpf.h — the layout shared by kptop.bpf.c and the collector.
 *
 * Owns: the sample the BPF program writes into its per-CPU ring buffer,
 * the per-CPU counters it keeps, and the limits both sides agree on.
 * Included by the BPF program (clang -target bpf) and by user space, so it
 * holds only __u32/__u64 fields and fixed arrays, no libc includes, and
 * every limit sits under #ifndef.
 *
 * A sample in the ring buffer is struct kp_bpf_sample up to data[], then
 * nr_kframes + nr_uframes 8-byte addresses (kernel first, innermost first),
 * then stack_len bytes of user stack copied from regs[7] (rsp) up. Only
 * that used length is written.
 */
#ifndef KP_COLLECT_BPF_H
#define KP_COLLECT_BPF_H

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

/* Per-CPU counters (counters map, one struct per CPU). */
enum kp_bpf_counter {
	KP_CNT_TAKEN = 0,	/* samples that passed the filters */
	KP_CNT_BPF_FULL,	/* ring buffer output failed (or no buffer) */
	KP_CNT_KSTACK_ERR,	/* kernel stack could not be read */
	KP_CNT_USTACK_ERR,	/* user stack could not be read */
	KP_CNT_DWARF,		/* samples with regs + a stack_bytes copy */
	KP_CNT_FILTERED,	/* samples skipped by -p / --cgroup */
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
	char comm[KP_BPF_COMM_LEN];
	__u64 regs[KP_BPF_NR_REGS];
	__u64 data[2 * KP_BPF_MAX_FRAMES + KP_BPF_STACK_MAX / 8];
};

#define KP_BPF_SAMPLE_HDR ((unsigned long)&((struct kp_bpf_sample *)0)->data)

#endif /* KP_COLLECT_BPF_H */
