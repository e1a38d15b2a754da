// SPDX-License-Identifier: GPL-2.0-only
/* resolve-jit.c — JIT code's bytes for the unwinder (resolve-jit.h).
 *
 * Two tables: the functions (copies of their bytes, found again by
 * process and address through an open-addressed index), and a
 * direct-mapped cache from (process, pc) to a function, or to "not
 * known" (asked again after KP_RJIT_RETRY lookups: a perf map grows). */
#include "pump/resolve-jit.h"
#include "pump/resolve-code.h"	/* kp_resolve__sym_map */
#include "util/cfi-rec.h"		/* KP_JIT_EH_MAX */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KP_RJIT_SLOTS 8192u	/* the pc cache (a power of two) */
#define KP_RJIT_RETRY 4096u	/* lookups before an unplaced pc is asked again */

struct rjit_fn {
	uint32_t pid;		/* 0: held (a replay's CODE record) */
	uint64_t proc_start;
	uint64_t start;		/* its address */
	uint64_t file_off;	/* its offset in the mapping (CODE's start) */
	uint32_t len;
	char *name;
	uint8_t *code;
	uint8_t *eh;		/* its runtime's CFI (eh_len bytes), or NULL */
	uint32_t eh_len;
	uint64_t eh_vaddr;
};

struct rjit_slot {
	uint32_t pid;
	int32_t fn;		/* index in fns; -1: not known */
	uint64_t proc_start, pc;
	uint64_t retry_at;	/* when fn is -1 */
};

struct kp_rjit {
	struct kp_symbols *syms;
	int replay;
	struct rjit_fn *fns;
	size_t nr, cap, bytes;
	int32_t *index;		/* fns by (pid, proc_start, start); -1 free */
	size_t index_cap;
	struct rjit_slot *slots;	/* KP_RJIT_SLOTS, made on first use */
	uint64_t clock;
	int sorted;		/* held functions sorted by start (replay) */
};

struct kp_rjit *kp_rjit__new(struct kp_symbols *syms)
{
	struct kp_rjit *j = calloc(1, sizeof(*j));

	if (j)
		j->syms = syms;
	return j;
}

static void drop_all(struct kp_rjit *j)
{
	for (size_t i = 0; i < j->nr; i++) {
		free(j->fns[i].name);
		free(j->fns[i].code);
		free(j->fns[i].eh);
	}
	j->nr = 0;
	j->bytes = 0;
	if (j->index)
		memset(j->index, 0xff, j->index_cap * sizeof(*j->index));
	if (j->slots)
		memset(j->slots, 0, KP_RJIT_SLOTS * sizeof(*j->slots));
}

void kp_rjit__free(struct kp_rjit *j)
{
	if (!j)
		return;
	drop_all(j);
	free(j->fns);
	free(j->index);
	free(j->slots);
	free(j);
}

void kp_rjit__set_replay(struct kp_rjit *j, int on)
{
	j->replay = on;
}

void kp_rjit__usage(const struct kp_rjit *j, size_t *funcs, size_t *bytes)
{
	*funcs = j->nr;
	*bytes = j->bytes;
}

static uint64_t mix(uint32_t pid, uint64_t proc_start, uint64_t addr)
{
	uint64_t h = (pid * 0x9E3779B97F4A7C15ull) ^ (addr * 0xC2B2AE3D27D4EB4Full) ^ proc_start;

	return h ^ (h >> 29);
}

/* The index slot of (pid, proc_start, start): its function or a free one. */
static int32_t *index_slot(struct kp_rjit *j, uint32_t pid, uint64_t ps, uint64_t start)
{
	size_t i = (size_t)mix(pid, ps, start) & (j->index_cap - 1);

	for (;; i = (i + 1) & (j->index_cap - 1)) {
		int32_t f = j->index[i];

		if (f < 0 || (j->fns[f].pid == pid && j->fns[f].proc_start == ps &&
			      j->fns[f].start == start))
			return &j->index[i];
	}
}

