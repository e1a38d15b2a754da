// SPDX-License-Identifier: GPL-2.0-only
/* unwind-memo.c — recent walks kept to be reused (unwind-int.h). A thread
 * sampled again while its outer frames stay (an interpreter's loop, a
 * server's event loop, main's long call: most samples of a busy thread)
 * is walked only until it reaches a frame of its last walk in the same
 * state; the callers of that frame are taken from the kept walk.
 *
 * Why that is exact: a step's result depends only on the state it starts
 * from (pc, stack pointer, the callee-saved registers known and their
 * values, whether the pc is looked up as is), the stack bytes its rules
 * read, the mapping each pc lies in and the module cache. A kept walk is
 * reused from frame j on only when the new walk reaches frame j's state
 * exactly, the bytes every later step read are the same in the new copy,
 * every later pc lies in a mapping of the same start, end, offset and
 * file, and the module cache has loaded, evicted or refused nothing since
 * (uw_cache__epoch). Walks that stepped JIT code (whose bytes and CFI come
 * from outside the copy), went too deep, or kept too many bytes are not
 * kept; frames whose state holds more than the callee-saved registers (a
 * signal frame's caller) are never matched.
 *
 * Walks are kept per (pid, stack pointer >> 20: a thread's stack),
 * UW_MEMO_SLOTS of them, direct-mapped; each owns its frames and bytes
 * (about 19 KiB: some 0.6 MiB for all, outside the module cache's bound).
 * Not thread-safe: one per unwinder. */
#include "unwind/unwind-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define UW_MEMO_SLOTS 32
#define UW_MEMO_FRAMES 64	/* deeper walks are not kept */
#define UW_MEMO_BYTES 8192	/* nor those that read more of the stack */
#define UW_MEMO_REGS (UW_CALLEE_SAVED | 1u << UW_SP | 1u << UW_RA)

#define UW_MEMO_SAVED 6	/* UW_CALLEE_SAVED's count: rbx, rbp, r12-r15 */

struct uw_memo_frame {
	uint64_t pc, sp;
	uint64_t saved[UW_MEMO_SAVED];	/* UW_CALLEE_SAVED's, in order; 0 unknown */
	uint32_t valid;		/* the state's valid bits; UINT32_MAX: more known */
	bool exact;		/* the pc is looked up as is, not at pc - 1 */
	uint64_t map;		/* uw_memo__map_print of the pc's mapping */
	uint64_t lo, hi;	/* bytes read by its step and the later ones */
};


struct uw_memo_walk {
	uint32_t pid;
	uint64_t region, epoch;
	int n, end;		/* frames; UW_STEP_END or the error that ended it */
	bool keep;		/* no JIT step, not too deep */
	uint64_t lo, hi;	/* bytes kept: [lo, hi) */
	uint8_t bytes[UW_MEMO_BYTES];
	struct uw_memo_frame f[UW_MEMO_FRAMES];
};

struct uw_memo {
	struct uw_memo_walk *slot[UW_MEMO_SLOTS];
	struct uw_memo_walk *rec;	/* the walk being recorded */
	struct uw_memo_walk *cand;	/* its slot's walk, when it may match */
	int cursor;			/* cand's next frame to compare */
	uint64_t reused, frames_reused;
};

struct uw_memo *uw_memo__new(void)
{
	return calloc(1, sizeof(struct uw_memo));
}

void uw_memo__free(struct uw_memo *m)
{
	if (!m)
		return;
	for (int i = 0; i < UW_MEMO_SLOTS; i++)
		free(m->slot[i]);
	free(m->rec);
	free(m);
}

uint64_t uw_memo__map_print(const struct kp_unwind_map *map)
{
	uint64_t h = 1469598103934665603ull;
	uint64_t v[6] = { map ? map->start : 0, map ? map->end : 0, map ? map->pgoff : 0,
			  map ? map->ino : 0, map ? ((uint64_t)map->maj << 32 | map->min) : 0,
			  map ? (uint64_t)(uintptr_t)map->build_id ^ map->build_id_len : 0 };

	for (int i = 0; i < 6; i++)
		h = (h ^ v[i]) * 1099511628211ull;
	return h;
}

static unsigned slot_of(uint32_t pid, uint64_t region)
{
	return (unsigned)(((region ^ (uint64_t)pid << 32) * 0x9E3779B97F4A7C15ull) >> 59) &
	       (UW_MEMO_SLOTS - 1);
}

void uw_memo__begin(struct uw_memo *m, uint32_t pid, uint64_t sp, uint64_t epoch)
{
	uint64_t region = sp >> 20;
	struct uw_memo_walk *w;

	if (!m->rec && !(m->rec = malloc(sizeof(*m->rec))))
		return;
	m->rec->pid = pid;
	m->rec->region = region;
	m->rec->epoch = epoch;
	m->rec->n = 0;
	m->rec->keep = true;
	w = m->slot[slot_of(pid, region)];
	m->cand = w && w->pid == pid && w->region == region && w->epoch == epoch ? w : NULL;
	m->cursor = 1;
}

