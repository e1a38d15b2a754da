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

#endif /* KP_STREAM_SAMPLE_FLAGS_H */
