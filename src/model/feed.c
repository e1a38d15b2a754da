// SPDX-License-Identifier: GPL-2.0-only
/* feed.c — records into the model; samples into distinct stacks.
 *
 * The hot path: a sample is hashed raw (identity, tid, cgroup, flags,
 * kernel pcs, user pcs) and looked up in the stack table; a known stack
 * only has its counts bumped, by the record's weight (the samples it
 * stands for). Only a new stack is mapped to frames and
 * hung in its process's trie.
 */
#include "model/feed.h"
#include "model/model-util.h"
#include "model/intern.h"
#include "model/proc-int.h"
#include "model/trie.h"
#include "model/stk.h"
#include "model/pending.h"
#include "model/time-int.h"
#include "model/baseline.h"
#include "model/summary.h"
#include "model/view-cache.h"
#include "model/merge.h"
#include "model/offcpu.h"
#include "model/mem.h"
#include "model/annot.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t hash_pcs(uint64_t h, const uint64_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h;
}

uint32_t kp_stk__new(struct kp_model *m, const struct kp_stk *s, uint32_t hash)
{
	uint32_t id = (uint32_t)m->st.nr_stk;

	if (kp_grow(&m->st.stks, &m->st.cap_stk, m->st.nr_stk + 1, sizeof(*m->st.stks)) ||
	    (m->bl.has_base &&
	     kp_grow(&m->bl.base, &m->bl.cap_base, m->st.nr_stk + 1, sizeof(*m->bl.base))) ||
	    kp_htab__insert(&m->st.stk_tab, hash, id))
		return KP_NONE;
	if (m->bl.has_base)
		m->bl.base[id] = 0;
	m->st.stks[id] = *s;
	m->st.nr_stk++;
	return id;
}

void kp_stk__fini(struct kp_model *m)
{
	free(m->st.stks);
	free(m->bl.base);
	free(m->fd.batch);
	free(m->fd.off);
	kp_htab__fini(&m->st.stk_tab);
}

void kp_stk__bytes(const struct kp_stks *s, struct kp_mem *a)
{
	KP_MEM_ARR(a, "stacks", s->stks, s->nr_stk, s->cap_stk);
	KP_MEM_TAB(a, "stack table", &s->stk_tab);
}

#define KP_MAX_PATH (2 * KP_MAX_FRAMES * 8)

/* The functions on the path so far, to know whether a new node recurses
 * without walking the trie up (the trie is scattered in memory). */
struct path {
	uint32_t fn[KP_MAX_PATH];
	size_t n;
};

static uint32_t path_child(struct kp_model *m, struct path *p, uint32_t leaf,
			   uint32_t frame)
{
	uint32_t fn = m->in.frames[frame].fn;
	size_t i;
	int dup = 0;

	for (i = 0; i < p->n && !dup; i++)
		dup = p->fn[i] == fn;
	if (p->n < KP_MAX_PATH)
		p->fn[p->n++] = fn;
	else
		dup = -1;
	return kp_tree__child_dup(m, leaf, frame, dup);
}

/* A frame of an exited process under leaf of its command's merged tree,
 * by the frame it has there: its function and line's, as merge.c makes
 * it. */
static uint32_t merged_child(struct kp_model *m, struct path *p, uint32_t leaf,
			     uint32_t frame)
{
	uint32_t fr = kp_intern__line_frame(m, frame);

	return fr == KP_NONE ? KP_NONE : path_child(m, p, leaf, fr);
}

static uint32_t pc_children(struct kp_model *m, struct path *p, uint32_t leaf,
			    uint32_t pck, int merged)
{
	int j;

	if (pck == KP_NONE)
		return KP_NONE;
	for (j = m->in.pcks[pck].n; j-- > 0 && leaf != KP_NONE;) {
		uint32_t fr = m->in.pcks[pck].first + (uint32_t)j;

		leaf = merged ? merged_child(m, p, leaf, fr) : path_child(m, p, leaf, fr);
	}
	return leaf;
}

