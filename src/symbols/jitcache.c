// SPDX-License-Identifier: GPL-2.0-only
/* jitcache.c — the JIT tables of every process (see symbols-int.h):
 * its jitdump when it has mapped one (found in /proc/PID/maps, read
 * through map_files), else its perf map (its /tmp under /proc/PID/root
 * with its namespace pid when it lives in another mount namespace);
 * one table per file, shared by every process whose perf-PID.map is
 * that file (device, inode, size, mtime: hard links, or one map copied
 * for several pids is read once); all tables together never hold more
 * than the JIT budget; a map is looked at again at most once a second
 * on a lookup that misses and once a second by kp_symbols__jit_poll, and
 * read when it changed, no sooner than KP_JIT_COST_FACTOR times its last
 * read took, so reading maps costs a bounded share of a CPU however fast
 * they grow.
 * With a wait (kp_symbols_opts.jit_wait_ms) maps are read by a thread of
 * their own (jitworker.h), one at a time, and a lookup waits for a read
 * at most that long: code looked up meanwhile is not named.
 */
#include "symbols/symbols.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols/jitdump.h"
#include "symbols/jitmap.h"
#include "symbols/jitname.h"
#include "symbols/jitworker.h"
#include "symbols/procfs.h"
#include "symbols/symbols-int.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void id_of(struct kp_jitid *id, const struct stat *st)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static int id_same(const struct kp_jitid *a, const struct kp_jitid *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

static struct kp_jitent *ent_find(struct kp_symbols *s, const struct kp_jitid *id)
{
	for (struct kp_jitent *e = s->jits; e; e = e->next)
		if (id_same(&e->id, id))
			return e;
	return NULL;
}

static void ent_unref(struct kp_symbols *s, struct kp_jitent *e)
{
	struct kp_jitent **pp;

	if (!e || --e->refs)
		return;
	for (pp = &s->jits; *pp != e; pp = &(*pp)->next)
		;
	*pp = e->next;
	s->st.jit_bytes -= kp_jittab__bytes(e->tab);
	kp_jittab__free(e->tab);
	free(e);
}

const char *kp_jit__range(struct kp_symbols *s, struct kp_sym_proc *p, uint64_t addr,
			  uint64_t *start, uint64_t *size)
{
	const char *file;
	uint32_t line;
	const char *name = kp_jit__lookup(s, p, addr, &file, &line);

	return name && kp_jittab__range(p->jit->tab, addr, start, size) ? name : NULL;
}

void kp_jit__drop(struct kp_symbols *s, struct kp_sym_proc *p)
{
	if (s->jit_job_proc == p)
		s->jit_job_proc = NULL;	/* its read ends without it */
	ent_unref(s, p->jit);
	p->jit = NULL;
}

void kp_jit__stop(struct kp_symbols *s)
{
	kp_jitworker__free(s->jit_worker);
	s->jit_worker = NULL;
	s->jit_job_proc = NULL;
}

/* p's table is e from now on. */
static void attach(struct kp_symbols *s, struct kp_sym_proc *p, struct kp_jitent *e)
{
	if (e == p->jit)
		return;
	if (!p->jit)
		s->st.jit_maps++;
	e->refs++;
	ent_unref(s, p->jit);
	p->jit = e;
}

/* A refusal of the file id: counted once per process and file. */
static void refused(struct kp_symbols *s, struct kp_sym_proc *p,
		    const struct kp_jitid *id)
{
	if (p->jit_refused && id_same(&p->jit_refused_id, id))
		return;
	p->jit_refused = 1;
	p->jit_refused_id = *id;
	s->st.jit_refused++;
}

/* What is left of the budget: every table held counts, the one a new
 * read would replace too (both are held while it is read). */
static size_t budget_left(const struct kp_symbols *s)
{
	return s->jit_budget > s->st.jit_bytes ? s->jit_budget - s->st.jit_bytes : 0;
}

/* 1 when map id was found over the budget and the tables held now
 * leave no more room than then: it is not read again. */
static int over_budget(const struct kp_symbols *s, const struct kp_jitid *id)
{
	return id_same(&s->jit_over_id, id) && s->st.jit_bytes >= s->jit_over_bytes;
}

/* The runtime whose names most of t's first entries are. */
static enum kp_jit_runtime runtime_of(const struct kp_jittab *t)
{
	size_t n = kp_jittab__count(t), votes[KP_JIT_PYTHON + 1] = { 0 };
	enum kp_jit_runtime best = KP_JIT_UNKNOWN;
	struct kp_jitname jn;

