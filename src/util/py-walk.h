/* SPDX-License-Identifier: GPL-2.0-only */
/* py-walk.h — how the BPF program walks one CPython version's frames and
 * finds its thread: the values of the frames and tid fields that
 * symbols/pycode.h tells from the interpreter (struct kp_py_layout), the
 * pump hands to the collector (collect.h struct kp_collect_py) and the
 * BPF program reads (kp_bpf.h struct kp_bpf_py_proc).
 *
 * Owns only these values: plain defines, no includes, so that the BPF
 * programs (clang -target bpf) include it too. Nothing here knows a
 * version's offsets.
 */
#ifndef KP_UTIL_PY_WALK_H
#define KP_UTIL_PY_WALK_H

/* How a version's frames are walked (the frames field). */
/* 3.11 and later: _PyInterpreterFrame, f_instr a pointer into the code
 * object (co_code: its first code unit) */
#define KP_PY_FRAMES_INTERP 0
/* 3.10: PyFrameObject, f_instr is f_lasti, an int in code units; one call
 * of the evaluation loop per frame */
#define KP_PY_FRAMES_LASTI 1
/* 3.8, 3.9: the same, f_lasti in bytes */
#define KP_PY_FRAMES_LASTI_BYTES 2

/* What the thread state's ts_tid field holds (the tid field). */
#define KP_PY_TID_NATIVE 0	/* native_thread_id: the kernel's thread id */
#define KP_PY_TID_PTHREAD 1	/* thread_id, pthread_self(): on x86-64 the
				 * thread's fs base (3.10 and older) */

/* A PyFrameObject's f_lasti (read apart, not in the frame's window) lies
 * within the object's first page. */
#define KP_PY_LASTI_OFF_MAX (4096 - 4)

#endif /* KP_UTIL_PY_WALK_H */
