/* unwind.c — DWARF CFI unwinder (stub: the API compiles, nothing unwinds yet). */
#include "symbols/unwind.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct kp_unwinder {
	struct kp_unwind_stats stats;
};

struct kp_unwinder *kp_unwinder__new(struct kp_err *err)
{
	struct kp_unwinder *u = calloc(1, sizeof(*u));

	if (!u) {
		kp_err_set(err, -ENOMEM, "unwinder: out of memory");
		errno = ENOMEM;
	}
	return u;
}

void kp_unwinder__free(struct kp_unwinder *u)
{
	free(u);
}

int kp_unwinder__unwind(struct kp_unwinder *u, uint32_t pid,
			const struct kp_unwind_map *maps, size_t nr_maps,
			const uint64_t *regs, int nr_regs,
			const uint8_t *stack, size_t len,
			uint64_t *pcs, int max, int *truncated)
{
	return -ENOSYS;
}

int kp_unwinder__fix_leaf(struct kp_unwinder *u, uint32_t pid,
			  const struct kp_unwind_map *maps, size_t nr_maps,
			  const uint64_t *regs, int nr_regs,
			  const uint8_t *stack, size_t len,
			  uint64_t *fp, int n, int max)
{
	return n;
}

int kp_unwinder__reaches_entry(struct kp_unwinder *u, uint32_t pid,
			       const struct kp_unwind_map *maps, size_t nr_maps,
			       const uint64_t *pcs, int n)
{
	return -ENOSYS;
}

void kp_unwinder__stats(const struct kp_unwinder *u, struct kp_unwind_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (u)
		*out = u->stats;
}
