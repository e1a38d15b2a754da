// SPDX-License-Identifier: GPL-2.0-only
/* sideband.c — perf side-band events as records (see sideband.h). */
#include "collect/sideband.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collect/snapshot.h"

#define SB_DATA_PAGES 64	/* per CPU ring, power of 2 */
#define SB_ID_LEN 24		/* sample_id trailer: TID, TIME, CPU */
#define SB_TASKS 4096		/* comm and uid of recent tasks (direct-mapped) */
#define SB_EXEC_AHEAD 256	/* records searched after an exec for its file */

struct sb_ring {
	int fd;
	void *base;		/* control page + data */
	size_t size;		/* data bytes */
};

/* One record staged for the time-ordered merge of a drain. */
struct sb_ent {
	uint64_t time, seq;
	size_t off;		/* in stage */
	int ring;		/* index of the CPU ring it came from */
};

/* A task's comm and uid as the side-band last saw them: a child starts
 * with its parent thread's (the kernel copies both at fork), so a fork
 * needs no /proc read when the parent is known. COMM events keep it
 * current. */
struct sb_known {
	uint32_t tid;		/* 0: empty */
	uint32_t uid;
	char comm[KP_COMM_LEN];
};

struct kp_sideband {
	int nr;
	struct sb_known *known;	/* SB_TASKS */
	size_t page;
	struct sb_ring *rings;
	char *exe;		/* KP_PATH_MAX scratch */
	uint8_t *stage;		/* copies of every ring's records, one drain */
	size_t stage_cap;
	struct sb_ent *ents;
	size_t nr_ents, ents_cap;
	size_t at;		/* the ent on_record is given, in a drain */
};

static int open_event(int cpu, int level)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	a.mmap = 1;	/* the kernel counts mmap listeners by this bit */
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	/* the fd polls readable once a quarter of the ring is filled */
	a.watermark = 1;
	a.wakeup_watermark = SB_DATA_PAGES * (uint32_t)sysconf(_SC_PAGESIZE) / 4;
	a.cgroup = level >= 1;
	a.build_id = level >= 2;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The richest attr this kernel accepts: build_id (5.12), cgroup (5.7). */
static int open_best(int cpu)
{
	int fd = -1;

	for (int level = 2; level >= 0 && fd < 0; level--) {
		fd = open_event(cpu, level);
		if (fd < 0 && errno != EINVAL)
			break;
	}
	return fd;
}

struct kp_sideband *kp_sideband__new(const int *cpus, int nr, struct kp_err *err)
{
	struct kp_sideband *sb = calloc(1, sizeof(*sb));
	int e = ENOMEM;

	if (!sb)
		goto out_err;
	sb->page = (size_t)sysconf(_SC_PAGESIZE);
	sb->rings = calloc((size_t)nr, sizeof(*sb->rings));
	sb->stage_cap = (size_t)nr * SB_DATA_PAGES * sb->page;
	sb->stage = malloc(sb->stage_cap);
	sb->exe = malloc(KP_PATH_MAX);
	sb->known = calloc(SB_TASKS, sizeof(*sb->known));
	if (!sb->rings || !sb->stage || !sb->exe || !sb->known)
		goto out_free;
	for (int i = 0; i < nr; i++, sb->nr++) {
		struct sb_ring *r = &sb->rings[i];

		r->size = SB_DATA_PAGES * sb->page;
		r->fd = open_best(cpus[i]);
		if (r->fd < 0) {
			e = errno;
			kp_err_set(err, KP_ENOPERF, "cannot open the side-band perf event on CPU %d: %s",
				   cpus[i], strerror(e));
			goto out_free;
		}
		r->base = mmap(NULL, r->size + sb->page, PROT_READ | PROT_WRITE,
			       MAP_SHARED, r->fd, 0);
		if (r->base == MAP_FAILED) {
			e = errno;
			close(r->fd);
			kp_err_set(err, -e, "cannot map the side-band ring of CPU %d: %s (raise ulimit -l or run as root)",
				   cpus[i], strerror(e));
			goto out_free;
		}
	}
	return sb;

out_free:
	kp_sideband__free(sb);
out_err:
	if (e == ENOMEM)
		kp_err_set(err, -ENOMEM, "out of memory for the side-band reader");
	errno = e;
	return NULL;
}

