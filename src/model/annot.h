/* SPDX-License-Identifier: GPL-2.0-only */
/* annot.h — the CODE records a saved stream carries, kept for annotate
 * (codes.c; m->codes), and the per-address counts annotate.c sums from
 * the stacks. kp_model__feed keeps a CODE record; kp_model__annotate and
 * kp_model__foreach_code read them. Each kept record is one allocation
 * (its strings, lines and bytes copied in). Internal to src/model/.
 */
#ifndef KP_MODEL_ANNOT_H
#define KP_MODEL_ANNOT_H

#include "model/model-util.h"

struct kp_mem;
struct kp_model_module;

struct kp_codes {
	struct kp_rec_code *recs;	/* each with its own copy (mem[i]) */
	void **mem;
	size_t nr, cap;
	size_t bytes;
};

/* Code the resolver gave annotate is kept too, up to this many bytes. */
#define KP_CODES_KEPT_MAX (16u << 20)

/* Keep a copy of a CODE record. 0 or -ENOMEM. */
int kp_codes__keep(struct kp_model *m, const struct kp_rec_code *c);
/* The kept record of module mod that holds file offset off, or NULL. */
const struct kp_rec_code *kp_codes__find(const struct kp_model *m,
					 const struct kp_model_module *mod,
					 uint64_t off);
/* The frames a kept CODE record gives file offset off of module mod,
 * whose function is `name`: its source line, in an inlined function
 * first when the record says so (then name's frame after it). Returns
 * the frames filled (at most max), 0 when no record holds off. */
int kp_codes__frames(const struct kp_model *m, const struct kp_model_module *mod,
		     uint64_t off, const char *name, struct kp_frame_info *fi, int max);
void kp_codes__fini(struct kp_model *m);
void kp_codes__bytes(const struct kp_codes *c, struct kp_mem *a);

/* Self samples at one leaf pc key (annotate.c). */
struct kp_pck_count {
	uint32_t pck;
	double cur, base;
	uint64_t samples;
};

/* The self samples of function fn per leaf pc key, after the filter:
 * *out sorted by pc key (the caller frees it); samples of fn whose pc a
 * fold cut go to *folded. 0 or -ENOMEM. */
int kp_annot__counts(struct kp_model *m, uint32_t fn, struct kp_pck_count **out,
		     size_t *n, double *folded);

/* A mapping of module mod holding file offset off to ask the resolver
 * by: a live process's, else the module as its first mapping (pid 0:
 * the file on the host), widened to hold off. */
void kp_annot__map_for(const struct kp_model *m, uint32_t mod, uint64_t off,
		       struct kp_map_info *mi);

#endif /* KP_MODEL_ANNOT_H */
