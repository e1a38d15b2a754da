// SPDX-License-Identifier: GPL-2.0-only
#include "pump/pump-state.h"
#include "stream/stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One key -> a run of encoded records (self-delimiting, back to back). */
struct ent {
	struct ent *next;
	uint64_t key;
	uint64_t tag;		/* processes: start_ns (identity with pid) */
	uint8_t *data;
	size_t len, cap;
};

struct map {
	struct ent **b;
	size_t nb, n;
};

/* M_INHERIT: per forked child, the mappings it had from its parent
 * (the parent's MMAP records, as they were encoded: under its pid). */
/* M_JITGEN: per process, its newest JITGEN record (its JIT code's
 * generation, kept until it exits or its pid is another process's). */
enum { M_CGROUP, M_PROC, M_EXEC, M_THREAD, M_INHERIT, M_MMAP, M_META, M_JITGEN, M_NR };

struct kp_ctlstate {
	struct map m[M_NR];
};

static struct ent **slot(struct map *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	struct ent **pp = &m->b[(h >> 32) & (m->nb - 1)];

	while (*pp && (*pp)->key != key)
		pp = &(*pp)->next;
	return pp;
}

static int grow_map(struct map *m)
{
	size_t nb = m->nb ? m->nb * 2 : 256;
	struct ent **b = calloc(nb, sizeof(*b));
	struct map nm = { .b = b, .nb = nb, .n = m->n };

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < m->nb; i++) {
		struct ent *e = m->b[i], *next;

		for (; e; e = next) {
			struct ent **pp = slot(&nm, e->key);

			next = e->next;
			e->next = NULL;
			*pp = e;
		}
	}
	free(m->b);
	*m = nm;
	return 0;
}

/* Store bytes under key: replace (append == 0) or append. */
static int put(struct map *m, uint64_t key, const uint8_t *bytes, size_t len,
	       int append)
{
	struct ent **pp, *e;

	if (m->n >= m->nb && grow_map(m))
		return -ENOMEM;
	pp = slot(m, key);
	e = *pp;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		e->key = key;
		*pp = e;
		m->n++;
	}
	if (!append)
		e->len = 0;
	if (e->len + len > e->cap) {
		size_t cap = e->cap ? e->cap : 64;
		uint8_t *nd;

		while (cap < e->len + len)
			cap *= 2;
		nd = realloc(e->data, cap);
		if (!nd)
			return -ENOMEM;
		e->data = nd;
		e->cap = cap;
	}
	memcpy(e->data + e->len, bytes, len);
	e->len += len;
	return 0;
}

static void del(struct map *m, uint64_t key)
{
	struct ent **pp, *e;

	if (!m->nb)
		return;
	pp = slot(m, key);
	e = *pp;
	if (!e)
		return;
	*pp = e->next;
	free(e->data);
	free(e);
	m->n--;
}

/* Forget every thread of pid (thread keys are pid << 32 | tid). */
static void del_threads(struct map *m, uint32_t pid)
{
	for (size_t i = 0; i < m->nb; i++) {
		struct ent **pp = &m->b[i];

		while (*pp) {
			struct ent *e = *pp;

			if ((uint32_t)(e->key >> 32) == pid) {
				*pp = e->next;
				free(e->data);
				free(e);
				m->n--;
			} else {
				pp = &e->next;
			}
		}
	}
}

struct kp_ctlstate *kp_ctlstate__new(void)
{
	struct kp_ctlstate *s = calloc(1, sizeof(*s));

	if (!s)
		errno = ENOMEM;
	return s;
}

void kp_ctlstate__free(struct kp_ctlstate *s)
{
	if (!s)
		return;
	for (int i = 0; i < M_NR; i++) {
		struct map *m = &s->m[i];

		for (size_t j = 0; j < m->nb; j++) {
			struct ent *e = m->b[j], *next;

			for (; e; e = next) {
				next = e->next;
				free(e->data);
				free(e);
			}
		}
		free(m->b);
	}
	free(s);
}

int kp_ctlstate__wants(uint32_t type)
{
	switch (type) {
	case KP_REC_META: case KP_REC_PROCESS: case KP_REC_EXEC:
	case KP_REC_EXIT: case KP_REC_THREAD: case KP_REC_MMAP:
	case KP_REC_CGROUP: case KP_REC_JITGEN:
		return 1;
	}
	return 0;
}

static uint64_t tkey(uint32_t pid, uint32_t tid)
{
	return (uint64_t)pid << 32 | tid;
}

/* A forked child has its parent's mappings, and no MMAP record of its
 * own says so (kptop-stream(5): a reader copies them at the PROCESS
 * record). A save's prologue writes every PROCESS before any MMAP, and
 * the parent may be gone by then: keep a copy of the parent's, to be
 * written under the child's pid (write_inherited). */
static int inherit(struct kp_ctlstate *s, uint32_t pid, uint32_t ppid)
{
	static const int from[] = { M_INHERIT, M_MMAP };
	struct map *to = &s->m[M_INHERIT];

	del(to, pid);
	for (size_t k = 0; k < sizeof(from) / sizeof(from[0]); k++) {
		struct map *m = &s->m[from[k]];
		struct ent *e = m->nb ? *slot(m, ppid) : NULL;
		int rc = e && e->len ? put(to, pid, e->data, e->len, 1) : 0;

		if (rc)
			return rc;
	}
	return 0;
}

static void forget_maps(struct kp_ctlstate *s, uint32_t pid)
{
	del(&s->m[M_MMAP], pid);
	del(&s->m[M_INHERIT], pid);
}

