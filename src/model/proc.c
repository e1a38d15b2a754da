// SPDX-License-Identifier: GPL-2.0-only
/* proc.c — process identities, threads and mappings, from PROCESS,
 * EXEC, EXIT, THREAD and MMAP records (cgroups: cgroup.c).
 *
 * Identity: a pid maps to its current identity; PROCESS with another
 * start time (pid reuse) or EXEC starts a new one, and the old one keeps
 * its counts, names and mappings. The resolver hears process_gone() when
 * an identity ends (exit, exec, reuse): its frames were named eagerly.
 */
#include "model/proc-int.h"
#include "model/model-util.h"
#include "model/intern.h"
#include "model/jitgen.h"
#include "model/trie.h"
#include "model/pending.h"
#include "model/mem.h"
#include "model/model-int.h"	/* struct kp_model */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kp_proc__fini(struct kp_model *m)
{
	size_t i;

	for (i = 0; i < m->pr.nr_procs; i++) {
		free(m->pr.procs[i].maps);
		free(m->pr.procs[i].map_mod);
		if (m->pr.procs[i].merged)
			free(m->pr.procs[i].label);
	}
	free(m->pr.procs);
	free(m->pr.threads);
	free(m->pr.cgroups);
	kp_htab__fini(&m->pr.pid_tab);
	kp_htab__fini(&m->pr.merged_tab);
	kp_htab__fini(&m->pr.thr_tab);
	kp_htab__fini(&m->pr.cg_tab);
}

void kp_proc__bytes(const struct kp_procs *pr, struct kp_mem *a)
{
	size_t i, b, u;

	b = pr->cap_procs * sizeof(*pr->procs) + kp_htab__bytes(&pr->pid_tab);
	u = pr->nr_procs * sizeof(*pr->procs) + kp_htab__used(&pr->pid_tab);
	for (i = 0; i < pr->nr_procs; i++) {
		const struct kp_proc *p = &pr->procs[i];

		b += p->cap_maps * (sizeof(*p->maps) + sizeof(*p->map_mod));
		u += p->nr_maps * (sizeof(*p->maps) + sizeof(*p->map_mod));
	}
	kp_mem__put(a, "processes, mappings", b, u);
	kp_mem__put(a, "threads, cgroups",
		    pr->cap_threads * sizeof(*pr->threads) + kp_htab__bytes(&pr->thr_tab) +
		    pr->cap_cgroups * sizeof(*pr->cgroups) + kp_htab__bytes(&pr->cg_tab),
		    pr->nr_threads * sizeof(*pr->threads) + kp_htab__used(&pr->thr_tab) +
		    pr->nr_cgroups * sizeof(*pr->cgroups) + kp_htab__used(&pr->cg_tab));
}

static uint32_t pid_hash(uint32_t pid)
{
	return (uint32_t)kp_mix64(pid + 1);
}

static uint64_t *pid_slot(struct kp_model *m, uint32_t pid)
{
	uint32_t h = pid_hash(pid), v = 0;
	uint64_t *found;

	KP_HTAB_FIND(&m->pr.pid_tab, h, v, m->pr.procs[v].pid == pid, found);
	return found;
}

static uint32_t current(struct kp_model *m, uint32_t pid)
{
	uint64_t *s = pid_slot(m, pid);

	return s ? (uint32_t)*s - 1 : KP_NONE;
}

/* A new identity for pid, which becomes the pid's current one. */
static uint32_t new_proc(struct kp_model *m, uint32_t pid, uint64_t start_ns,
			 const char *comm, const char *exe)
{
	uint32_t idx = (uint32_t)m->pr.nr_procs;
	struct kp_proc *p;
	uint64_t *slot;

	if (kp_grow(&m->pr.procs, &m->pr.cap_procs, m->pr.nr_procs + 1, sizeof(*m->pr.procs)))
		return KP_NONE;
	p = &m->pr.procs[idx];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->start_ns = start_ns;
	p->serial = m->pr.next_serial++;
	p->comm = kp_strpool__intern(&m->strs, comm ? comm : "");
	p->exe = kp_strpool__intern(&m->strs, exe ? exe : "");
	if (!p->comm || !p->exe)
		return KP_NONE;
	m->pr.nr_procs++;
	p->root = kp_tree__root(m, idx);
	if (p->root == KP_NONE)
		goto out_undo;
	slot = pid_slot(m, pid);
	if (slot)
		*slot = (*slot & ~0xffffffffull) | (idx + 1);
	else if (kp_htab__insert(&m->pr.pid_tab, pid_hash(pid), idx))
		goto out_undo;
	return idx;

out_undo:
	m->pr.nr_procs--;
	return KP_NONE;
}

