// SPDX-License-Identifier: GPL-2.0-only
/* expand.c — a hash set of expanded row ids (linear probing, with
 * tombstones replaced by a rebuild on removal). */
#include "tui/expand.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Slot values: 0 is empty, so an id is stored as id + 1 and the id
 * UINT64_MAX (which would wrap) is kept aside. */
struct kp_expand {
	uint64_t *slot;
	size_t cap, count;
	int has_max;
};

struct kp_expand *kp_expand__new(void)
{
	struct kp_expand *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->cap = 64;
	e->slot = calloc(e->cap, sizeof(*e->slot));
	if (!e->slot) {
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

void kp_expand__free(struct kp_expand *e)
{
	if (!e)
		return;
	free(e->slot);
	free(e);
}

static size_t hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static size_t find(const struct kp_expand *e, uint64_t key)
{
	size_t i = hash(key, e->cap);

	while (e->slot[i] && e->slot[i] != key)
		i = (i + 1) & (e->cap - 1);
	return i;
}

int kp_expand__has(const struct kp_expand *e, uint64_t id)
{
	if (id == UINT64_MAX)
		return e->has_max;
	return e->slot[find(e, id + 1)] != 0;
}

static int rehash(struct kp_expand *e, size_t cap, uint64_t skip)
{
	uint64_t *old = e->slot;
	size_t oldcap = e->cap;

	e->slot = calloc(cap, sizeof(*e->slot));
	if (!e->slot) {
		e->slot = old;
		return -ENOMEM;
	}
	e->cap = cap;
	e->count = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i] && old[i] != skip) {
			e->slot[find(e, old[i])] = old[i];
			e->count++;
		}
	free(old);
	return 0;
}

int kp_expand__set(struct kp_expand *e, uint64_t id, int on)
{
	uint64_t key = id + 1;
	size_t i;

	if (id == UINT64_MAX) {
		e->has_max = !!on;
		return 0;
	}
	i = find(e, key);
	if (!on)
		return e->slot[i] ? rehash(e, e->cap, key) : 0;
	if (e->slot[i])
		return 0;
	if ((e->count + 1) * 2 > e->cap) {
		if (rehash(e, e->cap * 2, 0) < 0)
			return -ENOMEM;
		i = find(e, key);
	}
	e->slot[i] = key;
	e->count++;
	return 0;
}

void kp_expand__clear(struct kp_expand *e)
{
	memset(e->slot, 0, e->cap * sizeof(*e->slot));
	e->count = 0;
	e->has_max = 0;
}

size_t kp_expand__count(const struct kp_expand *e)
{
	return e->count + (size_t)e->has_max;
}

int kp_expand__cb(void *ctx, uint64_t id)
{
	return kp_expand__has(ctx, id);
}
