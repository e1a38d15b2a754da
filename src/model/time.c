// SPDX-License-Identifier: GPL-2.0-only
/* time.c — the time modes: cumulative, decaying, sliding window.
 *
 * Every stack keeps `samples` (raw, since the zero or the mark) and `cur`
 * (its count in the time mode): cumulative cur == samples; decay
 * multiplies cur by 7/8 at each refresh; the window keeps a ring of
 * one-second buckets of (stack, count) and subtracts a bucket from cur
 * once all of it is older than now - window_s. The window is exact to
 * one second; its memory is the distinct (stack, second) pairs in it.
 * A stack's change is told to the views' cache first (kp_vcache__touch);
 * wholesale changes (decay, mode, zero, baseline) drop its counts.
 * The zero is in summary.c, the baseline in baseline.c.
 */
#include "model/time-int.h"
#include "model/intern.h"
#include "model/model-util.h"
#include "model/stk.h"
#include "model/feed.h"
#include "model/summary.h"
#include "model/view-cache.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KP_DECAY_FLOOR 0.01

static void expire(struct kp_model *m, struct kp_wbucket *b)
{
	size_t i;

	for (i = 0; i < b->nr; i++) {
		struct kp_stk *s = kp_stk(m, b->e[i].stk);
		double old = s->cur;

		kp_vcache__touch(m, b->e[i].stk);
		s->cur -= b->e[i].n;
		if (s->cur < 0)
			s->cur = 0;
		kp_sums__add(&m->sums, s, s->cur - old, 0);
	}
	free(b->e);	/* the next second grows its own */
	b->e = NULL;
	b->nr = b->cap = 0;
	b->used = 0;
}

static int window_ready(struct kp_model *m, uint32_t stk)
{
	struct kp_window *w = &m->tm.win;

	if (!w->b) {
		w->nb = m->tm.window_s + 2;
		w->b = calloc(w->nb, sizeof(*w->b));
		if (!w->b)
			return -ENOMEM;
	}
	if (stk >= w->cap) {
		size_t cap = w->cap, ncap = m->st.cap_stk > stk ? m->st.cap_stk : stk + 1;

		if (kp_grow(&w->slot, &cap, ncap, sizeof(*w->slot)))
			return -ENOMEM;
		memset(w->slot + w->cap, 0xff, (cap - w->cap) * sizeof(*w->slot));
		w->cap = cap;
	}
	return 0;
}

/* Count n samples of stack stk at time t in the window (one weighted
 * record: all in t's second): 1 if counted, 0 if they are already older
 * than the window, or -ENOMEM. */
int kp_time__add(struct kp_model *m, uint32_t stk, uint64_t t, uint32_t n)
{
	struct kp_window *w = &m->tm.win;
	uint64_t span = (uint64_t)m->tm.window_s * KP_NS, sec = t / KP_NS;
	struct kp_wbucket *b;
	uint32_t i;
	int err = window_ready(m, stk);

	if (err)
		return err;
	if (t > w->now_ns)
		w->now_ns = t;
	if (w->now_ns > span && t <= w->now_ns - span)
		return 0;
	b = &w->b[sec % w->nb];
	if (b->used && b->sec != sec) {
		if (b->sec > sec)
			return 0;
		expire(m, b);
	}
	if (!b->used) {
		b->used = 1;
		b->sec = sec;
	}
	/* an entry of stk in this bucket, wherever its slot came from */
	i = w->slot[stk];
	if (i < b->nr && b->e[i].stk == stk && b->e[i].n <= UINT32_MAX - n) {
		b->e[i].n += n;
		return 1;
	}
	if (kp_grow(&b->e, &b->cap, b->nr + 1, sizeof(*b->e)))
		return -ENOMEM;
	b->e[b->nr].stk = stk;
	b->e[b->nr].n = n;
	w->slot[stk] = (uint32_t)b->nr++;
	return 1;
}

void kp_time__clear_window(struct kp_model *m)
{
	struct kp_window *w = &m->tm.win;
	size_t i;

	for (i = 0; w->b && i < w->nb; i++) {
		w->b[i].nr = 0;
		w->b[i].used = 0;
	}
}