int kp_sideband__fds(const struct kp_sideband *sb, int *fds, int max)
{
	int n = 0;

	for (int i = 0; i < sb->nr && n < max; i++)
		fds[n++] = sb->rings[i].fd;
	return n;
}

void kp_sideband__free(struct kp_sideband *sb)
{
	if (!sb)
		return;
	for (int i = 0; i < sb->nr; i++) {
		munmap(sb->rings[i].base, sb->rings[i].size + sb->page);
		close(sb->rings[i].fd);
	}
	free(sb->rings);
	free(sb->known);
	free(sb->stage);
	free(sb->ents);
	free(sb->exe);
	free(sb);
}

/* The time in a record's sample_id trailer. */
static uint64_t rec_time(const struct perf_event_header *h)
{
	uint64_t t;

	if (h->size < sizeof(*h) + SB_ID_LEN)
		return 0;
	memcpy(&t, (const uint8_t *)h + h->size - SB_ID_LEN + 8, sizeof(t));
	return t;
}

/* A string field: ends at a NUL before the trailer, else invalid. */
static const char *rec_str(const struct perf_event_header *h, size_t off)
{
	const char *s = (const char *)h + off;
	size_t end = h->size >= SB_ID_LEN ? h->size - SB_ID_LEN : 0;

	if (off >= end || !memchr(s, '\0', end - off))
		return NULL;
	return s;
}

struct sb_task { uint32_t pid, ppid, tid, ptid; uint64_t time; };

static struct sb_known *known_slot(struct kp_sideband *sb, uint32_t tid)
{
	return &sb->known[(tid * 2654435761u) % SB_TASKS];
}

static void know(struct kp_sideband *sb, uint32_t tid, const char *comm,
		 const uint32_t *uid)
{
	struct sb_known *k = known_slot(sb, tid);

	if (k->tid != tid) {
		if (!uid)
			return;	/* a comm alone: no uid to keep with it */
		k->tid = tid;
	}
	if (uid)
		k->uid = *uid;
	snprintf(k->comm, sizeof(k->comm), "%s", comm);
}

static void forget(struct kp_sideband *sb, uint32_t tid)
{
	struct sb_known *k = known_slot(sb, tid);

	if (k->tid == tid)
		k->tid = 0;
}

/* The parent thread's comm and uid from /proc; 0 if it is gone. */
static int parent_info(const struct sb_task *t, char *comm, uint32_t *uid)
{
	kp_snapshot__proc_info(t->ppid, t->ptid, comm, NULL, uid);
	return comm[0] != '\0';
}

static void on_fork(struct kp_sideband *sb, struct kp_emit *e,
		    const struct sb_task *t)
{
	const struct sb_known *parent = known_slot(sb, t->ptid);
	struct kp_record r;
	char comm[KP_COMM_LEN];
	uint32_t uid;

	/* comm and uid as the parent thread had them (the child's copies);
	 * a parent not seen yet is read once from /proc and remembered, so
	 * its next forks (a shell's, a build's) read nothing; else as the
	 * child has them now. The exe is the parent's (an exec follows as
	 * its own record), not worth a readlink here. */
	if (t->ptid && parent->tid == t->ptid) {
		memcpy(comm, parent->comm, sizeof(comm));
		uid = parent->uid;
	} else if (t->ptid && parent_info(t, comm, &uid)) {
		know(sb, t->ptid, comm, &uid);
	} else {
		kp_snapshot__proc_info(t->pid, t->tid, comm, NULL, &uid);
	}
	know(sb, t->tid, comm, &uid);
	sb->exe[0] = '\0';
	if (t->pid != t->tid) {
		r.type = KP_REC_THREAD;
		r.thread = (struct kp_rec_thread){ .time_ns = t->time,
			.pid = t->pid, .tid = t->tid, .comm = comm };
	} else {
		r.type = KP_REC_PROCESS;
		r.process = (struct kp_rec_process){ .time_ns = t->time,
			.start_ns = t->time, .pid = t->pid, .ppid = t->ppid,
			.gpid = t->pid, .uid = uid, .comm = comm, .exe = sb->exe };
	}
	kp_emit(e, &r);
}

