/* SPDX-License-Identifier: GPL-2.0-only */
/* scratch.h — scratch buffers reused by every view (m->sc) and the
 * radix sort of keys that uses them (util.c). Called by the views, the
 * filter and the fold; a buffer holds nothing past the next call for its
 * slot. Internal to src/model/.
 */
#ifndef KP_MODEL_SCRATCH_H
#define KP_MODEL_SCRATCH_H

#include "model/model-util.h"

struct kp_mem;

enum kp_sc {
	KP_SC_EFF, KP_SC_PM, KP_SC_VMAP, KP_SC_MARK, KP_SC_KEYS, KP_SC_KEYS2,
	KP_SC_MAX,
};

struct kp_scratch {
	void *p;
	size_t cap;
};

struct kp_model;
/* Scratch buffer `slot` of at least `bytes` (zeroed if zero), owned by
 * the model and valid until the next call for the same slot; NULL on
 * -ENOMEM. */
void *kp_scratch(struct kp_model *m, enum kp_sc slot, size_t bytes, int zero);
void kp_scratch__fini(struct kp_model *m);
/* sc: the model's KP_SC_MAX buffers. */
void kp_scratch__bytes(const struct kp_scratch *sc, struct kp_mem *a);

/* Sort keys: k ascending, ties by i ascending (stable radix sort). */
struct kp_skey {
	uint64_t k;
	uint32_t i;
};
int kp_sort_keys(struct kp_model *m, struct kp_skey *a, size_t n);
/* A key that sorts doubles >= 0 in descending order. */
static inline uint64_t kp_desc_key(double d)
{
	uint64_t b;

	if (!(d > 0))
		d = 0;
	__builtin_memcpy(&b, &d, sizeof(b));
	return ~b;
}

#endif /* KP_MODEL_SCRATCH_H */