/* Stacks renumbered (a fold): the slots, checked before use, may stay. */
void kp_time__remap(struct kp_model *m, const uint32_t *remap)
{
	struct kp_window *w = &m->tm.win;
	size_t i, j;

	for (i = 0; w->b && i < w->nb; i++)
		for (j = 0; j < w->b[i].nr; j++)
			w->b[i].e[j].stk = remap[w->b[i].e[j].stk];
}

void kp_time__fini(struct kp_model *m)
{
	struct kp_window *w = &m->tm.win;
	size_t i;

	for (i = 0; w->b && i < w->nb; i++)
		free(w->b[i].e);
	free(w->b);
	free(w->slot);
	memset(w, 0, sizeof(*w));
}

/* nr_stk: the stacks the window's slots cover while it has any. */
void kp_time__bytes(const struct kp_time *t, size_t nr_stk, struct kp_mem *a)
{
	const struct kp_window *w = &t->win;
	size_t i, b = 0, u = 0;

	for (i = 0; w->b && i < w->nb; i++) {
		b += sizeof(w->b[i]) + w->b[i].cap * sizeof(*w->b[i].e);
		u += sizeof(w->b[i]) + w->b[i].nr * sizeof(*w->b[i].e);
	}
	kp_mem__put(a, "window buckets", b, u);
	kp_mem__put(a, "window per stack", w->cap * sizeof(*w->slot),
		    (w->slot ? nr_stk : 0) * sizeof(*w->slot));
}

void kp_model__refresh(struct kp_model *m, uint64_t now_ns)
{
	struct kp_window *w = &m->tm.win;
	uint64_t span = (uint64_t)m->tm.window_s * KP_NS;
	size_t i;

	(void)kp_feed__settle(m);	/* void: a failed batch is lost */
	(void)kp_intern__rename(m);	/* void: -ENOMEM keeps the old names */
	if (m->tm.mode == KP_TIME_DECAY) {
		kp_vcache__invalidate(m, KP_VC_COUNTS);
		m->sums.ok = 0;
		for (i = 0; i < m->st.nr_stk; i++) {
			struct kp_stk *s = kp_stk(m, (uint32_t)i);

			/* a stack decayed below a hundredth of a sample is gone */
			s->cur = s->cur * 7.0 / 8.0 < KP_DECAY_FLOOR ? 0 : s->cur * 7.0 / 8.0;
		}
		return;
	}
	if (m->tm.mode != KP_TIME_WINDOW || !w->b)
		return;
	if (now_ns > w->now_ns)
		w->now_ns = now_ns;
	for (i = 0; i < w->nb; i++) {
		struct kp_wbucket *b = &w->b[i];

		if (b->used && w->now_ns >= span && (b->sec + 1) * KP_NS <= w->now_ns - span)
			expire(m, b);
	}
}

void kp_model__set_time_mode(struct kp_model *m, enum kp_time_mode mode,
			     unsigned window_s)
{
	size_t i;

	(void)kp_feed__flush(m);
	if (mode == KP_TIME_WINDOW && !window_s)
		window_s = m->tm.window_s ? m->tm.window_s : KP_DEFAULT_WINDOW_S;
	if (mode == m->tm.mode && (mode != KP_TIME_WINDOW || window_s == m->tm.window_s))
		return;
	kp_time__fini(m);
	kp_vcache__invalidate(m, KP_VC_COUNTS);
	m->sums.ok = 0;
	m->tm.mode = mode;
	if (mode == KP_TIME_WINDOW)
		m->tm.window_s = window_s;
	for (i = 0; i < m->st.nr_stk; i++) {
		struct kp_stk *s = kp_stk(m, (uint32_t)i);

		if (mode == KP_TIME_CUMULATIVE)
			s->cur = (double)s->samples;
		else if (mode == KP_TIME_WINDOW)
			s->cur = 0;
	}
}

/* Every stack back to no count and no samples (zero, baseline mark). */
void kp_time__clear_counts(struct kp_model *m)
{
	size_t i;

	kp_vcache__invalidate(m, KP_VC_COUNTS);
	m->sums.ok = 0;
	for (i = 0; i < m->st.nr_stk; i++) {
		kp_stk(m, (uint32_t)i)->cur = 0;
		kp_stk(m, (uint32_t)i)->samples = 0;
	}
	kp_time__clear_window(m);
}