struct sb_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct { uint32_t maj, min; uint64_t ino, ino_generation; };
		struct { uint8_t build_id_size, r1; uint16_t r2; uint8_t build_id[20]; };
	};
	uint32_t prot, flags;
};

/* The file of the first executable mapping process pid makes after the
 * exec at sb->at, from the records of this drain, or NULL: the new
 * program's own text (execve maps it before the dynamic loader and the
 * vdso), as its MMAP record names it. Under churn most programs are
 * gone by the time a readlink of /proc/PID/exe would run, and that
 * readlink was a tenth of kptop's own CPU. */
static const char *exec_file(const struct kp_sideband *sb, uint32_t pid)
{
	size_t end = sb->at + 1 + SB_EXEC_AHEAD;

	for (size_t k = sb->at + 1; k < sb->nr_ents && k < end; k++) {
		const struct perf_event_header *h = (const void *)(sb->stage + sb->ents[k].off);
		const char *path = rec_str(h, sizeof(*h) + sizeof(struct sb_mmap2));
		struct sb_mmap2 b;

		if (h->type != PERF_RECORD_MMAP2 || !path)
			continue;
		memcpy(&b, h + 1, sizeof(b));
		if (b.pid == pid && (b.prot & PROT_EXEC))
			return path[0] == '/' ? path : NULL;
	}
	return NULL;
}

static void on_comm(struct kp_sideband *sb, struct kp_emit *e,
		    const struct perf_event_header *h)
{
	struct kp_record r;
	uint32_t ids[2];
	const char *comm = rec_str(h, sizeof(*h) + 8);
	ssize_t n;
	char path[32];

	if (!comm || h->size < sizeof(*h) + 8)
		return;
	memcpy(ids, h + 1, sizeof(ids));
	know(sb, ids[1], comm, NULL);
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		const char *file = exec_file(sb, ids[0]);

		if (file) {
			snprintf(sb->exe, KP_PATH_MAX, "%s", file);
		} else {
			snprintf(path, sizeof(path), "/proc/%u/exe", ids[0]);
			n = readlink(path, sb->exe, KP_PATH_MAX - 1);
			sb->exe[n < 0 ? 0 : n] = '\0';
		}
		r.type = KP_REC_EXEC;
		r.exec = (struct kp_rec_exec){ .time_ns = rec_time(h),
			.pid = ids[0], .tid = ids[1], .comm = comm, .exe = sb->exe };
	} else {
		r.type = KP_REC_THREAD;
		r.thread = (struct kp_rec_thread){ .time_ns = rec_time(h),
			.pid = ids[0], .tid = ids[1], .comm = comm };
	}
	kp_emit(e, &r);
}

static void on_mmap2(struct kp_emit *e, const struct perf_event_header *h)
{
	struct kp_record r = { .type = KP_REC_MMAP };
	struct kp_rec_mmap *m = &r.mmap;
	struct sb_mmap2 b;
	const char *path = rec_str(h, sizeof(*h) + sizeof(b));

	if (!path)
		return;
	memcpy(&b, h + 1, sizeof(b));
	if (!(b.prot & PROT_EXEC))
		return;
	*m = (struct kp_rec_mmap){ .time_ns = rec_time(h), .pid = b.pid,
		.tid = b.tid, .addr = b.addr, .len = b.len, .pgoff = b.pgoff,
		.prot = b.prot, .flags = b.flags, .path = path };
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m->build_id_len = b.build_id_size > KP_BUILD_ID_MAX ?
				  KP_BUILD_ID_MAX : b.build_id_size;
		memcpy(m->build_id, b.build_id, m->build_id_len);
	} else {
		m->maj = b.maj;
		m->min = b.min;
		m->ino = b.ino;
		m->ino_generation = b.ino_generation;
	}
	kp_emit(e, &r);
}