void uw_memo__frame(struct uw_memo *m, const struct uw_regs *r, bool exact)
{
	struct uw_memo_frame *f;
	uint32_t valid = r->valid;

	if (!m->rec || !m->rec->keep)
		return;
	if (m->rec->n >= UW_MEMO_FRAMES) {
		m->rec->keep = false;
		return;
	}
	f = &m->rec->f[m->rec->n++];
	f->pc = r->r[UW_RA];
	f->sp = r->r[UW_SP];
	for (int n = 0, i = 0; n < UW_RA && i < UW_MEMO_SAVED; n++)
		if (UW_CALLEE_SAVED & (1u << n))
			f->saved[i++] = (valid & (1u << n)) ? r->r[n] : 0;
	/* a state with more known registers is not compared (never matches) */
	f->valid = (valid & ~UW_MEMO_REGS) ? UINT32_MAX : valid;
	f->exact = exact;
	f->map = 0;	/* printed when compared, and when the walk is kept */
	f->lo = UINT64_MAX;
	f->hi = 0;
}

void uw_memo__reads(struct uw_memo *m, uint64_t lo, uint64_t hi)
{
	struct uw_memo_frame *f;

	if (!m->rec || !m->rec->keep || !m->rec->n)
		return;
	f = &m->rec->f[m->rec->n - 1];	/* the step out of the last frame */
	f->lo = lo;
	f->hi = hi;
}

void uw_memo__no_keep(struct uw_memo *m)
{
	if (m->rec)
		m->rec->keep = false;
}

/* Are the bytes kept walk w read from frame j on the same in mem? */
static bool same_bytes(const struct uw_memo_walk *w, int j, const struct uw_mem *mem)
{
	const struct uw_memo_frame *f = &w->f[j];

	if (f->lo >= f->hi)
		return true;	/* no later step read the stack */
	if (f->lo < mem->sp0 || f->hi - mem->sp0 > mem->len || f->lo < w->lo || f->hi > w->hi)
		return false;
	return !memcmp(mem->stack + (f->lo - mem->sp0), w->bytes + (f->lo - w->lo), f->hi - f->lo);
}

static bool same_state(const struct uw_memo_frame *a, const struct uw_memo_frame *b)
{
	return a->pc == b->pc && a->sp == b->sp && a->valid == b->valid &&
	       a->valid != UINT32_MAX && a->exact == b->exact &&
	       !memcmp(a->saved, b->saved, sizeof(a->saved));
}

static uint64_t print_of(const struct uw_memo_frame *f, uw_memo_print_fn *map_print,
			 void *ctx)
{
	return map_print(ctx, f->exact ? f->pc : f->pc - 1);
}

int uw_memo__match(struct uw_memo *m, const struct uw_mem *mem,
		   uw_memo_print_fn *map_print, void *ctx)
{
	const struct uw_memo_walk *w = m->cand;
	const struct uw_memo_frame *now;
	int j;

	if (!w || !m->rec || !m->rec->keep || !m->rec->n)
		return -1;
	now = &m->rec->f[m->rec->n - 1];
	while (m->cursor < w->n && w->f[m->cursor].sp < now->sp)
		m->cursor++;
	j = m->cursor;
	if (j >= w->n || !same_state(&w->f[j], now) || !same_bytes(w, j, mem))
		return -1;
	for (int k = j; k < w->n; k++)
		if (print_of(&w->f[k], map_print, ctx) != w->f[k].map)
			return -1;
	return j;
}

int uw_memo__take(struct uw_memo *m, int j, uint64_t *pcs, int n, int max, int *end)
{
	const struct uw_memo_walk *w = m->cand;
	int more = w->n - 1 - j;

	if (n + more > max)
		return -1;
	for (int k = j + 1; k < w->n; k++)
		pcs[n++] = w->f[k].pc;
	*end = w->end;
	m->reused++;
	m->frames_reused += (uint64_t)more;
	return n;
}

void uw_memo__end(struct uw_memo *m, int end, const struct uw_mem *mem,
		  uw_memo_print_fn *map_print, void *ctx)
{
	struct uw_memo_walk *w = m->rec, **slot;
	uint64_t lo = UINT64_MAX, hi = 0;

	if (!w || !w->keep || w->n < 2)
		return;
	for (int k = 1; k < w->n; k++)
		w->f[k].map = print_of(&w->f[k], map_print, ctx);
	/* from the last frame back: the bytes its step and all later read */
	for (int k = w->n - 1; k >= 0; k--) {
		struct uw_memo_frame *f = &w->f[k];

		if (f->lo < f->hi) {
			lo = f->lo < lo ? f->lo : lo;
			hi = f->hi > hi ? f->hi : hi;
		}
		f->lo = lo;
		f->hi = hi;
	}
	lo = w->f[1].lo;
	hi = w->f[1].hi;
	if (lo < hi && (lo < mem->sp0 || hi - mem->sp0 > mem->len || hi - lo > UW_MEMO_BYTES))
		return;	/* read outside the copy, or too much to keep */
	w->lo = lo < hi ? lo : 0;
	w->hi = lo < hi ? hi : 0;
	if (lo < hi)
		memcpy(w->bytes, mem->stack + (lo - mem->sp0), hi - lo);
	w->end = end;
	slot = &m->slot[slot_of(w->pid, w->region)];
	m->rec = *slot;	/* the old walk's memory records the next */
	*slot = w;
	m->cand = NULL;
}

void uw_memo__stats(const struct uw_memo *m, uint64_t *walks, uint64_t *frames)
{
	*walks = m ? m->reused : 0;
	*frames = m ? m->frames_reused : 0;
}