/* The index made again at cap slots (its functions moved or grown). */
static int index_rebuild(struct kp_rjit *j, size_t cap)
{
	int32_t *ix = malloc(cap * sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	memset(ix, 0xff, cap * sizeof(*ix));
	free(j->index);
	j->index = ix;
	j->index_cap = cap;
	for (size_t f = 0; f < j->nr; f++)
		*index_slot(j, j->fns[f].pid, j->fns[f].proc_start, j->fns[f].start) = (int32_t)f;
	return 0;
}

/* A copy of eh[0..len) into *f (NULL when len is 0): 0 or -1. */
static int copy_eh(struct rjit_fn *f, const uint8_t *eh, size_t len, uint64_t vaddr)
{
	f->eh = NULL;
	f->eh_len = 0;
	f->eh_vaddr = 0;
	if (!eh || !len || len > KP_JIT_EH_MAX)
		return 0;
	if (!(f->eh = malloc(len)))
		return -1;
	memcpy(f->eh, eh, len);
	f->eh_len = (uint32_t)len;
	f->eh_vaddr = vaddr;
	return 0;
}

/* Keep a copy of a function (key: all but its name, code and CFI): its
 * index, or -1 (no memory: nothing kept). */
static int32_t keep(struct kp_rjit *j, const struct rjit_fn *key, const char *name,
		    const uint8_t *code, const uint8_t *eh, size_t eh_len, uint64_t eh_vaddr)
{
	struct rjit_fn f = *key;

	if (j->bytes + f.len + eh_len > KP_RJIT_MAX_BYTES)
		drop_all(j);	/* start again rather than stop */
	if (j->nr == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 64;
		struct rjit_fn *v = reallocarray(j->fns, cap, sizeof(*v));

		if (!v)
			return -1;
		j->fns = v;
		j->cap = cap;
	}
	if (j->nr + 1 > j->index_cap / 2 &&
	    index_rebuild(j, j->index_cap ? 2 * j->index_cap : 256))
		return -1;
	f.name = strdup(name ? name : "");
	f.code = malloc(f.len);
	if (!f.name || !f.code || copy_eh(&f, eh, eh_len, eh_vaddr)) {
		free(f.name);
		free(f.code);
		return -1;
	}
	memcpy(f.code, code, f.len);
	j->fns[j->nr] = f;
	*index_slot(j, f.pid, f.proc_start, f.start) = (int32_t)j->nr;
	j->bytes += f.len + f.eh_len;
	j->sorted = 0;
	return (int32_t)j->nr++;
}

static int same_eh(const struct rjit_fn *f, const struct kp_sym_code *sc)
{
	size_t len = sc->eh_frame && sc->eh_len <= KP_JIT_EH_MAX ? sc->eh_len : 0;

	return f->eh_len == len && (!len || (f->eh_vaddr == sc->eh_vaddr &&
					     !memcmp(f->eh, sc->eh_frame, len)));
}

/* Function i, kept, at the address of sc: i. When its code or CFI
 * changed (the same address, new code), the newest is kept (a save
 * carries that one only); -1 when that cannot be copied. */
static int32_t renew(struct kp_rjit *j, int32_t i, const struct kp_sym_code *sc)
{
	struct rjit_fn *f = &j->fns[i], n = *f;

	if (f->len == sc->len && !memcmp(f->code, sc->bytes, sc->len) && same_eh(f, sc))
		return i;
	n.code = malloc(sc->len);
	if (!n.code || copy_eh(&n, sc->eh_frame, sc->eh_len, sc->eh_vaddr)) {
		free(n.code);
		return -1;
	}
	memcpy(n.code, sc->bytes, sc->len);
	n.len = (uint32_t)sc->len;
	j->bytes = j->bytes - f->len - f->eh_len + n.len + n.eh_len;
	free(f->code);
	free(f->eh);
	*f = n;
	return i;
}

/* The function of process p holding pc, read through the symbols layer
 * (kept, or found kept): its index; -1 not known (yet: a perf map
 * grows), -2 known but not kept (too big: never asked again). */
static int32_t read_live(struct kp_rjit *j, uint32_t pid, const struct kp_map_info *m,
			 uint64_t pc)
{
	struct kp_sym_map sm;
	struct kp_sym_code sc;
	const char *why;
	int32_t *at;

	kp_resolve__sym_map(m, &sm);
	if (kp_symbols__code(j->syms, &sm, pc, &sc, &why) != 1)
		return -1;
	if (!sc.len || sc.len > KP_RJIT_MAX_CODE || sc.vaddr > pc || pc - sc.vaddr >= sc.len)
		return -2;	/* not read again for this pc */
	at = j->index_cap ? index_slot(j, pid, m->proc_start_ns, sc.vaddr) : NULL;
	if (at && *at >= 0)
		return renew(j, *at, &sc);
	return keep(j, &(struct rjit_fn){ .pid = pid, .proc_start = m->proc_start_ns,
					   .start = sc.vaddr, .file_off = sc.start,
					   .len = (uint32_t)sc.len }, sc.name, sc.bytes,
		    sc.eh_frame, sc.eh_len, sc.eh_vaddr);
}

static int by_start(const void *a, const void *b)
{
	const struct rjit_fn *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* A replay: the held function (a CODE record of the file) holding pc. */
static int32_t find_held(struct kp_rjit *j, uint64_t pc)
{
	size_t lo = 0, hi = j->nr;

	if (!j->nr)
		return -1;
	if (!j->sorted) {
		qsort(j->fns, j->nr, sizeof(*j->fns), by_start);
		if (j->index_cap && index_rebuild(j, j->index_cap))
			return -1;
		if (j->slots)
			memset(j->slots, 0, KP_RJIT_SLOTS * sizeof(*j->slots));
		j->sorted = 1;
	}
	while (lo < hi) {	/* the last function starting at or below pc */
		size_t mid = lo + (hi - lo) / 2;

		if (j->fns[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && pc - j->fns[lo - 1].start < j->fns[lo - 1].len)
		return (int32_t)(lo - 1);
	return -1;
}

int kp_rjit__code(struct kp_rjit *j, uint32_t pid, const struct kp_map_info *m, uint64_t pc,
		  struct kp_unwind_code *out)
{
	struct rjit_slot *sl;
	int32_t f;

	if (!j->slots && !(j->slots = calloc(KP_RJIT_SLOTS, sizeof(*j->slots))))
		return 0;
	j->clock++;
	sl = &j->slots[mix(pid, m->proc_start_ns, pc) & (KP_RJIT_SLOTS - 1)];
	if (sl->pc == pc && sl->pid == pid && sl->proc_start == m->proc_start_ns &&
	    (sl->fn >= 0 || j->clock < sl->retry_at)) {
		f = sl->fn;
	} else {
		f = j->replay ? find_held(j, pc) : read_live(j, pid, m, pc);
		/* the slot after: find_held may have cleared the slots */
		sl = &j->slots[mix(pid, m->proc_start_ns, pc) & (KP_RJIT_SLOTS - 1)];
		*sl = (struct rjit_slot){ .pid = pid, .fn = f < 0 ? -1 : f,
					  .proc_start = m->proc_start_ns, .pc = pc,
					  .retry_at = f == -2 ? UINT64_MAX : j->clock + KP_RJIT_RETRY };
	}
	if (f < 0)
		return 0;
	*out = (struct kp_unwind_code){ .code = j->fns[f].code, .len = j->fns[f].len,
		.start = j->fns[f].start, .eh_frame = j->fns[f].eh,
		.eh_len = j->fns[f].eh_len, .eh_vaddr = j->fns[f].eh_vaddr };
	return 1;
}

int kp_rjit__hold(struct kp_rjit *j, const struct kp_rec_code *c)
{
	if (strcmp(c->path, "//anon") || !c->len || c->len > KP_RJIT_MAX_CODE)
		return 0;
	if (j->index_cap && *index_slot(j, 0, 0, c->vaddr) >= 0)
		return 0;	/* held already */
	return keep(j, &(struct rjit_fn){ .start = c->vaddr, .file_off = c->start,
					   .len = c->len }, c->name, c->code,
		    c->eh_frame, c->eh_len, c->eh_vaddr) < 0 ? -ENOMEM : 0;
}

int kp_rjit__foreach(struct kp_rjit *j, int (*cb)(void *ctx, const struct kp_rec_code *c),
		     void *ctx)
{
	for (size_t i = 0; i < j->nr; i++) {
		const struct rjit_fn *f = &j->fns[i];
		struct kp_rec_code c = { .path = "//anon", .start = f->file_off,
					 .vaddr = f->start, .name = f->name,
					 .len = f->len, .code = f->code, .eh_len = f->eh_len,
					 .eh_frame = f->eh, .eh_vaddr = f->eh_vaddr };
		int rc;

		if (!f->name[0])
			c.name = "[jit]";
		if ((rc = cb(ctx, &c)))
			return rc;
	}
	return 0;
}