/* Walk the frames of a new stack into the trie: user frames from the
 * outermost, then kernel frames; each pc's inlined frames below it.
 * A pc in no mapping becomes, with every frame outside it, the one
 * "[unknown]" frame: a caller there is junk (a frame-pointer walk through
 * code built without frame pointers reads whatever that register held),
 * and a leaf there is most often the pc of an image an exec has just
 * dropped (a sample in execve after the new mappings: a new address for
 * every process, ASLR). Its address names nothing, and keeping it would
 * make new frames, names and nodes sample after sample. */
size_t kp_feed__user_pcks(struct kp_model *m, uint32_t proc, const uint64_t *u,
			 size_t nu, uint64_t *out, int late)
{
	size_t i, n = 0;
	uint32_t mod;

	for (i = 0; i < nu; i++) {
		if (!kp_proc__find_map(&m->pr.procs[proc], u[i], &mod)) {
			out[n++] = kp_intern__junk(m);
			nu = i;
			break;
		}
	}
	for (i = nu; i-- > 0;)
		out[n++] = kp_intern__user_pc(m, proc, u[i], i > 0, late);
	if (nu)
		kp_proc__named_late(m, proc);
	return n;
}

/* A stack of a process that has exited (deferred mode hangs most stacks
 * of short processes after their EXIT) goes straight into its command's
 * merged tree, where the merge would move it: no tree of its own for
 * the merge to copy and drop. Its stack record keeps its thread until
 * the merge (merge.c) re-keys it. */
static uint32_t hang_root(struct kp_model *m, uint32_t proc, int *merged)
{
	const struct kp_proc *p = &m->pr.procs[proc];
	uint32_t t;

	*merged = 0;
	if (!p->gone || p->merged)
		return p->root;
	t = kp_proc__merged(m, p->comm);
	if (t == KP_NONE)
		return m->pr.procs[proc].root;	/* as before: its own tree */
	*merged = 1;
	return m->pr.procs[t].root;
}

uint32_t kp_feed__hang(struct kp_model *m, uint32_t proc, const uint64_t *upck,
		       size_t n, const uint64_t *k, size_t nk, const uint64_t *x, size_t nx)
{
	uint32_t leaf;
	struct path p;
	size_t i;
	int merged;

	if (m->in.nr_late && kp_intern__name_late(m))
		return KP_NONE;
	leaf = hang_root(m, proc, &merged);
	p.n = 0;
	for (i = 0; i < n && leaf != KP_NONE; i++)
		leaf = pc_children(m, &p, leaf, (uint32_t)upck[i], merged);
	for (i = nk; i-- > 0 && leaf != KP_NONE;)
		leaf = pc_children(m, &p, leaf, kp_intern__kernel_pc(m, k[i]), merged);
	for (i = 0; i < nx && leaf != KP_NONE; i++)
		leaf = pc_children(m, &p, leaf, (uint32_t)x[i], merged);
	return leaf;
}

uint32_t kp_feed__stack_leaf(struct kp_model *m, uint32_t proc,
			     const uint64_t *k, size_t nk, const uint64_t *u,
			     size_t nu, const uint64_t *x, size_t nx)
{
	uint64_t upck[KP_MAX_FRAMES + 1];

	if (nu > KP_MAX_FRAMES)
		nu = KP_MAX_FRAMES;
	return kp_feed__hang(m, proc, upck, kp_feed__user_pcks(m, proc, u, nu, upck, 0),
			     k, nk, x, nx);
}

/* A sample as it waits in the batch: what its stack is keyed by. */
struct kp_bhdr {
	uint64_t key;		/* 64-bit hash of the raw sample */
	uint64_t cgroup;
	uint32_t proc, tid;
	uint32_t flags;		/* KP_STK_IDLE, KP_STK_OFFCPU */
	uint32_t cpu;		/* 1 + the CPU (opts.by_cpu), else 0 */
	uint16_t nk, nu;	/* kernel pcs, user pcs */
	uint8_t nx;		/* offcpu.c's frames after them */
};

/* pcs: the hdr->nk kernel pcs, then the user pcs, then the pc keys of
 * offcpu.c's frames. */