static void proc_gone(struct kp_model *m, uint32_t idx)
{
	struct kp_proc *p = &m->pr.procs[idx];

	if (p->gone)
		return;
	/* its waiting stacks' user pcs are named while its mappings hold */
	kp_pend__name_user(m, idx);
	p = &m->pr.procs[idx];
	p->gone = 1;
	m->pr.nr_gone++;
	if (m->res.ops && m->res.ops->process_gone)
		m->res.ops->process_gone(m->res.ctx, p->pid, p->start_ns);
}

/* idx has been replaced under its pid (an exec, a reused pid): no sample
 * can reach it any more, and proc_gone named its waiting stacks, so its
 * mappings go now rather than at the merge; under churn a fork's copy
 * of its parent's mappings and the exec's own would both wait there. */
static void proc_replaced(struct kp_model *m, uint32_t idx)
{
	struct kp_proc *p = &m->pr.procs[idx];

	proc_gone(m, idx);
	p = &m->pr.procs[idx];
	if (p->npend)
		return;
	m->sum.mappings -= p->nr_maps;
	free(p->maps);
	free(p->map_mod);
	p->maps = NULL;
	p->map_mod = NULL;
	p->nr_maps = p->cap_maps = 0;
}

void kp_proc__named_late(struct kp_model *m, uint32_t proc)
{
	const struct kp_proc *p = &m->pr.procs[proc];

	if (p->gone && !p->merged && current(m, p->pid) == proc &&
	    m->res.ops && m->res.ops->process_gone)
		m->res.ops->process_gone(m->res.ctx, p->pid, p->start_ns);
}

static uint32_t comm_hash(const char *comm)
{
	return (uint32_t)kp_mix64((uintptr_t)comm);
}

uint32_t kp_proc__merged(struct kp_model *m, const char *comm)
{
	uint32_t h = comm_hash(comm), v = 0, idx = (uint32_t)m->pr.nr_procs;
	uint64_t *found;
	struct kp_proc *p;

	KP_HTAB_FIND(&m->pr.merged_tab, h, v, m->pr.procs[v].comm == comm, found);
	if (found)
		return v;
	if (kp_grow(&m->pr.procs, &m->pr.cap_procs, m->pr.nr_procs + 1, sizeof(*m->pr.procs)))
		return KP_NONE;
	p = &m->pr.procs[idx];
	memset(p, 0, sizeof(*p));
	p->serial = m->pr.next_serial++;
	p->comm = comm;
	p->exe = "";
	p->gone = p->merged = 1;
	p->label = malloc(KP_LABEL_LEN);
	if (!p->label)
		return KP_NONE;
	snprintf(p->label, KP_LABEL_LEN, "%s", comm);
	p->root = kp_tree__root(m, idx);
	if (p->root == KP_NONE || kp_htab__insert(&m->pr.merged_tab, h, idx)) {
		free(p->label);	/* a root without a process: never reached */
		return KP_NONE;
	}
	m->pr.nr_procs++;
	m->pr.nr_merged_rows++;
	return idx;
}

int kp_proc__reindex(struct kp_model *m)
{
	size_t i;

	kp_htab__clear(&m->pr.pid_tab);
	kp_htab__clear(&m->pr.merged_tab);
	kp_htab__clear(&m->pr.thr_tab);
	for (i = 0; i < m->pr.nr_procs; i++) {
		const struct kp_proc *p = &m->pr.procs[i];
		uint64_t *slot;

		if (p->merged) {
			if (kp_htab__insert(&m->pr.merged_tab, comm_hash(p->comm), (uint32_t)i))
				return -ENOMEM;
			continue;
		}
		slot = pid_slot(m, p->pid);	/* the later identity of a pid wins */
		if (slot)
			*slot = (*slot & ~0xffffffffull) | (i + 1);
		else if (kp_htab__insert(&m->pr.pid_tab, pid_hash(p->pid), (uint32_t)i))
			return -ENOMEM;
	}
	for (i = 0; i < m->pr.nr_threads; i++) {
		const struct kp_thread *t = &m->pr.threads[i];

		if (kp_htab__insert(&m->pr.thr_tab, (uint32_t)kp_hash2(t->proc, t->tid),
				    (uint32_t)i))
			return -ENOMEM;
	}
	return 0;
}