	for (size_t i = 0; i < n && i < 256; i++) {
		kp_jitname__parse(kp_jittab__name(t, i), &jn);
		votes[jn.runtime]++;
	}
	for (int r = KP_JIT_NODE; r <= KP_JIT_PYTHON; r++)
		if (votes[r] > votes[best] || (best == KP_JIT_UNKNOWN && votes[r]))
			best = (enum kp_jit_runtime)r;
	return best;
}

/* A read of map id for process p (NULL: gone meanwhile) has ended: its
 * table becomes a shared entry, given to p. Rereads of p wait
 * KP_JIT_COST_FACTOR times as long as this read took. */
static void read_done(struct kp_symbols *s, struct kp_sym_proc *p,
		      const struct kp_jitid *id, const struct kp_jitread *r)
{
	struct kp_jitent *e = r->tab ? calloc(1, sizeof(*e)) : NULL;

	s->st.jit_bad_lines += r->bad_lines;
	s->st.jit_read_ns += r->took_ns;
	if (p && r->took_ns * KP_JIT_COST_FACTOR > KP_JIT_RECHECK_NS)
		p->jit_cost_ns = mono_ns() + r->took_ns * KP_JIT_COST_FACTOR;
	if (!e) {
		kp_jittab__free(r->tab);
		if (r->err == -E2BIG) {		/* over the budget */
			s->jit_over_id = *id;
			s->jit_over_bytes = s->st.jit_bytes;
			if (p)
				refused(s, p, id);
		}
		if (r->err == -EPROTO && p)	/* not a jitdump we read */
			refused(s, p, id);
		return;
	}
	e->id = *id;
	e->tab = r->tab;
	e->runtime = runtime_of(e->tab);
	s->st.jit_reads++;
	s->st.jit_bytes += kp_jittab__bytes(e->tab);
	s->jit_epoch++;	/* JIT code named "+0x..." before may be named now */
	e->next = s->jits;
	s->jits = e;
	if (p)
		attach(s, p, e);
}

/* The worker's read, if it has ended, waiting up to wait_ms unless a
 * lookup already waited for this read in vain (a big map: nobody waits
 * again until it is read). 1 when the worker is free now. */
static int take_read(struct kp_symbols *s, unsigned wait_ms)
{
	struct kp_jitread r;
	int rc;

	if (!s->jit_worker)
		return 1;
	rc = kp_jitworker__take(s->jit_worker, s->jit_slow ? 0 : wait_ms, &r);
	if (rc == 0) {
		s->jit_slow |= wait_ms > 0;
		return 0;
	}
	if (rc == 1) {
		read_done(s, s->jit_job_proc, &s->jit_job_id, &r);
		s->jit_job_proc = NULL;
		s->jit_slow = 0;
	}
	return 1;
}

/* Read the trusted map at fd (taken) for p with fn (a perf map's or a
 * jitdump's reader): here, or in the worker (waiting for it at most
 * jit_wait_ms; a lookup after that finds it). */
static void read_map(struct kp_symbols *s, struct kp_sym_proc *p, int fd,
		     const struct kp_jitid *id, kp_jitread_fn *fn)
{
	struct kp_jitread r = { 0 };
	uint64_t t0;

	if (s->jit_wait_ms) {
		if (!s->jit_worker && !(s->jit_worker = kp_jitworker__new())) {
			close(fd);
			return;
		}
		if (kp_jitworker__start(s->jit_worker, fd, fn, budget_left(s)) != 0) {
			close(fd);
			return;
		}
		s->jit_job_proc = p;
		s->jit_job_id = *id;
		take_read(s, s->jit_wait_ms);
		return;
	}
	t0 = mono_ns();
	r.err = fn(fd, budget_left(s), &r.tab, &r.bad_lines, NULL);
	r.took_ns = mono_ns() - t0;
	close(fd);
	read_done(s, p, id, &r);
}

/* Where p's map is: its pid in its own pid namespace, and whether it
 * lives in another mount namespace (a container: its /tmp is under
 * /proc/PID/root). Learnt once per process. Without /proc/PID/status or
 * ns/mnt (a process gone; a test's fake /proc), our own namespaces. */
static void locate(struct kp_symbols *s, struct kp_sym_proc *p)
{
	if (p->jit_ns)
		return;
	p->jit_nspid = p->pid;
	p->jit_ns = 1;
	if (!p->pid)
		return;
	if (kp_procfs__nspid(s->proc_root, p->pid, &p->jit_nspid) != 0)
		p->jit_nspid = p->pid;
	if (kp_procfs__same_mntns(s->proc_root, p->pid) == 0)
		p->jit_ns = 2;
}