static uint32_t new_stack(struct kp_model *m, const struct kp_bhdr *hdr,
			  const uint64_t *pcs, const char *comm)
{
	const uint64_t *k = pcs, *u = pcs + hdr->nk, *x = u + hdr->nu;
	size_t nk = hdr->nk, nu = hdr->nu;
	struct kp_stk s = { .key = (uint32_t)(hdr->key >> 32), .flags = hdr->flags,
			    .lfr = KP_NONE, .cpu = hdr->cpu };
	uint32_t cg;

	s.thr = kp_proc__seen_thread(m, hdr->proc, hdr->tid, comm);
	cg = kp_proc__cgroup(m, hdr->cgroup);
	if (s.thr == KP_NONE || cg == KP_NONE)
		return KP_NONE;
	s.cgroup = cg;
	kp_intern__prefetch(m, hdr->proc, u, nu);
	if (m->fd.defer) {
		/* counted now, hung in the trie when a reader needs it */
		uint32_t id;

		s.leaf = KP_NONE;
		id = kp_stk__new(m, &s, (uint32_t)hdr->key);
		if (id != KP_NONE && kp_pend__push(m, id, hdr->proc, k, (uint16_t)nk,
						   u, (uint16_t)nu, x, hdr->nx)) {
			/* no room to wait: hung now, or counted at the root */
			s.leaf = kp_feed__stack_leaf(m, hdr->proc, k, nk, u, nu, x, hdr->nx);
			m->st.stks[id].leaf = s.leaf != KP_NONE ? s.leaf
							     : m->pr.procs[hdr->proc].root;
		}
		return id;
	}
	s.leaf = kp_feed__stack_leaf(m, hdr->proc, k, nk, u, nu, x, hdr->nx);
	if (s.leaf == KP_NONE)
		return KP_NONE;
	return kp_stk__new(m, &s, (uint32_t)hdr->key);
}

/* The user stack: unwound from regs when the resolver can, else the
 * frame-pointer stack of the sample. */
static const uint64_t *user_stack(struct kp_model *m, const struct kp_rec_sample *s,
				  uint32_t w, uint32_t proc, uint16_t *nu)
{
	const struct kp_proc *p = &m->pr.procs[proc];
	int n, trunc = 0;

	*nu = s->uframes ? s->nr_uframes : 0;
	if (*nu > KP_MAX_FRAMES)
		*nu = KP_MAX_FRAMES;
	if ((s->flags & KP_SAMPLE_REGS) && m->res.ops && m->res.ops->unwind) {
		n = m->res.ops->unwind(m->res.ctx, s, p->maps, p->nr_maps, m->fd.upcs,
				       KP_MAX_FRAMES, &trunc);
		if (n > 0) {
			/* A walk that stopped early keeps its frames and is
			 * counted with the losses (stage "unwind"). */
			if (trunc)	/* samples or intervals, as every drop */
				m->sum.lost[KP_LOST_UNWIND] += m->fd.count ? m->fd.count : w;
			m->sum.unwound_dwarf += w;
			*nu = (uint16_t)n;
			return m->fd.upcs;
		}
	}
	if (*nu)
		m->sum.unwound_fp += w;
	return s->uframes;
}

/* The user stack with the sample's Python frames merged in, where the
 * resolver can (its python op), else u. */
static const uint64_t *python_stack(struct kp_model *m, const struct kp_rec_sample *s,
				    uint32_t proc, const uint64_t *u, uint16_t *nu)
{
	const struct kp_proc *p = &m->pr.procs[proc];
	int n;

	if (!s->py_status || !m->res.ops || !m->res.ops->python)
		return u;
	n = m->res.ops->python(m->res.ctx, s, u, *nu, p->maps, p->nr_maps,
			       m->fd.pypcs, KP_MAX_FRAMES);
	if (n <= 0)
		return u;
	*nu = (uint16_t)n;
	return m->fd.pypcs;
}

/* Samples wait in a small batch so that the table lookups of many
 * samples overlap (prefetched) instead of stalling one by one. */
struct kp_batch {
	struct kp_bhdr hdr[KP_BATCH];
	uint64_t time[KP_BATCH];
	uint32_t w[KP_BATCH];		/* the samples each record stands for */
	uint32_t off[KP_BATCH];
	uint32_t id[KP_BATCH];
	char comm[KP_BATCH][KP_COMM_LEN];
	uint64_t pcs[KP_BATCH * (2 * KP_MAX_FRAMES + KP_OFF_XFRAMES)];
	size_t n, npcs;
};