/* A PROCESS record for a new identity (pid reused) forgets the old one's
 * exec, threads and mappings; the same identity seen again keeps them.
 * A new forked one (not from the snapshot) inherits its parent's. */
static int fold_process(struct kp_ctlstate *s, const struct kp_rec_process *p,
			const uint8_t *bytes, size_t len)
{
	struct map *m = &s->m[M_PROC];
	struct ent *e = m->nb ? *slot(m, p->pid) : NULL;
	int is_new = !e || e->tag != p->start_ns, rc;

	if (e && is_new) {
		del(&s->m[M_EXEC], p->pid);
		del(&s->m[M_JITGEN], p->pid);
		forget_maps(s, p->pid);
		del_threads(&s->m[M_THREAD], p->pid);
	}
	rc = put(m, p->pid, bytes, len, 0);
	if (rc)
		return rc;
	(*slot(m, p->pid))->tag = p->start_ns;
	if (is_new && !(p->flags & (KP_PROC_SNAPSHOT | KP_PROC_KTHREAD)) &&
	    p->ppid && p->ppid != p->pid)
		return inherit(s, p->pid, p->ppid);
	return 0;
}

int kp_ctlstate__fold(struct kp_ctlstate *s, const struct kp_record *r,
		      const uint8_t *bytes, size_t len)
{
	switch (r->type) {
	case KP_REC_META:
		return put(&s->m[M_META], 0, bytes, len, 0);
	case KP_REC_CGROUP:
		return put(&s->m[M_CGROUP], r->cgroup.id, bytes, len, 0);
	case KP_REC_PROCESS:
		return fold_process(s, &r->process, bytes, len);
	case KP_REC_EXEC:
		/* The old mappings went with the old image; the new ones
		 * follow the EXEC as MMAP records. */
		forget_maps(s, r->exec.pid);
		return put(&s->m[M_EXEC], r->exec.pid, bytes, len, 0);
	case KP_REC_THREAD:
		return put(&s->m[M_THREAD], tkey(r->thread.pid, r->thread.tid),
			   bytes, len, 0);
	case KP_REC_MMAP:
		return put(&s->m[M_MMAP], r->mmap.pid, bytes, len, 1);
	case KP_REC_JITGEN:
		return put(&s->m[M_JITGEN], r->jitgen.owner.pid, bytes, len, 0);
	case KP_REC_EXIT:
		if (r->exit.tid != r->exit.pid) {
			del(&s->m[M_THREAD], tkey(r->exit.pid, r->exit.tid));
			return 0;
		}
		del(&s->m[M_PROC], r->exit.pid);
		del(&s->m[M_EXEC], r->exit.pid);
		del(&s->m[M_JITGEN], r->exit.pid);
		forget_maps(s, r->exit.pid);
		del_threads(&s->m[M_THREAD], r->exit.pid);
		return 0;
	}
	return 0;
}

/* Entry e of M_INHERIT: its MMAP records again, under the child's pid. */
static int write_inherited(struct kp_decoder *d, const struct ent *e, FILE *f,
			   uint64_t *bytes, uint8_t **buf, size_t *cap)
{
	struct kp_record r;
	struct kp_err err;
	size_t off = 0, used;

	while (off < e->len) {
		int rc = kp_decoder__next(d, e->data + off, e->len - off, off, &used, &r, &err);
		ssize_t n;

		if (rc <= 0)
			return rc ? rc : -EIO;	/* our own bytes: never cut */
		off += used;
		if (r.type != KP_REC_MMAP)
			continue;
		r.mmap.pid = r.mmap.tid = (uint32_t)e->key;
		n = (ssize_t)kp_record_encoded_size(&r);
		if ((size_t)n > *cap) {
			uint8_t *nb = realloc(*buf, (size_t)n);

			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = (size_t)n;
		}
		n = kp_record_encode(&r, *buf, *cap);
		if (n < 0)
			return (int)n;
		if (fwrite(*buf, 1, (size_t)n, f) != (size_t)n)
			return -EIO;
		*bytes += (uint64_t)n;
	}
	return 0;
}

static int write_map(const struct map *m, int which, FILE *f, uint64_t *bytes)
{
	struct kp_decoder *d = which == M_INHERIT ? kp_decoder__new() : NULL;
	uint8_t *buf = NULL;
	size_t cap = 0;
	int rc = which == M_INHERIT && !d ? -ENOMEM : 0;

	for (size_t i = 0; i < m->nb && !rc; i++) {
		for (const struct ent *e = m->b[i]; e && !rc; e = e->next) {
			if (d)
				rc = write_inherited(d, e, f, bytes, &buf, &cap);
			else if (e->len && fwrite(e->data, 1, e->len, f) != e->len)
				rc = -EIO;
			else
				*bytes += e->len;
		}
	}
	free(buf);
	kp_decoder__free(d);
	return rc;
}

/* Inherited mappings before a process's own: a later MMAP over an
 * inherited range replaces it, as it did live; JIT generations after
 * the mappings they apply to. */
int kp_ctlstate__write(const struct kp_ctlstate *s, FILE *f, uint64_t *bytes)
{
	static const int order[] = { M_META, M_CGROUP, M_PROC, M_EXEC,
				     M_THREAD, M_INHERIT, M_MMAP, M_JITGEN };

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		int rc = write_map(&s->m[order[k]], order[k], f, bytes);

		if (rc)
			return rc;
	}
	return 0;
}
