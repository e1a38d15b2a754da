/* SPDX-License-Identifier: GPL-2.0-only */
/* lost.h — the names of the stages at which samples are lost
 * (enum kp_lost_stage, record.h): "bpf-full", "cpu-buf", ...
 *
 * One table for every place that shows a drop counter: the live view's
 * header, the text and JSON reports; tests/man-drops.sh checks the man
 * page's DROP COUNTERS against the text report's names. Pure functions
 * over a constant table; thread-safe.
 */
#ifndef KP_STREAM_LOST_H
#define KP_STREAM_LOST_H

/* The name of stage (1..KP_LOST_STAGE_MAX), or "?" for any other value. */
const char *kp_lost_stage_name(unsigned stage);

/* Shown in the live view's header even at zero (the others, such as
 * unwind, only once they count something). */
int kp_lost_stage_always_shown(unsigned stage);

#endif /* KP_STREAM_LOST_H */