static void on_record(struct kp_sideband *sb, struct kp_emit *e,
		      const struct perf_event_header *h, uint64_t *lost)
{
	struct kp_record r;
	struct sb_task t;
	uint64_t v[2];

	switch (h->type) {
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (h->size < sizeof(*h) + sizeof(t))
			return;
		memcpy(&t, h + 1, sizeof(t));
		if (h->type == PERF_RECORD_FORK) {
			on_fork(sb, e, &t);
			return;
		}
		forget(sb, t.tid);	/* its tid may be reused */
		r.type = KP_REC_EXIT;
		r.exit = (struct kp_rec_exit){ .time_ns = t.time, .pid = t.pid,
					       .tid = t.tid };
		kp_emit(e, &r);
		return;
	case PERF_RECORD_COMM:
		on_comm(sb, e, h);
		return;
	case PERF_RECORD_MMAP2:
		on_mmap2(e, h);
		return;
	case PERF_RECORD_CGROUP:
		if (h->size < sizeof(*h) + 8 || !rec_str(h, sizeof(*h) + 8))
			return;
		memcpy(v, h + 1, 8);
		r.type = KP_REC_CGROUP;
		r.cgroup = (struct kp_rec_cgroup){ .time_ns = rec_time(h),
			.id = v[0], .path = (const char *)h + sizeof(*h) + 8 };
		kp_emit(e, &r);
		return;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(*h) + 16) {
			memcpy(v, h + 1, 16);
			*lost += v[1];
		}
		return;
	default:
		return;
	}
}

static int stage_ent(struct kp_sideband *sb, size_t off, int ring)
{
	struct sb_ent *n;

	if (sb->nr_ents == sb->ents_cap) {
		size_t cap = sb->ents_cap ? 2 * sb->ents_cap : 1024;

		n = realloc(sb->ents, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		sb->ents = n;
		sb->ents_cap = cap;
	}
	sb->ents[sb->nr_ents] = (struct sb_ent){
		.time = rec_time((const void *)(sb->stage + off)),
		.seq = sb->nr_ents, .off = off, .ring = ring };
	sb->nr_ents++;
	return 0;
}

/* Copy a ring's records (up to the head read at entry) into the stage,
 * then release the ring. Returns the new stage fill. */
static size_t stage_ring(struct kp_sideband *sb, int ring, size_t fill)
{
	struct sb_ring *r = &sb->rings[ring];
	struct perf_event_mmap_page *pc = r->base;
	const uint8_t *data = (const uint8_t *)r->base + sb->page;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	struct perf_event_header h;

	while (tail < head) {
		size_t off = tail & (r->size - 1), first;

		memcpy(&h, data + off, sizeof(h));	/* 8-aligned: never wraps */
		if (h.size < sizeof(h) || fill + h.size > sb->stage_cap)
			break;
		first = off + h.size <= r->size ? h.size : r->size - off;
		memcpy(sb->stage + fill, data + off, first);
		memcpy(sb->stage + fill + first, data, h.size - first);
		if (stage_ent(sb, fill, ring))
			break;
		fill += (h.size + 7) & ~(size_t)7;
		tail += h.size;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return fill;
}

static int by_time(const void *a, const void *b)
{
	const struct sb_ent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Records from all CPUs merged in time order: a process forks on one CPU
 * and execs on another, and its PROCESS must come before its EXEC. */
int kp_sideband__drain(struct kp_sideband *sb, struct kp_emit *e, uint64_t *lost)
{
	size_t fill = 0;

	sb->nr_ents = 0;
	for (int i = 0; i < sb->nr; i++)
		fill = stage_ring(sb, i, fill);
	if (sb->nr_ents)	/* ents is NULL until the first event */
		qsort(sb->ents, sb->nr_ents, sizeof(*sb->ents), by_time);
	for (size_t k = 0; k < sb->nr_ents; k++) {
		sb->at = k;
		on_record(sb, e, (const void *)(sb->stage + sb->ents[k].off),
			  &lost[sb->ents[k].ring]);
	}
	return (int)(sb->nr_ents < INT_MAX ? sb->nr_ents : INT_MAX);
}