void kp_feed__bytes(const struct kp_feed *f, struct kp_mem *a)
{
	size_t b = (f->batch ? sizeof(*f->batch) : 0) + (f->off ? sizeof(*f->off) : 0);

	kp_mem__put(a, "sample batch", b, b);
}

static uint32_t lookup(struct kp_model *m, struct kp_batch *b, size_t i)
{
	const struct kp_bhdr *h = &b->hdr[i];
	uint32_t v = 0;
	uint64_t *found;

	/* the whole 64-bit hash matches: the identity, tid and cgroup are in it */
	KP_HTAB_FIND(&m->st.stk_tab, (uint32_t)h->key, v,
		     m->st.stks[v].key == (uint32_t)(h->key >> 32) &&
		     !(m->st.stks[v].flags & KP_STK_MERGED), found);
	if (found)
		return v;
	return new_stack(m, h, b->pcs + b->off[i], b->comm[i]);
}

/* New stacks are hung: the views' structure follows them (eager_views).
 * Its -ENOMEM is left to the next view, which extends again and fails. */
static int hung(struct kp_model *m, int err)
{
	if (m->fd.eager_views && m->vc.nr_nodes < m->tr.nr_nodes)
		(void)kp_vcache__extend(m);
	return err;
}

int kp_feed__flush(struct kp_model *m)
{
	struct kp_batch *b = m->fd.batch;
	size_t i;
	int err = 0, counted;
	uint32_t w;

	if (!b || !b->n)
		return 0;
	for (i = 0; i < b->n; i++) {
		b->id[i] = lookup(m, b, i);
		if (b->id[i] == KP_NONE) {
			err = -ENOMEM;
			continue;
		}
		__builtin_prefetch(&m->st.stks[b->id[i]], 1);
	}
	for (i = 0; i < b->n; i++) {
		if (b->id[i] == KP_NONE)
			continue;
		kp_vcache__touch(m, b->id[i]);
		w = b->w[i];
		counted = m->tm.mode == KP_TIME_WINDOW ?
			  kp_time__add(m, b->id[i], b->time[i], w) : 1;
		if (counted < 0)
			err = counted;
		else if (counted)
			m->st.stks[b->id[i]].cur += w;
		m->st.stks[b->id[i]].samples += w;
		kp_sums__add(&m->sums, &m->st.stks[b->id[i]], counted > 0 ? w : 0, w);
	}
	b->n = b->npcs = 0;
	if (m->fd.defer && !kp_pend__full(m))
		return err;
	return hung(m, kp_merge__tidy(m, err ? err : kp_pend__resolve(m)));
}

int kp_feed__settle(struct kp_model *m)
{
	int err = kp_feed__flush(m);

	return hung(m, kp_merge__tidy(m, err ? err : kp_pend__resolve(m)));
}

/* Keep what a new stack needs of the sample: its pcs, time and comm. */
static void batch_push(struct kp_batch *b, const struct kp_rec_sample *s,
		       uint32_t w, const uint64_t *k, const uint64_t *u, const uint64_t *x)
{
	const struct kp_bhdr *h = &b->hdr[b->n];

	b->off[b->n] = (uint32_t)b->npcs;
	if (h->nk)
		memcpy(b->pcs + b->npcs, k, h->nk * sizeof(*k));
	if (h->nu)
		memcpy(b->pcs + b->npcs + h->nk, u, h->nu * sizeof(*u));
	if (h->nx)
		memcpy(b->pcs + b->npcs + h->nk + h->nu, x, h->nx * sizeof(*x));
	b->npcs += (size_t)h->nk + h->nu + h->nx;
	b->time[b->n] = s->time_ns;
	b->w[b->n] = w;
	memcpy(b->comm[b->n], s->comm, KP_COMM_LEN);
	b->comm[b->n][KP_COMM_LEN - 1] = 0;
	b->n++;
}

/* The 64-bit hash a stack is keyed by: the identity's serial, not its
 * index (procs are renumbered: merge.c), tid, cgroup, idleness, the CPU
 * (by_cpu), the generation of the process's JIT code (jitgen.c: the
 * same pcs are other code in another) and pcs. */
