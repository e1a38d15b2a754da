#include "pump/pump-state.h"

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

enum { M_CGROUP, M_PROC, M_EXEC, M_THREAD, M_MMAP, M_META, M_NR };

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
	case KP_REC_CGROUP:
		return 1;
	}
	return 0;
}

static uint64_t tkey(uint32_t pid, uint32_t tid)
{
	return (uint64_t)pid << 32 | tid;
}

/* A PROCESS record for a new identity (pid reused) forgets the old one's
 * exec, threads and mappings; the same identity seen again keeps them. */
static int fold_process(struct kp_ctlstate *s, const struct kp_rec_process *p,
			const uint8_t *bytes, size_t len)
{
	struct map *m = &s->m[M_PROC];
	struct ent *e = m->nb ? *slot(m, p->pid) : NULL;
	int rc;

	if (e && e->tag != p->start_ns) {
		del(&s->m[M_EXEC], p->pid);
		del(&s->m[M_MMAP], p->pid);
		del_threads(&s->m[M_THREAD], p->pid);
	}
	rc = put(m, p->pid, bytes, len, 0);
	if (rc)
		return rc;
	(*slot(m, p->pid))->tag = p->start_ns;
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
		del(&s->m[M_MMAP], r->exec.pid);
		return put(&s->m[M_EXEC], r->exec.pid, bytes, len, 0);
	case KP_REC_THREAD:
		return put(&s->m[M_THREAD], tkey(r->thread.pid, r->thread.tid),
			   bytes, len, 0);
	case KP_REC_MMAP:
		return put(&s->m[M_MMAP], r->mmap.pid, bytes, len, 1);
	case KP_REC_EXIT:
		if (r->exit.tid != r->exit.pid) {
			del(&s->m[M_THREAD], tkey(r->exit.pid, r->exit.tid));
			return 0;
		}
		del(&s->m[M_PROC], r->exit.pid);
		del(&s->m[M_EXEC], r->exit.pid);
		del(&s->m[M_MMAP], r->exit.pid);
		del_threads(&s->m[M_THREAD], r->exit.pid);
		return 0;
	}
	return 0;
}

int kp_ctlstate__write(const struct kp_ctlstate *s, FILE *f, uint64_t *bytes)
{
	static const int order[] = { M_META, M_CGROUP, M_PROC, M_EXEC,
				     M_THREAD, M_MMAP };

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		const struct map *m = &s->m[order[k]];

		for (size_t i = 0; i < m->nb; i++) {
			for (const struct ent *e = m->b[i]; e; e = e->next) {
				if (e->len && fwrite(e->data, 1, e->len, f) != e->len)
					return -EIO;
				*bytes += e->len;
			}
		}
	}
	return 0;
}