uint64_t kp_proc__row_id(const struct kp_model *m, uint32_t proc)
{
	const struct kp_proc *p = &m->pr.procs[proc];

	return kp_hash2(p->pid, p->serial) | 1;
}

uint32_t kp_proc__for_pid(struct kp_model *m, uint32_t pid, const char *comm,
			  int *created)
{
	uint32_t idx = current(m, pid);

	*created = 0;
	if (idx != KP_NONE)
		return idx;
	idx = new_proc(m, pid, 0, comm, "");
	if (idx != KP_NONE) {
		m->pr.procs[idx].placeholder = 1;
		*created = 1;
	}
	return idx;
}

static int maps_room(struct kp_proc *p, size_t n);

/* A forked child starts with its parent's mappings, as the kernel copies
 * them (fork, vfork, clone without an exec): its samples before any exec
 * (a shell's child, a prefork server's worker) are named with them. No
 * MMAP record says so: the side-band sends none for inherited mappings. */
static int inherit_maps(struct kp_model *m, uint32_t idx, uint32_t ppid)
{
	uint32_t pidx = current(m, ppid);
	const struct kp_proc *pp;
	struct kp_proc *p = &m->pr.procs[idx];
	size_t i, n;

	if (pidx == KP_NONE || pidx == idx || p->nr_maps)
		return 0;
	pp = &m->pr.procs[pidx];
	n = pp->nr_maps;
	if (!n || pp->merged)
		return 0;
	if (maps_room(p, n))
		return -ENOMEM;
	memcpy(p->maps, pp->maps, n * sizeof(*p->maps));
	memcpy(p->map_mod, pp->map_mod, n * sizeof(*p->map_mod));
	for (i = 0; i < n; i++) {
		p->maps[i].pid = p->pid;
		p->maps[i].proc_start_ns = p->start_ns;
	}
	p->nr_maps = n;
	m->sum.mappings += n;
	return 0;
}

/* The same identity again (or a placeholder that samples or mappings
 * made before it): it takes the record's names, keeps its mappings. */
static int update_proc(struct kp_model *m, struct kp_proc *p,
		       const struct kp_rec_process *r)
{
	size_t i;

	for (i = 0; i < p->nr_maps; i++)
		p->maps[i].proc_start_ns = r->start_ns;
	p->start_ns = r->start_ns;
	p->placeholder = 0;
	p->comm = kp_strpool__intern(&m->strs, r->comm ? r->comm : "");
	p->exe = kp_strpool__intern(&m->strs, r->exe ? r->exe : "");
	p->kthread = !!(r->flags & KP_PROC_KTHREAD);
	return p->comm && p->exe ? 0 : -ENOMEM;
}

static int on_process(struct kp_model *m, const struct kp_rec_process *r)
{
	uint32_t idx = current(m, r->pid);
	int rc;

	if (idx != KP_NONE) {
		struct kp_proc *p = &m->pr.procs[idx];

		if (p->placeholder || p->start_ns == r->start_ns) {
			rc = update_proc(m, p, r);
			goto out;
		}
		proc_replaced(m, idx);
	}
	idx = new_proc(m, r->pid, r->start_ns, r->comm, r->exe);
	if (idx == KP_NONE)
		return -ENOMEM;
	m->pr.procs[idx].kthread = !!(r->flags & KP_PROC_KTHREAD);
	rc = 0;
out:
	/* a fork (not the snapshot at start, whose mappings come as MMAPs) */
	if (!rc && !(r->flags & KP_PROC_SNAPSHOT) && r->ppid && r->ppid != r->pid)
		rc = inherit_maps(m, idx, r->ppid);
	return rc;
}

/* exec: same pid and start time, new identity (new comm, no mappings). */
static int on_exec(struct kp_model *m, const struct kp_rec_exec *r)
{
	uint32_t idx = current(m, r->pid);
	uint64_t start = 0;

	if (idx != KP_NONE) {
		start = m->pr.procs[idx].start_ns;
		proc_replaced(m, idx);
	}
	idx = new_proc(m, r->pid, start, r->comm, r->exe);
	return idx == KP_NONE ? -ENOMEM : 0;
}

