// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/symtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"

#define KP_SYMTAB_DEFAULT_MAX (8u << 20)

enum {
	KP_SYM_OPEN = 1,	/* zero-sized: end holds its limit (0: none) */
	KP_SYM_DEMANGLED = 2,	/* demangling was tried */
};

/* A demangled name, by its entry's index (an open-addressed table: few
 * entries of a table are ever demangled, and most names are C's). */
struct kp_dm {
	uint32_t idx;
	char *name;		/* NULL: a free slot */
};

struct kp_symtab {
	struct kp_sym *syms;
	size_t nr, cap, max;
	char *arena;
	size_t arena_len, arena_cap;
	struct kp_dm *dm;
	size_t nr_dm, cap_dm;	/* cap_dm: 0 or a power of two */
	size_t demangled_bytes;
	int finished;
};

struct kp_symtab *kp_symtab__new(void)
{
	struct kp_symtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max = KP_SYMTAB_DEFAULT_MAX;
	return t;
}

void kp_symtab__free(struct kp_symtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap_dm; i++)
		free(t->dm[i].name);
	free(t->dm);
	free(t->syms);
	free(t->arena);
	free(t);
}

void kp_symtab__set_max(struct kp_symtab *t, size_t max_entries)
{
	t->max = max_entries;
}

static int arena_put(struct kp_symtab *t, const char *name, size_t len,
		     uint32_t *off)
{
	if (t->arena_len + len + 1 > UINT32_MAX)
		return -E2BIG;
	if (t->arena_len + len + 1 > t->arena_cap) {
		size_t cap = t->arena_cap ? t->arena_cap * 2 : 4096;
		char *a;

		while (cap < t->arena_len + len + 1)
			cap *= 2;
		a = realloc(t->arena, cap);
		if (!a)
			return -ENOMEM;
		t->arena = a;
		t->arena_cap = cap;
	}
	memcpy(t->arena + t->arena_len, name, len);
	t->arena[t->arena_len + len] = '\0';
	*off = (uint32_t)t->arena_len;
	t->arena_len += len + 1;
	return 0;
}

int kp_symtab__add(struct kp_symtab *t, uint64_t start, uint64_t size,
		   uint64_t limit, const char *name, enum kp_sym_rank rank)
{
	size_t len;
	struct kp_sym *s;
	int err;

	if (!name || !*name)
		return -EINVAL;
	len = strnlen(name, KP_SYMTAB_NAME_MAX + 1);
	if (len > KP_SYMTAB_NAME_MAX || start + size < start)
		return -EINVAL;
	if (t->nr >= t->max)
		return -E2BIG;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct kp_sym *n = realloc(t->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->syms = n;
		t->cap = cap;
	}
	s = &t->syms[t->nr];
	memset(s, 0, sizeof(*s));
	err = arena_put(t, name, len, &s->name);
	if (err)
		return err;
	s->start = start;
	s->end = size ? start + size : limit;
	s->flags = size ? 0 : KP_SYM_OPEN;
	s->rank = (uint8_t)rank;
	t->nr++;
	return 0;
}

static size_t underscores(const char *n)
{
	size_t i = 0;

	while (n[i] == '_')
		i++;
	return i;
}

/* Address order; at one address sized entries before zero-sized, then the
 * best rank first, then (as perf does) the alias with fewer leading
 * underscores (printf over _IO_printf), then the longer name: dedup keeps
 * the first. */
static int sym_cmp(const void *a, const void *b, void *arg)
{
	const struct kp_sym *x = a, *y = b;
	const char *arena = arg, *xn = arena + x->name, *yn = arena + y->name;
	int xs = !(x->flags & KP_SYM_OPEN), ys = !(y->flags & KP_SYM_OPEN);
	size_t xu, yu, xl, yl;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (xs != ys)
		return ys - xs;
	if (x->rank != y->rank)
		return (int)y->rank - (int)x->rank;
	xu = underscores(xn);
	yu = underscores(yn);
	if (xu != yu)
		return xu < yu ? -1 : 1;
	xl = strlen(xn);
	yl = strlen(yn);
	if (xl != yl)
		return xl > yl ? -1 : 1;
	return strcmp(xn, yn);
}

/* Keep only what the entries left after dedup use: a binary's .symtab
 * and .dynsym name most functions twice, and the arrays grew by
 * doubling: libLLVM-14's table took 6.8 MB, 3.8 MB once compacted. */
