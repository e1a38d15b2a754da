/* SPDX-License-Identifier: GPL-2.0-only */
/* python.bpf.h — the Python frames of a sample, read in the BPF program
 * (included by kptop.bpf.c only, after kp_bpf.h and sample-flags.h).
 *
 * Owns: the py_procs map (key: the pid in kptop's pid namespace, filled
 * by the collector, collect.h kp_collector__python) and the walk: _PyRuntime -> the first
 * interpreter -> its thread states, the one whose native thread id is the
 * sampled thread's -> its current interpreter frame -> the chain of
 * frames by their previous links, at most KP_BPF_PY_MAX_FRAMES, each
 * written as (code object, info) after the sample's stack bytes. The
 * offsets are the interpreter version's (struct kp_bpf_py_proc); nothing
 * here knows a version. Every outcome has its counter (KP_CNT_PY_*) and
 * its py_status; a failed read ends the chain where it failed, so a
 * frame is never made up.
 */
#include <bpf/bpf_core_read.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KP_BPF_PY_PROCS);
	__type(key, __u32);
	__type(value, struct kp_bpf_py_proc);
} py_procs SEC(".maps");

/* One frame's first KP_BPF_PY_WINDOW bytes, read at once (a map value
 * may be indexed by a variable offset, the stack may not). */
struct py_window {
	__u64 w[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_window);
} py_win SEC(".maps");

/* The thread id in the thread's own pid namespace (what CPython's
 * native_thread_id holds): task->thread_pid->numbers[level].nr, by
 * CO-RE. 0 if it cannot be read. */
struct upid {
	int nr;
	void *ns;
};

struct pid___kp {
	unsigned int level;
	struct upid numbers[1];
} __attribute__((preserve_access_index));

struct task_struct___kp {
	struct pid___kp *thread_pid;
} __attribute__((preserve_access_index));

/* pthread_self() of the sampled thread, which 3.10 and older keep as a
 * thread state's thread_id: on x86-64 glibc its fs base
 * (common.bpf.h kp_thread_pointer). 0 if unread. */
static __always_inline __u64 py_pthread(void)
{
	return kp_thread_pointer();
}

static __always_inline __u32 py_ns_tid(void)
{
	struct task_struct___kp *t = (void *)bpf_get_current_task_btf();
	struct pid___kp *p = 0;
	unsigned int level = 0;
	struct upid u = {};

	if (bpf_core_read(&p, sizeof(p), &t->thread_pid) || !p ||
	    bpf_core_read(&level, sizeof(level), &p->level))
		return 0;
	if (bpf_probe_read_kernel(&u, sizeof(u), (char *)p +
				  bpf_core_field_offset(p->numbers) +
				  (level & 31) * sizeof(struct upid)))
		return 0;
	return (__u32)u.nr;
}

static __always_inline __u64 py_word(const struct py_window *win, __u16 off)
{
	return win->w[(off >> 3) & 15];
}

static __always_inline __u8 py_byte(const struct py_window *win, __u16 off)
{
	return (__u8)(win->w[(off >> 3) & 15] >> ((off & 7) * 8));
}

/* ---- the sampled thread's state ---- */

struct py_thr {
	__u64 ts, found, tid;
	__u16 ts_next, ts_tid;
	int fault;
};

static long py_thread_step(__u64 i, void *ctx)
{
	struct py_thr *w = ctx;
	__u64 tid = 0;

	if (!w->ts)
		return 1;
	if (bpf_probe_read_user(&tid, sizeof(tid), (void *)(w->ts + w->ts_tid))) {
		w->fault = 1;
		return 1;
	}
	if (tid == w->tid) {
		w->found = w->ts;
		return 1;
	}
	if (bpf_probe_read_user(&w->ts, sizeof(w->ts), (void *)(w->ts + w->ts_next))) {
		w->fault = 1;
		return 1;
	}
	return 0;
}

/* ---- the frame chain ---- */

#define PY_DATA_LIMIT (sizeof(((struct kp_bpf_sample *)0)->data) - 16)

struct py_fw {
	struct kp_bpf_sample *s;
	struct py_window *win;
	const struct kp_bpf_py_proc *pp;
	__u64 frame;
	__u32 off, n, status;
};

/* 3.12 and later mark the C entry by a shim frame below the entered one
 * (owner 3, FRAME_OWNED_BY_CSTACK): it is not a Python frame; the frame
 * written before it was entered from C. */
static __always_inline int py_shim(struct py_fw *w)
{
	__u32 at;

	if (w->pp->frames != KP_PY_FRAMES_INTERP || w->pp->f_entry != KP_BPF_PY_NONE ||
	    py_byte(w->win, w->pp->f_owner) != 3)
		return 0;
	if (w->n) {
		at = w->off + (w->n - 1) * 16 + 8;
		asm volatile("" : "+r"(at));
		if (at <= PY_DATA_LIMIT + 8)
			*(__u64 *)((char *)w->s->data + at) |= KP_PYF_ENTRY;
	}
	return 1;
}

/* A frame's info but its token (bits 0-32: the instruction, the entry).
 * Before 3.11 (PyFrameObject): f_lasti, the index (3.10) or byte
 * offset (3.8, 3.9) of the instruction last started (-1: none yet), read
 * apart from the window; every frame is one call of the loop. */