/* p's map in its own mount namespace: /tmp/perf-NSPID.map under its root,
 * opened when it has changed. An fd, or -errno (-EEXIST: unchanged). */
static int open_in_root(struct kp_symbols *s, struct kp_sym_proc *p, uint32_t uid,
			struct stat *st)
{
	char path[64];
	struct kp_jitid id;
	int fd;

	memset(st, 0, sizeof(*st));	/* a refusal before the stat: id 0 */
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", p->jit_nspid);
	fd = kp_jitmap__open_in_root(s->proc_root, p->pid, path, uid, st);
	if (fd >= 0 && p->jit) {
		id_of(&id, st);
		if (id_same(&id, &p->jit->id)) {
			close(fd);
			return -EEXIST;		/* unchanged */
		}
	}
	return fd;
}

/* The start and end of the mapping of p's jitdump (jit-NSPID.dump, the
 * file it has mapped, as perf finds it) in /proc/PID/maps: 0, or
 * -ENOENT (none). A line longer than the buffer is not looked into. */
static int find_dump(struct kp_symbols *s, struct kp_sym_proc *p,
		     unsigned long long *lo, unsigned long long *hi)
{
	char path[128], line[4352], want[32];
	int err = -ENOENT, at_start = 1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/maps", s->proc_root, p->pid);
	snprintf(want, sizeof(want), "/jit-%u.dump\n", p->jit_nspid);
	if (!(f = fopen(path, "re")))
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line), w = strlen(want);
		int whole = at_start;

		at_start = n && line[n - 1] == '\n';
		if (!whole || n < w || strcmp(line + n - w, want) ||
		    sscanf(line, "%llx-%llx", lo, hi) != 2)
			continue;
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/* p's jitdump opened through /proc/PID/map_files (the very file mapped,
 * in whatever mount namespace), with the checks of a perf map: an fd, or
 * -errno (-ENOENT: none mapped, -EEXIST: unchanged). */
static int open_dump(struct kp_symbols *s, struct kp_sym_proc *p, uint32_t uid,
		     struct stat *st)
{
	unsigned long long lo, hi;
	struct kp_jitid id;
	char path[160];
	int fd;

	if (!p->pid || find_dump(s, p, &lo, &hi) != 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", s->proc_root, p->pid,
		 lo, hi);
	memset(st, 0, sizeof(*st));
	fd = kp_jitmap__open_mapped(path, uid, st);
	if (fd >= 0 && p->jit) {
		id_of(&id, st);
		if (id_same(&id, &p->jit->id)) {
			close(fd);
			return -EEXIST;		/* unchanged */
		}
	}
	if (fd == -EPERM) {
		id_of(&id, st);
		refused(s, p, &id);
	}
	return fd;
}

/* Open perf-PID.map of p if it may be trusted: an fd, or -errno. */
static int open_map(struct kp_symbols *s, struct kp_sym_proc *p, struct stat *st)
{
	char path[512];
	uint32_t uid = 0;
	int fd;

	locate(s, p);
	snprintf(path, sizeof(path), "%s/perf-%u.map", s->jit_dir, p->jit_nspid);
	if (p->jit_ns == 1 && lstat(path, st) != 0)
		return -errno;
	if (p->jit_ns == 1 && p->jit && S_ISREG(st->st_mode)) {
		struct kp_jitid id;

		id_of(&id, st);
		if (id_same(&id, &p->jit->id))
			return -EEXIST;		/* unchanged */
	}
	if (p->pid && kp_procfs__uid(s->proc_root, p->pid, &uid) != 0)
		return -ESRCH;
	if (p->jit_ns == 2)
		fd = open_in_root(s, p, uid, st);
	else
		fd = kp_jitmap__open(path, uid, st);
	if (fd == -EPERM) {
		struct kp_jitid id;

		id_of(&id, st);
		refused(s, p, &id);
	}
	return fd;
}

/* p's JIT file if it may be trusted: the jitdump it has mapped, else its
 * perf map; *fn the reader of that kind. An fd, or -errno. */
static int open_jit(struct kp_symbols *s, struct kp_sym_proc *p, struct stat *st,
		    kp_jitread_fn **fn)
{
	uint32_t uid = 0;
	int fd;

	locate(s, p);
	if (p->pid && kp_procfs__uid(s->proc_root, p->pid, &uid) == 0) {
		fd = open_dump(s, p, uid, st);
		if (fd != -ENOENT) {
			*fn = kp_jitdump__read;
			return fd;
		}
	}
	*fn = kp_jitmap__read;
	return open_map(s, p, st);
}