static int on_exit_rec(struct kp_model *m, const struct kp_rec_exit *r)
{
	uint32_t idx;

	if (r->tid != r->pid)
		return 0;
	idx = current(m, r->pid);
	if (idx != KP_NONE)
		proc_gone(m, idx);
	return 0;
}

static uint32_t thread_find(const struct kp_model *m, uint32_t proc, uint32_t tid,
			    uint32_t *hash)
{
	uint32_t h = (uint32_t)kp_hash2(proc, tid), v = 0;
	uint64_t *found;

	*hash = h;
	KP_HTAB_FIND(&m->pr.thr_tab, h, v,
		     m->pr.threads[v].proc == proc && m->pr.threads[v].tid == tid, found);
	return found ? v : KP_NONE;
}

uint32_t kp_proc__thread(const struct kp_model *m, uint32_t proc, uint32_t tid)
{
	uint32_t h;

	return thread_find(m, proc, tid, &h);
}

/* Thread tid of proc, made if new and named (only when new unless
 * force); KP_NONE on -ENOMEM. */
static uint32_t thread_name(struct kp_model *m, uint32_t proc, uint32_t tid,
			    const char *name, int force)
{
	uint32_t h, idx = thread_find(m, proc, tid, &h);
	const char *s;

	if (idx != KP_NONE && !force)
		return idx;
	s = kp_strpool__intern(&m->strs, name ? name : "");
	if (!s)
		return KP_NONE;
	if (idx != KP_NONE) {
		m->pr.threads[idx].name = s;
		return idx;
	}
	if (kp_grow(&m->pr.threads, &m->pr.cap_threads, m->pr.nr_threads + 1,
		    sizeof(*m->pr.threads)) ||
	    kp_htab__insert(&m->pr.thr_tab, h, (uint32_t)m->pr.nr_threads))
		return KP_NONE;
	m->pr.threads[m->pr.nr_threads].proc = proc;
	m->pr.threads[m->pr.nr_threads].tid = tid;
	m->pr.threads[m->pr.nr_threads].name = s;
	return (uint32_t)m->pr.nr_threads++;
}

uint32_t kp_proc__seen_thread(struct kp_model *m, uint32_t proc, uint32_t tid,
			      const char *comm)
{
	return thread_name(m, proc, tid, comm, 0);
}

static int on_thread(struct kp_model *m, const struct kp_rec_thread *r)
{
	int created;
	uint32_t idx = kp_proc__for_pid(m, r->pid, r->comm, &created);

	if (idx == KP_NONE)
		return -ENOMEM;
	return thread_name(m, idx, r->tid, r->comm, 1) == KP_NONE ? -ENOMEM : 0;
}

const struct kp_map_info *kp_proc__find_map(const struct kp_proc *p,
					    uint64_t pc, uint32_t *mod)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc - p->maps[lo - 1].addr >= p->maps[lo - 1].len)
		return NULL;
	*mod = p->map_mod[lo - 1];
	return &p->maps[lo - 1];
}

/* Room for n mappings in p->maps and p->map_mod. */
static int maps_room(struct kp_proc *p, size_t n)
{
	size_t cap = p->cap_maps;
	uint32_t *mm;

	if (n <= cap)
		return 0;
	if (kp_grow(&p->maps, &cap, n, sizeof(*p->maps)))
		return -ENOMEM;
	mm = realloc(p->map_mod, cap * sizeof(*mm));
	if (!mm)
		return -ENOMEM;	/* maps grew, cap_maps did not: no harm */
	p->map_mod = mm;
	p->cap_maps = cap;
	return 0;
}

/* Insert mi in sorted order, cutting the parts of old mappings it covers:
 * the old mappings [lo, hi) that overlap it are replaced, in place, by
 * what is left of the first one before it, mi, and what is left of the
 * last one after it. */