static __always_inline __u64 py_info_lasti(struct py_fw *w, __u64 frame)
{
	__s32 lasti = -1;
	__u64 info = 0;

	if (!bpf_probe_read_user(&lasti, sizeof(lasti), (void *)(frame + w->pp->f_instr)) &&
	    lasti >= 0)
		info = (w->pp->frames == KP_PY_FRAMES_LASTI_BYTES ? (__u64)lasti / 2
								       : (__u64)lasti) + 1;
	return info | KP_PYF_ENTRY;
}

/* The same for 3.11 and later: prev_instr (or instr_ptr) in the window. */
static __always_inline __u64 py_info(struct py_fw *w, __u64 code)
{
	__u64 start = code + w->pp->co_code, instr, info = 0;

	instr = py_word(w->win, w->pp->f_instr);
	if (instr >= start && instr - start < (1ull << 31))
		info = (instr - start) / 2 + 1;
	if (w->pp->f_entry != KP_BPF_PY_NONE && py_byte(w->win, w->pp->f_entry))
		info |= KP_PYF_ENTRY;
	return info;
}

static long py_frame_step(__u64 i, void *ctx)
{
	struct py_fw *w = ctx;
	__u64 code, lt = 0, frame = w->frame;
	__u32 at;

	if (!w->frame) {
		w->status = KP_PY_OK;
		return 1;
	}
	if (bpf_probe_read_user(w->win, KP_BPF_PY_WINDOW, (void *)w->frame)) {
		w->status = KP_PY_FAULT;
		return 1;
	}
	w->frame = py_word(w->win, w->pp->f_previous);
	if (py_shim(w))
		return 0;
	if (w->n >= KP_BPF_PY_MAX_FRAMES) {
		w->status = KP_PY_TRUNC;
		return 1;
	}
	code = py_word(w->win, w->pp->f_code);
	if (bpf_probe_read_user(&lt, sizeof(lt), (void *)(code + w->pp->co_linetable))) {
		w->status = KP_PY_FAULT;
		return 1;
	}
	at = w->off + w->n * 16;
	asm volatile("" : "+r"(at));
	if (at > PY_DATA_LIMIT) {
		w->status = KP_PY_TRUNC;
		return 1;
	}
	*(__u64 *)((char *)w->s->data + at) = code;
	/* the token: bits 4 to 27 of the line table's address */
	*(__u64 *)((char *)w->s->data + at + 8) =
		(w->pp->frames == KP_PY_FRAMES_INTERP ? py_info(w, code)
							  : py_info_lasti(w, frame)) |
		((lt >> 4) & 0xffffff) << 40;
	w->n++;
	return 0;
}

static __always_inline int py_count(__u32 status)
{
	switch (status) {
	case KP_PY_OK: return KP_CNT_PY_OK;
	case KP_PY_NO_THREAD: return KP_CNT_PY_NO_THREAD;
	case KP_PY_TRUNC: return KP_CNT_PY_TRUNC;
	default: return KP_CNT_PY_FAULT;
	}
}

/* The current frame of the sampled thread's state, 0 if it has none;
 * sets s->py_status on failure. */
static __always_inline __u64 py_current(struct kp_bpf_sample *s,
					const struct kp_bpf_py_proc *pp)
{
	struct py_thr t = { .ts_next = pp->ts_next, .ts_tid = pp->ts_tid };
	__u64 interp = 0, frame = 0, at;

	t.tid = pp->tid == KP_PY_TID_PTHREAD ? py_pthread() :
		pp->own_pidns ? py_ns_tid() : s->gtid;
	if (bpf_probe_read_user(&interp, 8, (void *)(pp->runtime + pp->interp_head)) ||
	    !interp ||
	    bpf_probe_read_user(&t.ts, 8, (void *)(interp + pp->tstate_head))) {
		s->py_status = KP_PY_FAULT;
		return 0;
	}
	bpf_loop(KP_BPF_PY_MAX_THREADS, py_thread_step, &t, 0);
	if (!t.found) {
		s->py_status = t.fault ? KP_PY_FAULT : KP_PY_NO_THREAD;
		return 0;
	}
	at = t.found;
	if (pp->ts_cframe != KP_BPF_PY_NONE &&
	    bpf_probe_read_user(&at, 8, (void *)(t.found + pp->ts_cframe))) {
		s->py_status = KP_PY_FAULT;
		return 0;
	}
	if (bpf_probe_read_user(&frame, 8, (void *)(at + pp->ts_frame))) {
		s->py_status = KP_PY_FAULT;
		return 0;
	}
	s->py_status = KP_PY_OK;
	return frame;
}

/* The Python frames of a sample of a known Python process, written at
 * byte off of s->data (a multiple of 8 after the stack bytes). */
static __always_inline void py_stack(struct kp_bpf_sample *s, __u32 off,
				     struct kp_bpf_counters *cnt)
{
	const struct kp_bpf_py_proc *pp;
	struct py_fw w = { .s = s, .off = off, .status = KP_PY_TRUNC };
	__u32 zero = 0;

	if (!s->pid)
		return;
	pp = bpf_map_lookup_elem(&py_procs, &s->pid);
	if (!pp)
		return;
	w.pp = pp;
	w.win = bpf_map_lookup_elem(&py_win, &zero);
	w.frame = py_current(s, pp);
	if (w.frame && w.win && off <= PY_DATA_LIMIT) {
		bpf_loop(KP_BPF_PY_MAX_FRAMES + 16, py_frame_step, &w, 0);
		s->py_status = w.status;
		s->nr_pyframes = w.n;
	} else if (w.frame) {
		s->py_status = KP_PY_FAULT;
	}
	count(cnt, py_count(s->py_status));
}