/* p's JIT file, opened at fd (taken; st its identity, fn its reader)
 * because it is not the one p's table came from, the worker free: read
 * it, or take the table of the same file. */
static void take_file(struct kp_symbols *s, struct kp_sym_proc *p, int fd,
		      const struct stat *st, kp_jitread_fn *fn)
{
	struct kp_jitent *e;
	struct kp_jitid id;

	id_of(&id, st);
	if ((e = ent_find(s, &id))) {
		s->st.jit_shared++;
		attach(s, p, e);
	} else if (over_budget(s, &id)) {
		refused(s, p, &id);	/* another process's map, same file */
	} else if (!(p->jit_refused && id_same(&p->jit_refused_id, &id))) {
		read_map(s, p, fd, &id, fn);
		return;
	}
	close(fd);
}

static void refresh(struct kp_symbols *s, struct kp_sym_proc *p)
{
	uint64_t now = mono_ns();
	kp_jitread_fn *fn;
	struct stat st;
	int fd;

	take_read(s, 0);
	if ((p->jit_next_ns && now < p->jit_next_ns) || now < p->jit_cost_ns ||
	    p->jit_polling)
		return;		/* misses in anonymous code: look again later */
	if (!take_read(s, s->jit_job_proc == p ? 0 : s->jit_wait_ms)) {
		if (s->jit_job_proc != p)	/* its turn after this read */
			p->jit_next_ns = now + KP_JIT_BUSY_NS;
		return;
	}
	p->jit_next_ns = now + KP_JIT_RECHECK_NS;
	fd = open_jit(s, p, &st, &fn);	/* -EEXIST: unchanged */
	if (fd >= 0)
		take_file(s, p, fd, &st, fn);
}

/* The poll's look at p: before, then a read, when its file changed. Its
 * own clock: a miss after it may still look (the last samples of a
 * run, named at its end, find the newest map). */
static void poll_one(struct kp_symbols *s, struct kp_sym_proc *p, uint64_t now,
		     void (*before)(void *ctx, uint32_t pid, uint64_t start), void *ctx)
{
	kp_jitread_fn *fn;
	struct stat st;
	int fd;

	if (now < p->jit_poll_ns || now < p->jit_cost_ns || !take_read(s, 0))
		return;
	p->jit_poll_ns = now + KP_JIT_RECHECK_NS;
	fd = open_jit(s, p, &st, &fn);	/* -EEXIST: unchanged */
	if (fd < 0)
		return;
	if (before) {
		p->jit_polling = 1;	/* its lookups give the old names */
		before(ctx, p->pid, p->start);
		p->jit_polling = 0;
	}
	if (take_read(s, s->jit_wait_ms)) {
		take_file(s, p, fd, &st, fn);
	} else {
		close(fd);
		p->jit_poll_ns = 0;	/* the worker is busy: next time */
	}
}

uint64_t kp_symbols__jit_epoch(const struct kp_symbols *s)
{
	return s->jit_epoch;
}

void kp_symbols__jit_poll(struct kp_symbols *s,
			  void (*before)(void *ctx, uint32_t pid, uint64_t start),
			  void *ctx)
{
	uint64_t now = mono_ns();

	if (now < s->jit_poll_ns)
		return;
	s->jit_poll_ns = now + KP_JIT_POLL_NS;
	for (size_t b = 0; b < KP_PROC_BUCKETS; b++)
		for (struct kp_sym_proc *p = s->procs[b]; p; p = p->next)
			if (p->jit)
				poll_one(s, p, now, before, ctx);
}

void kp_jit__refresh(struct kp_symbols *s, struct kp_sym_proc *p)
{
	if (!p->jit)
		refresh(s, p);
}

const char *kp_jit__lookup(struct kp_symbols *s, struct kp_sym_proc *p, uint64_t addr,
			   const char **file, uint32_t *line)
{
	const char *name = p->jit ? kp_jittab__lookup(p->jit->tab, addr) : NULL;

	if (!name) {
		refresh(s, p);
		name = p->jit ? kp_jittab__lookup(p->jit->tab, addr) : NULL;
	}
	*file = NULL;
	*line = 0;
	if (name && !kp_jittab__source(p->jit->tab, addr, file, line))
		*file = NULL;
	return name;
}
