/* SPDX-License-Identifier: GPL-2.0-only */
/* sample-flags.h — the flags of a SAMPLE record (kp_rec_sample.flags and
 * the stream's flags field, man/kptop-stream.5).
 *
 * One definition for both sides: record.h includes it, and so does the
 * BPF program (src/collect/kptop.bpf.c), which sets them. Plain #defines,
 * no includes, so that it compiles for -target bpf. The values are part of
 * the stream format: never renumber.
 */
#ifndef KP_STREAM_SAMPLE_FLAGS_H
#define KP_STREAM_SAMPLE_FLAGS_H

#define KP_SAMPLE_IDLE (1u << 0)	/* the idle task (pid 0) was running */
#define KP_SAMPLE_KTRUNC (1u << 1)	/* kernel stack hit the frame limit */
#define KP_SAMPLE_UTRUNC (1u << 2)	/* user stack hit the frame limit */
#define KP_SAMPLE_KERR (1u << 3)	/* kernel stack could not be read */
#define KP_SAMPLE_UERR (1u << 4)	/* user stack could not be read */
#define KP_SAMPLE_USER_MODE (1u << 5)	/* the sample hit user mode */
#define KP_SAMPLE_REGS (1u << 6)	/* regs[] and stack[] are valid */
/* OFFCPU records (minor 7): the wakeup that ended the interval came from
 * interrupt context; the waker fields are the interrupted task's. */
#define KP_SAMPLE_WAKER_IRQ (1u << 7)
/* SAMPLE records (minor 10): the stack copy was taken before the process
 * was judged for DWARF unwinding (--unwind auto, kptop.bpf.c auto_dwarf):
 * its frame-pointer stack stands where it reaches the process entry. */
#define KP_SAMPLE_SPEC (1u << 8)

/* How a sample's Python frames were read (its py_status, minor 5). */
#define KP_PY_NONE 0		/* no Python state looked for: no frames */
#define KP_PY_OK 1		/* the whole chain (maybe empty: no frame) */
#define KP_PY_NO_THREAD 2	/* the thread's state was not found */
#define KP_PY_TRUNC 3		/* the chain was cut at the bound */
#define KP_PY_FAULT 4		/* a read failed: the frames up to it */
#define KP_PY_STATUS_MAX 4
#define KP_MAX_PYFRAMES 127	/* Python frames in a sample */
/* A Python frame's info word: the instruction index (code units) + 1 in
 * bits 0..31 (0: unknown), bit 32 the frame was entered from C (the
 * first frame of an evaluation loop call), bits 40..63 a token of the
 * code object (bits 4..27 of its line table's address), so that a code
 * object freed and reused at the same address is told apart. */
#define KP_PYF_INSTR(i) ((unsigned)((i) & 0xffffffffu))
#define KP_PYF_ENTRY (1ull << 32)
#define KP_PYF_TOKEN(i) ((unsigned)((i) >> 40))
#define KP_PYF_RESERVED 0x000000fe00000000ull	/* bits 33..39: 0 */

#endif /* KP_STREAM_SAMPLE_FLAGS_H */