static int insert_map(struct kp_model *m, struct kp_proc *p,
		      const struct kp_map_info *mi, uint32_t mod)
{
	uint64_t a = mi->addr, e = mi->addr + mi->len;
	struct kp_map_info piece[3];
	uint32_t pmod[3];
	size_t lo = 0, hi = p->nr_maps, n = p->nr_maps, k = 0, newn;

	while (lo < hi) {	/* the first mapping ending after a */
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].addr + p->maps[mid].len <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < n && p->maps[hi].addr < e; hi++)
		;
	if (lo < hi && p->maps[lo].addr < a) {
		piece[k] = p->maps[lo];
		piece[k].len = a - piece[k].addr;
		pmod[k++] = p->map_mod[lo];
	}
	piece[k] = *mi;
	pmod[k++] = mod;
	if (lo < hi && p->maps[hi - 1].addr + p->maps[hi - 1].len > e) {
		const struct kp_map_info *o = &p->maps[hi - 1];

		piece[k] = *o;
		piece[k].pgoff += e - o->addr;
		piece[k].len = o->addr + o->len - e;
		piece[k].addr = e;
		pmod[k++] = p->map_mod[hi - 1];
	}
	newn = n - (hi - lo) + k;
	if (maps_room(p, newn))
		return -ENOMEM;
	memmove(&p->maps[lo + k], &p->maps[hi], (n - hi) * sizeof(*p->maps));
	memmove(&p->map_mod[lo + k], &p->map_mod[hi], (n - hi) * sizeof(*p->map_mod));
	memcpy(&p->maps[lo], piece, k * sizeof(*piece));
	memcpy(&p->map_mod[lo], pmod, k * sizeof(*pmod));
	p->nr_maps = newn;
	m->sum.mappings += newn;
	m->sum.mappings -= n;
	return 0;
}

static int on_mmap(struct kp_model *m, const struct kp_rec_mmap *r)
{
	struct kp_map_info mi = { .pid = r->pid, .addr = r->addr, .len = r->len,
				  .pgoff = r->pgoff, .maj = r->maj, .min = r->min,
				  .ino = r->ino, .build_id_len = r->build_id_len };
	int created;
	uint32_t idx = kp_proc__for_pid(m, r->pid, "", &created), mod;

	if (idx == KP_NONE)
		return -ENOMEM;
	if (!r->len)
		return 0;
	mi.proc_start_ns = m->pr.procs[idx].start_ns;
	if (mi.build_id_len > KP_BUILD_ID_MAX)
		mi.build_id_len = KP_BUILD_ID_MAX;
	memcpy(mi.build_id, r->build_id, mi.build_id_len);
	mi.path = kp_strpool__intern(&m->strs, r->path ? r->path : "");
	if (!mi.path)
		return -ENOMEM;
	mod = kp_intern__module(m, &mi, idx);
	if (mod == KP_NONE)
		return -ENOMEM;
	/* stacks sampled under the old mappings are named with them */
	kp_pend__name_user(m, idx);
	return insert_map(m, &m->pr.procs[idx], &mi, mod);
}

uint32_t kp_proc__find(struct kp_model *m, uint32_t pid, uint64_t start_ns)
{
	uint32_t idx = current(m, pid);

	return idx != KP_NONE && m->pr.procs[idx].start_ns == start_ns ? idx : KP_NONE;
}

/* A JITGEN record: for the pid's identity now, when newer than its
 * generation; else (not known, another identity) ignored. */
static int on_jitgen(struct kp_model *m, const struct kp_rec_jitgen *g)
{
	uint32_t idx = kp_proc__find(m, g->owner.pid, g->owner.start_ns);

	if (idx == KP_NONE || g->owner.gen <= m->pr.procs[idx].jit_gen)
		return 0;
	return kp_jitgen__apply(m, idx, g->owner.gen);
}

int kp_proc__feed(struct kp_model *m, const struct kp_record *r)
{
	switch (r->type) {
	case KP_REC_PROCESS: return on_process(m, &r->process);
	case KP_REC_EXEC: return on_exec(m, &r->exec);
	case KP_REC_EXIT: return on_exit_rec(m, &r->exit);
	case KP_REC_THREAD: return on_thread(m, &r->thread);
	case KP_REC_MMAP: return on_mmap(m, &r->mmap);
	case KP_REC_CGROUP: return kp_proc__on_cgroup(m, &r->cgroup);
	case KP_REC_JITGEN: return on_jitgen(m, &r->jitgen);
	default: return 0;
	}
}
