/* SPDX-License-Identifier: GPL-2.0-only */
/* offcpu.h — the frames an off-CPU interval ends in (offcpu.c): the task
 * state its thread left the CPU in, then the task that woke it. feed.c
 * asks for them for every OFFCPU record it counts; they hang below the
 * kernel's frames, in the "[off-cpu]" pseudo module. Internal to
 * src/model/.
 */
#ifndef KP_MODEL_OFFCPU_H
#define KP_MODEL_OFFCPU_H

#include "model/model-util.h"

#define KP_OFF_XFRAMES 2	/* a state, a waker */
/* Waker frames named with a pid, at most: past it a waker is named by
 * its command alone (wakers under a churn of short processes would
 * each be a new function). */
#define KP_WAKER_PIDS_MAX 4096

/* The frames last made for the common states and the recent wakers, so
 * that a record does not format and look up its names again (with
 * --off-cpu-min 0 a record per switch): pc key + 1, 0 none. */
#define KP_OFF_WAKER_CACHE 64
struct kp_off_cache {
	uint32_t state[3];			/* KP_OFF_RUNNABLE .. KP_OFF_DISK */
	struct {
		uint32_t pid, key;		/* key: its pc key + 1 */
		uint8_t irq;
		char comm[KP_COMM_LEN];
	} waker[KP_OFF_WAKER_CACHE];
};

/* The pc keys of r's state and waker frames, outermost first, into x
 * (KP_OFF_XFRAMES of room): how many, or -ENOMEM. */
int kp_offcpu__frames(struct kp_model *m, const struct kp_rec_offcpu *r, uint64_t *x);

#endif /* KP_MODEL_OFFCPU_H */