static uint64_t stack_key(const struct kp_model *m, const struct kp_bhdr *hdr,
			  const uint64_t *k, const uint64_t *u, const uint64_t *x)
{
	const struct kp_proc *p = &m->pr.procs[hdr->proc];
	uint64_t key;

	key = kp_hash2((uint64_t)p->serial << 32 | hdr->tid,
		       hdr->cgroup ^ ((uint64_t)hdr->flags << 48 | (uint64_t)hdr->nx << 40 |
				      (uint64_t)hdr->nk << 16 | hdr->nu));
	if (hdr->cpu)
		key = kp_hash2(key, hdr->cpu);
	if (p->jit_gen)
		key = kp_hash2(key, (uint64_t)p->jit_gen << 32 | 0x6a6974);
	return kp_mix64(hash_pcs(hash_pcs(hash_pcs(key, k, hdr->nk), u, hdr->nu), x, hdr->nx));
}

int kp_feed__sample(struct kp_model *m, const struct kp_rec_sample *s)
{
	return kp_feed__sample_x(m, s, NULL, 0);
}

int kp_feed__sample_x(struct kp_model *m, const struct kp_rec_sample *s,
		      const uint64_t *x, uint8_t nx)
{
	struct kp_batch *b = m->fd.batch;
	struct kp_bhdr *hdr;
	const uint64_t *u, *k = s->kframes;
	uint32_t w = kp_sample_weight(s);
	uint16_t nu;
	int created;

	if (!b) {
		b = m->fd.batch = malloc(sizeof(*b));
		if (!b)
			return -ENOMEM;
		b->n = b->npcs = 0;
	}
	hdr = &b->hdr[b->n];
	memset(hdr, 0, sizeof(*hdr));
	hdr->tid = s->tid;
	hdr->cgroup = s->cgroup_id;
	hdr->cpu = m->fd.by_cpu && s->cpu < UINT32_MAX ? s->cpu + 1 : 0;
	hdr->proc = kp_proc__for_pid(m, s->pid, s->comm, &created);
	if (hdr->proc == KP_NONE)
		return -ENOMEM;
	hdr->flags = (s->flags & KP_SAMPLE_IDLE) ? KP_STK_IDLE : 0;
	if (m->pr.procs[hdr->proc].placeholder && !hdr->flags)
		m->sum.unknown_pid += w;
	hdr->nk = k ? (s->nr_kframes > KP_MAX_FRAMES ? KP_MAX_FRAMES : s->nr_kframes) : 0;
	u = user_stack(m, s, w, hdr->proc, &nu);
	hdr->nu = nu;
	u = python_stack(m, s, hdr->proc, u, &hdr->nu);
	hdr->nx = nx <= KP_OFF_XFRAMES ? nx : KP_OFF_XFRAMES;
	if (hdr->nx)
		hdr->flags |= KP_STK_OFFCPU;
	hdr->key = stack_key(m, hdr, k, u, x);
	if (m->st.stk_tab.n)
		__builtin_prefetch(&m->st.stk_tab.slots[kp_htab_pos(&m->st.stk_tab, (uint32_t)hdr->key)]);
	batch_push(b, s, w, k, u, x);

	m->sum.samples += w;
	if (!m->sum.first_ns || s->time_ns < m->sum.first_ns)
		m->sum.first_ns = s->time_ns;
	if (s->time_ns > m->sum.last_ns)
		m->sum.last_ns = s->time_ns;
	return b->n == KP_BATCH ? kp_feed__flush(m) : 0;
}

static void feed_meta(struct kp_model *m, const struct kp_rec_meta *r)
{
	const char *ev = r->event && *r->event ? r->event : "cpu-clock";

	m->sum.freq_hz = r->freq_hz;
	m->sum.ncpus = r->ncpus;
	snprintf(m->sum.event, sizeof(m->sum.event), "%s", ev);
	snprintf(m->sum.event_asked, sizeof(m->sum.event_asked), "%s",
		 r->event_asked ? r->event_asked : "");
	m->sum.period = r->period;
	m->sum.event_count = !!(r->flags & KP_META_EVENT_COUNT);
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : v ? (uint32_t)v : 1;
}

