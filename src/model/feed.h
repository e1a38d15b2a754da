/* SPDX-License-Identifier: GPL-2.0-only */
/* feed.h — samples in (feed.c; m->fd): batched, then counted; a new
 * stack is hung in the trie at once or, deferred, by pending.c. Every
 * reader calls kp_feed__settle first and every other record
 * kp_feed__flush, so nothing is seen half-counted. Internal to src/model/.
 */
#ifndef KP_MODEL_FEED_H
#define KP_MODEL_FEED_H

#include "model/model-util.h"

struct kp_mem;
struct kp_off_cache;

/* Samples not counted yet (feed.c). */
struct kp_feed {
	struct kp_batch *batch;		/* samples not yet counted */
	int defer;			/* kp_model_opts.defer_stacks */
	int by_cpu;			/* kp_model_opts.by_cpu */
	int eager_views;		/* kp_model_opts.eager_views */
	int weight;			/* enum kp_weight */
	uint64_t upcs[KP_MAX_FRAMES];	/* user pcs the resolver unwound */
	uint64_t pypcs[KP_MAX_FRAMES];	/* ... with Python frames merged in */
	uint32_t waker_pids;		/* waker frames named with a pid: offcpu.c */
	/* what the record being weighed stands for (its samples, or its
	 * off-CPU intervals): the unit its losses count in, whatever the
	 * weight; 0: its weight (CPU weight, where the two are one) */
	uint32_t count;
	struct kp_off_cache *off;	/* offcpu.c's, made on first use */
};

#define KP_BATCH 64
int kp_feed__sample(struct kp_model *m, const struct kp_rec_sample *s);
/* The same, the sample's stack ending in nx more frames (pc keys, at most
 * KP_OFF_XFRAMES: offcpu.c's) below its kernel frames. */
int kp_feed__sample_x(struct kp_model *m, const struct kp_rec_sample *s,
		      const uint64_t *x, uint8_t nx);
/* Count the batched samples; every other record calls it first. */
int kp_feed__flush(struct kp_model *m);
/* kp_feed__flush, then hang every waiting stack in the trie (and fold
 * the trie if it passed its bound): every reader calls it first. */
int kp_feed__settle(struct kp_model *m);
/* The leaf node of a new stack (kernel and user pcs, innermost first)
 * hung in process proc's trie; KP_NONE on -ENOMEM. In two steps: the
 * pc keys of the user pcs (named with the process's mappings), root
 * first, at most nu of them, into out (KP_NONE for one without memory;
 * 64-bit to sit in place of the pcs, pending.c; late: see
 * kp_intern__user_pc); then the walk down the trie, user keys, kernel
 * pcs and the nx pc keys of x (offcpu.c's frames). */
uint32_t kp_feed__stack_leaf(struct kp_model *m, uint32_t proc,
			     const uint64_t *k, size_t nk, const uint64_t *u,
			     size_t nu, const uint64_t *x, size_t nx);
size_t kp_feed__user_pcks(struct kp_model *m, uint32_t proc, const uint64_t *u,
			 size_t nu, uint64_t *out, int late);
uint32_t kp_feed__hang(struct kp_model *m, uint32_t proc, const uint64_t *upck,
		       size_t n, const uint64_t *k, size_t nk, const uint64_t *x, size_t nx);
void kp_feed__bytes(const struct kp_feed *f, struct kp_mem *a);

#endif /* KP_MODEL_FEED_H */
