/* SPDX-License-Identifier: GPL-2.0-only */
/* common.bpf.h — what the BPF programs do the same way (included by
 * kptop.bpf.c and offcpu.bpf.c, after kp_bpf.h).
 *
 * Owns: kp_copy_user_stack, which reads the current task's user stack from
 * its stack pointer up into a record's data, and kp_ring_flags, the rule
 * for waking the collector as a ring buffer fills. The copy never reads
 * another task's memory (bpf_probe_read_user reads current's) and never
 * sleeps: a page that is not present ends the copy there. It stops where
 * the thread's frames end when that is known (kp_stack_want).
 */
#ifndef KP_COLLECT_COMMON_BPF_H
#define KP_COLLECT_COMMON_BPF_H

#include <bpf/bpf_core_read.h>

struct mm_struct___kps {
	unsigned long start_stack;
} __attribute__((preserve_access_index));

struct thread_struct___kps {
	unsigned long fsbase;
} __attribute__((preserve_access_index));

struct task_struct___kps {
	struct mm_struct___kps *mm;
	struct thread_struct___kps thread;
} __attribute__((preserve_access_index));

/* The current thread's thread pointer (x86-64's fs base: a glibc or
 * musl thread's TCB, pthread_self()); 0 if unread. */
static __always_inline __u64 kp_thread_pointer(void)
{
	struct task_struct___kps *t = (void *)bpf_get_current_task_btf();
	unsigned long fs = 0;

	if (bpf_core_read(&fs, sizeof(fs), &t->thread.fsbase))
		return 0;
	return fs;
}

/* How much of want to copy from sp: no more than up to where the current
 * thread's frames end, when sp is within want of it. A main thread's end
 * is mm->start_stack (where argc lies: _start began there); a glibc or
 * musl thread's is its thread pointer, the fs base (its TCB and static TLS
 * sit at the top of its stack mapping, above every frame). Elsewhere (an
 * alternate or a runtime's own stack) want is kept. Never under
 * KP_BPF_STACK_MIN: the bytes past the end are mapped (arguments,
 * environment, the TCB), only not needed. x86-64's fs base. */
static __always_inline __u64 kp_stack_want(__u64 sp, __u64 want)
{
	struct task_struct___kps *t = (void *)bpf_get_current_task_btf();
	struct mm_struct___kps *mm = 0;
	unsigned long top = 0;

	if (want <= KP_BPF_STACK_MIN)
		return want;
	if (bpf_core_read(&mm, sizeof(mm), &t->mm) || !mm ||
	    bpf_core_read(&top, sizeof(top), &mm->start_stack) || top <= sp ||
	    top - sp >= want) {
		top = kp_thread_pointer();
		if (top <= sp || top - sp >= want)
			return want;
	}
	return top - sp < KP_BPF_STACK_MIN ? KP_BPF_STACK_MIN : top - sp;
}

/* Copy want bytes of user stack from sp up into dst + off (fewer where
 * the thread's frames end sooner: kp_stack_want), or the longest
 * readable prefix (the stack mapping ends a few pages above sp): after a
 * failed read, drop the last page touched and retry. off_max bounds off
 * for the verifier (a constant: dst must have off_max + KP_BPF_STACK_MAX
 * bytes). Returns the bytes copied, 0 if not even KP_BPF_STACK_MIN. */
static __always_inline __u32 kp_copy_user_stack(char *dst, __u32 off, __u32 off_max,
						__u64 sp, __u32 want)
{
	__u64 last, len = kp_stack_want(sp, want);	/* 64-bit: one register */
	int i;

	asm volatile("" : "+r"(off));
	if (off > off_max)
		return 0;
	for (i = 0; i < 20; i++) {
		if (len < KP_BPF_STACK_MIN)
			return 0;
		if (len > KP_BPF_STACK_MAX)
			len = KP_BPF_STACK_MAX;
		asm volatile("" : "+r"(len));
		if (len > KP_BPF_STACK_MAX || len == 0)
			return 0;
		if (!bpf_probe_read_user(dst + off, len, (void *)sp))
			return (__u32)len;
		last = (sp + len - 1) & ~4095ull;	/* the last page touched */
		len = last > sp ? last - sp : len / 2;
	}
	return 0;
}

/* The flags of a record of len bytes written into ring buffer rb: no
 * wakeup, but for the record that takes its fill past wake_bytes (0:
 * never), so the collector is woken once as the fill crosses the mark,
 * not once per record. */
static __always_inline __u64 kp_ring_flags(void *rb, __u64 len, __u64 wake_bytes)
{
	__u64 avail;

	if (!wake_bytes)
		return BPF_RB_NO_WAKEUP;
	avail = bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA);
	return avail < wake_bytes && avail + len + 8 >= wake_bytes ? BPF_RB_FORCE_WAKEUP
								 : BPF_RB_NO_WAKEUP;
}

#endif /* KP_COLLECT_COMMON_BPF_H */
