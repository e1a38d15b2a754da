/* SPDX-License-Identifier: GPL-2.0-only */
/* mem.h — the model's memory by structure (mem.c): kp_model__mem asks
 * each part for its entries (kp_<part>__bytes in the part's header) in
 * a fixed order, and kp_model__bytes sums them for the budget (merge.c)
 * and the summary; bench/model-bench prints it. It only reads: it never
 * frees or moves memory. Internal to src/model/.
 */
#ifndef KP_MODEL_MEM_H
#define KP_MODEL_MEM_H

#include "model/model-util.h"

/* Where the parts put their entries: out[0 .. max); n counts them all. */
struct kp_mem {
	struct kp_model_mem *out;
	size_t max, n;
};

void kp_mem__put(struct kp_mem *a, const char *name, size_t bytes, size_t used);
size_t kp_htab__bytes(const struct kp_htab *h);
size_t kp_htab__used(const struct kp_htab *h);
/* An array p of nr used elements out of cap; a hash table h. */
#define KP_MEM_ARR(a, name, p, nr, cap) \
	kp_mem__put(a, name, (cap) * sizeof(*(p)), (nr) * sizeof(*(p)))
#define KP_MEM_TAB(a, name, h) \
	kp_mem__put(a, name, kp_htab__bytes(h), kp_htab__used(h))

/* The model's heap, as kp_model__mem counts it. */
size_t kp_model__bytes(const struct kp_model *m);

#endif /* KP_MODEL_MEM_H */