/* A SAMPLE or OFFCPU record as the weight counts it (kp_model__set_weight):
 * a sample in microseconds of CPU, an off-CPU interval in microseconds
 * off it; nothing (0) where the weight leaves it out. */
static int weighed(struct kp_model *m, const struct kp_record *r,
		   struct kp_rec_sample *out)
{
	uint32_t hz = m->sum.freq_hz ? m->sum.freq_hz : 999;
	uint64_t ns = m->sum.period && !m->sum.event_count ? m->sum.period :
		      1000000000u / hz;	/* a sample's CPU time */

	if (r->type == KP_REC_SAMPLE) {
		if (m->fd.weight == KP_WEIGHT_OFF)
			return 0;
		*out = r->sample;
		out->weight = clamp32(kp_sample_weight(&r->sample) * ns / 1000);
		return 1;
	}
	if (m->fd.weight == KP_WEIGHT_CPU)
		return 0;
	*out = r->offcpu.s;
	out->flags &= ~(uint32_t)KP_SAMPLE_IDLE;
	out->weight = clamp32(r->offcpu.off_ns / 1000);
	return 1;
}

/* An off-CPU interval: its stacks, then its state and waker frames. */
static int offcpu(struct kp_model *m, const struct kp_rec_offcpu *r,
		  const struct kp_rec_sample *ws)
{
	uint64_t x[KP_OFF_XFRAMES];
	int nx = kp_offcpu__frames(m, r, x);

	return nx < 0 ? nx : kp_feed__sample_x(m, ws, x, (uint8_t)nx);
}

void kp_model__set_weight(struct kp_model *m, enum kp_weight w)
{
	if (w < KP_WEIGHT_MAX)
		m->fd.weight = (int)w;
}

enum kp_weight kp_model__weight(const struct kp_model *m)
{
	return (enum kp_weight)m->fd.weight;
}

static const char *const weight_names[KP_WEIGHT_MAX] = { "cpu", "off", "wall" };

const char *kp_weight_name(enum kp_weight w)
{
	return w < KP_WEIGHT_MAX ? weight_names[w] : "?";
}

int kp_weight_parse(const char *name, enum kp_weight *out)
{
	for (int i = 0; i < KP_WEIGHT_MAX; i++)
		if (!strcmp(name, weight_names[i])) {
			*out = (enum kp_weight)i;
			return 0;
		}
	return -EINVAL;
}

int kp_model__feed(struct kp_model *m, const struct kp_record *r)
{
	struct kp_rec_sample ws;
	int err;

	if (r->type == KP_REC_SAMPLE && m->fd.weight == KP_WEIGHT_CPU)
		return kp_feed__sample(m, &r->sample);
	if (r->type == KP_REC_SAMPLE || r->type == KP_REC_OFFCPU) {
		if (!weighed(m, r, &ws))
			return 0;
		m->fd.count = r->type == KP_REC_SAMPLE ? kp_sample_weight(&r->sample) :
			      r->offcpu.count ? r->offcpu.count : 1;
		err = r->type == KP_REC_SAMPLE ? kp_feed__sample(m, &ws) :
						 offcpu(m, &r->offcpu, &ws);
		m->fd.count = 0;
		return err;
	}
	err = kp_feed__flush(m);	/* samples before the record it follows */
	if (err)
		return err;
	switch (r->type) {
	case KP_REC_META:
		feed_meta(m, &r->meta);
		return 0;
	case KP_REC_LOST:
		if (r->lost.stage <= KP_LOST_STAGE_MAX)
			m->sum.lost[r->lost.stage] += r->lost.count;
		else
			m->sum.lost[0] += r->lost.count;
		return 0;
	case KP_REC_CODE:
		if (m->res.ops && m->res.ops->code_fed)
			m->res.ops->code_fed(m->res.ctx, &r->code);
		return kp_codes__keep(m, &r->code);
	case KP_REC_SYMTAB:
		kp_vcache__invalidate(m, KP_VC_NODES);	/* names may change */
		err = kp_intern__symtab(m, &r->symtab);
		if (err > 0)
			kp_tree__redup(m);
		return err < 0 ? err : 0;
	default:
		return kp_proc__feed(m, r);
	}
}