static int compact(struct kp_symtab *t)
{
	size_t len = 0;
	char *a;

	for (size_t i = 0; i < t->nr; i++)
		len += strlen(t->arena + t->syms[i].name) + 1;
	a = malloc(len ? len : 1);
	if (!a)
		return 0;	/* kept as it is: only memory lost */
	len = 0;
	for (size_t i = 0; i < t->nr; i++) {
		size_t n = strlen(t->arena + t->syms[i].name) + 1;

		memcpy(a + len, t->arena + t->syms[i].name, n);
		t->syms[i].name = (uint32_t)len;
		len += n;
	}
	free(t->arena);
	t->arena = a;
	t->arena_len = t->arena_cap = len;
	if (t->nr && t->nr < t->cap) {
		struct kp_sym *n = realloc(t->syms, t->nr * sizeof(*n));

		if (n) {
			t->syms = n;
			t->cap = t->nr;
		}
	}
	return 0;
}

int kp_symtab__finish(struct kp_symtab *t)
{
	size_t out = 0;

	if (t->nr)
		qsort_r(t->syms, t->nr, sizeof(*t->syms), sym_cmp, t->arena);
	for (size_t i = 0; i < t->nr; i++) {
		if (out && t->syms[out - 1].start == t->syms[i].start)
			continue;
		t->syms[out++] = t->syms[i];
	}
	t->nr = out;
	/* zero-sized entries reach the next entry, within their limit */
	for (size_t i = 0; i < t->nr; i++) {
		struct kp_sym *s = &t->syms[i];
		uint64_t limit = s->end;

		if (!(s->flags & KP_SYM_OPEN))
			continue;
		s->flags &= (uint8_t)~KP_SYM_OPEN;
		s->end = i + 1 < t->nr ? t->syms[i + 1].start : s->start;
		if (limit && (s->end == s->start || s->end > limit))
			s->end = limit > s->start ? limit : s->start;
	}
	t->finished = 1;
	return compact(t);
}

const struct kp_sym *kp_symtab__lookup(const struct kp_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;

	/* last entry with start <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* sized entries may nest (a big one over small ones): look back a
	 * few entries for one that contains addr */
	for (size_t i = lo, n = 0; i > 0 && n < 4; i--, n++) {
		const struct kp_sym *s = &t->syms[i - 1];

		if (addr >= s->start && addr < s->end)
			return s;
	}
	return NULL;
}

const char *kp_symtab__name(const struct kp_symtab *t, const struct kp_sym *s)
{
	return t->arena + s->name;
}

static size_t dm_slot(const struct kp_symtab *t, uint32_t idx)
{
	size_t i = (idx * 2654435761u) & (t->cap_dm - 1);

	while (t->dm[i].name && t->dm[i].idx != idx)
		i = (i + 1) & (t->cap_dm - 1);
	return i;
}

/* Room for one more demangled name (the table at most 3/4 full). */
static int dm_room(struct kp_symtab *t)
{
	struct kp_dm *old = t->dm, *n;
	size_t cap = t->cap_dm ? t->cap_dm * 2 : 16, was = t->cap_dm;

	if ((t->nr_dm + 1) * 4 <= t->cap_dm * 3)
		return 0;
	if (!(n = calloc(cap, sizeof(*n))))
		return -ENOMEM;
	t->dm = n;
	t->cap_dm = cap;
	for (size_t i = 0; i < was; i++)
		if (old[i].name)
			t->dm[dm_slot(t, old[i].idx)] = old[i];
	free(old);
	return 0;
}

const char *kp_symtab__demangled(struct kp_symtab *t, const struct kp_sym *cs)
{
	struct kp_sym *s = (struct kp_sym *)cs;
	uint32_t idx = (uint32_t)(s - t->syms);
	char *name;

	if (s->flags & KP_SYM_DEMANGLED)
		return t->cap_dm ? t->dm[dm_slot(t, idx)].name : NULL;
	name = kp_demangle(kp_symtab__name(t, s));
	if (name && dm_room(t)) {
		free(name);
		return NULL;	/* asked again next time */
	}
	s->flags |= KP_SYM_DEMANGLED;
	if (name) {
		t->dm[dm_slot(t, idx)] = (struct kp_dm){ idx, name };
		t->nr_dm++;
		t->demangled_bytes += strlen(name) + 1;
	}
	return name;
}

size_t kp_symtab__count(const struct kp_symtab *t)
{
	return t->nr;
}

size_t kp_symtab__bytes(const struct kp_symtab *t)
{
	return t->cap * sizeof(*t->syms) + t->arena_cap + t->demangled_bytes +
	       t->cap_dm * sizeof(*t->dm);
}

const struct kp_sym *kp_symtab__at(const struct kp_symtab *t, size_t i)
{
	return i < t->nr ? &t->syms[i] : NULL;
}
