/* SPDX-License-Identifier: GPL-2.0-only */
/* model-util.h — the generic containers of src/model/ (util.c): 64-bit
 * hashing, growable arrays, an open-addressing table of uint32_t values
 * and the string pool. Every part of the model uses them; they know
 * nothing of the model. Arrays grow by 1.5x, by 1.125x past 256 KB; the
 * tables keep a load of 0.6-0.75 (11-13 bytes per entry). Strings are
 * interned (one copy, found by the pool's table), except function names,
 * which only the model's fn_tab finds. Errors: 0 or -ENOMEM. Internal to
 * src/model/.
 */
#ifndef KP_MODEL_UTIL_H
#define KP_MODEL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define KP_NONE UINT32_MAX
#define KP_NS 1000000000ull

static inline uint64_t kp_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static inline uint64_t kp_hash2(uint64_t a, uint64_t b)
{
	return kp_mix64(a * 0x9e3779b97f4a7c15ull + kp_mix64(b + 0x632be59bd9b4e019ull));
}

static inline double kp_fabs(double x)
{
	return x < 0 ? -x : x;
}

uint64_t kp_hash_bytes(const void *p, size_t n, uint64_t seed);

/* Make room for `need` elements of `elsz` bytes in *pp (a T **). */
int kp_grow(void *pp, size_t *cap, size_t need, size_t elsz);
/* Give back the room of *pp past nr elements (and a quarter) when it is
 * more than twice that; a failed realloc leaves it as it was. */
void kp_shrink(void *pp, size_t *cap, size_t nr, size_t elsz);
/* Give back the room of *pp past nr elements (and a sixteenth) whenever
 * there is more: for a model over its memory budget, whose folds must
 * show in its bytes. A failed realloc leaves it as it was. */
void kp_fit(void *pp, size_t *cap, size_t nr, size_t elsz);



/* Open addressing, linear probing. A slot holds (hash << 32 | val + 1);
 * 0 is empty. A hash starts probing at hash * n / 2^32, so the table can
 * have any size: past 4096 slots it grows by 1.25x past a load of 3/4
 * (13.3 bytes per entry at worst, 10.7 at best); smaller ones double past
 * 1/2. The table never deletes: callers rebuild it. */
struct kp_htab {
	uint64_t *slots;
	size_t n;	/* slots, 0 when empty */
	size_t nr;
};

static inline size_t kp_htab_pos(const struct kp_htab *h, uint32_t hash)
{
	return (size_t)(((uint64_t)hash * h->n) >> 32);
}

int kp_htab__insert(struct kp_htab *h, uint32_t hash, uint32_t val);
/* Room for `need` entries without growing again. */
int kp_htab__reserve(struct kp_htab *h, size_t need);
/* Give back the room of a table four times bigger than its entries
 * need (after a fold or merge emptied it): resized to twice the least
 * size, or freed when empty (an insert makes it again). */
void kp_htab__fit(struct kp_htab *h);
void kp_htab__clear(struct kp_htab *h);
void kp_htab__fini(struct kp_htab *h);

/* First slot of `hash`'s probe sequence whose value satisfies eq, or
 * NULL. The value in a slot s is (uint32_t)*s - 1. */
#define KP_HTAB_FIND(h, hash32, val, cond, found)			\
	do {								\
		(found) = NULL;						\
		if ((h)->n == 0)					\
			break;						\
		size_t i_ = kp_htab_pos((h), (hash32));			\
		for (;;) {						\
			uint64_t s_ = (h)->slots[i_];			\
			if (s_ == 0)					\
				break;					\
			if ((uint32_t)(s_ >> 32) == (hash32)) {		\
				(val) = (uint32_t)s_ - 1;		\
				if (cond) {				\
					(found) = &(h)->slots[i_];	\
					break;				\
				}					\
			}						\
			if (++i_ == (h)->n)				\
				i_ = 0;					\
		}							\
	} while (0)

/* String pool: NUL-terminated, never freed before the model; interned
 * (one copy, found by a table) or only stored (function names: their
 * table is the model's fn_tab). */
struct kp_strpool {
	char **chunks;
	size_t nr_chunks, cap_chunks;
	char *cur;
	size_t left;
	const char **strs;
	size_t nr, cap;
	struct kp_htab tab;
	size_t bytes;
};

const char *kp_strpool__intern(struct kp_strpool *p, const char *s);
/* The index of interned s in p->strs, or KP_NONE (-ENOMEM). */
uint32_t kp_strpool__intern_idx(struct kp_strpool *p, const char *s);
const char *kp_strpool__store(struct kp_strpool *p, const char *s, size_t len);
const char *kp_strpool__printf(struct kp_strpool *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kp_strpool__fini(struct kp_strpool *p);
struct kp_mem;
void kp_strpool__bytes(const struct kp_strpool *p, struct kp_mem *a);

#endif /* KP_MODEL_UTIL_H */
