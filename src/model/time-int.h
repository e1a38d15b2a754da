/* SPDX-License-Identifier: GPL-2.0-only */
/* time-int.h — the time modes: cumulative, decaying, sliding window
 * (time.c; m->tm). feed.c adds samples to the window; kp_model__refresh
 * decays or expires. A stack's change is told to the view cache first.
 * Internal to src/model/.
 */
#ifndef KP_MODEL_TIME_INT_H
#define KP_MODEL_TIME_INT_H

#include "model/model-util.h"

struct kp_mem;

/* A stack's samples in one second of the window: 8 bytes. n is 32-bit
 * because one weighted sample record may stand for many samples (runs of
 * idle samples: some 250 each; a file may say up to 2^32 - 1), and a
 * narrower count would split such a record into many entries. */
struct kp_went {
	uint32_t stk;
	uint32_t n;
};

struct kp_wbucket {
	uint64_t sec;
	struct kp_went *e;	/* freed when the bucket expires */
	size_t nr, cap;
	uint8_t used;
};

struct kp_window {
	struct kp_wbucket *b;
	size_t nb;
	uint64_t now_ns;	/* newest time seen */
	uint32_t *slot;		/* per stack: index of its last entry, in
				 * whichever bucket (checked before use) */
	size_t cap;
};

/* The time mode (time.c). */
struct kp_time {
	enum kp_time_mode mode;
	unsigned window_s;
	struct kp_window win;
};

int kp_time__add(struct kp_model *m, uint32_t stk, uint64_t t, uint32_t n);
void kp_time__clear_window(struct kp_model *m);
void kp_time__remap(struct kp_model *m, const uint32_t *remap);
void kp_time__fini(struct kp_model *m);
void kp_time__bytes(const struct kp_time *t, size_t nr_stk, struct kp_mem *a);
/* Every stack back to no count and no samples (zero, baseline mark). */
void kp_time__clear_counts(struct kp_model *m);

#endif /* KP_MODEL_TIME_INT_H */
