/* SPDX-License-Identifier: GPL-2.0-only */
/* model-fake.h — a fake resolver and record builders for the model tests
 * and the model benchmark (header-only, static functions).
 *
 * Names: a user address at file offset off is in function "fn_<off/0x100>"
 * (hex); kernel address a in "k_<a/0x100>". Offsets 0xdead00..0xdeadff
 * have no name, until "better" is set: then they are in "late_fn" at
 * late.c:42 (as when a debug file came: bump "epoch" too, or
 * "jit_epoch" for JIT code; a module
 * "/bin/same" is said not to have got better, its names not asked
 * again); offsets 0xbeef00..0xbeefff have none either, but the start of
 * their function is known (stripped code, by its FDE): 0xbeef00 below
 * 0xbeef80, else 0xbeef80; offsets 0x7700..0x77ff return an inlined
 * "inl_inner" inside "fn_77". JIT code replaced: with "reused" set,
 * offsets 0x1200..0x12ff are in "fn_12_new"; jit_poll, with "jit_change"
 * set to a pid and "jit_start" to its start, calls before for it, then
 * sets reused and bumps jit_epoch (the map read again). The fake counts
 * its calls and remembers the last address it was asked about.
 */
#ifndef KP_TESTS_MODEL_FAKE_H
#define KP_TESTS_MODEL_FAKE_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"

#define FAKE_NAMES 4096

struct fake {
	int symbolize_calls, unwind_calls, gone_calls;
	int calls_at_gone;	/* symbolize_calls when process_gone came */
	int kernel_calls;	/* symbolize_calls for kernel addresses */
	int holds, releases;	/* hold op: handles given, released */
	int held_calls;		/* symbolize_held calls */
	int no_hold;		/* 1: hold gives NULL (name at once) */
	int eager_views;	/* fake_model: kp_model_opts.eager_views */
	uint64_t last_addr;
	uint32_t gone_pid;
	uint64_t unwind_pcs[8];
	int nr_unwind;
	int unwind_trunc;	/* the unwind stops early (a drop) */
	int instant;		/* benchmark: one fixed answer, no formatting */
	int better;		/* 0xdead00..: "late_fn" (else no name) */
	uint64_t epoch;		/* names_epoch */
	uint64_t jit_epoch;	/* jit_epoch (a JIT map was read) */
	int reused;		/* 0x1200..: "fn_12_new" */
	uint32_t jit_change;	/* jit_poll: this pid's map changed */
	uint64_t jit_start;	/* ... its start */
	int befores;		/* jit_poll: before calls */
	char names[FAKE_NAMES][32];
	int nr_names;
};

/* prefix "fn_", "k_" or "f" and v in hex, in a ring of buffers. */
static inline const char *fake_name(struct fake *f, const char *prefix, uint64_t v)
{
	char *s = f->names[f->nr_names++ % FAKE_NAMES];

	snprintf(s, 32, "%s%llx", prefix, (unsigned long long)v);
	return s;
}

static int fake_symbolize(void *ctx, const struct kp_map_info *map, uint64_t addr,
			  struct kp_frame_info *out, int max)
{
	struct fake *f = ctx;
	uint64_t off;

	f->symbolize_calls++;
	f->last_addr = addr;
	memset(out, 0, sizeof(*out) * (size_t)max);
	if (f->instant) {
		out[0].name = fake_name(f, "f", (map ? addr - map->addr + map->pgoff : addr) / 0x100);
		return 1;
	}
	if (!map) {
		f->kernel_calls++;
		out[0].name = fake_name(f, "k_", addr / 0x100);
		return 1;
	}
	off = addr - map->addr + map->pgoff;
	if (off / 0x100 == 0xdead && !f->better)
		return 0;
	if (off / 0x100 == 0xbeef) {
		out[0].start_known = 1;
		out[0].start = off & ~0x7full;
		return 1;
	}
	if (off / 0x100 == 0xdead) {
		out[0].name = "late_fn";
		out[0].file = "late.c";
		out[0].line = 42;
		return 1;
	}
	if (off / 0x100 == 0x12 && f->reused) {
		out[0].name = "fn_12_new";
		return 1;
	}
	if (off / 0x100 == 0x77 && max >= 2) {
		out[0].name = "inl_inner";
		out[0].inlined = 1;
		out[0].file = "inl.h";
		out[0].line = 7;
		out[1].name = "fn_77";
		return 2;
	}
	out[0].name = fake_name(f, "fn_", off / 0x100);
	return 1;
}

static int fake_unwind(void *ctx, const struct kp_rec_sample *s,
		       const struct kp_map_info *maps, size_t nr_maps,
		       uint64_t *pcs, int max, int *truncated)
{
	struct fake *f = ctx;
	int i;

	f->unwind_calls++;
	if (!nr_maps || !f->nr_unwind)
		return -ENOENT;
	for (i = 0; i < f->nr_unwind && i < max; i++)
		pcs[i] = f->unwind_pcs[i];
	*truncated = f->unwind_trunc;
	return i;
}

static void fake_gone(void *ctx, uint32_t pid, uint64_t start_ns)
{
	struct fake *f = ctx;

	f->gone_calls++;
	f->gone_pid = pid;
	f->calls_at_gone = f->symbolize_calls;
}

/* A handle is the map's path ("//anon": none); a held offset is named
 * as symbolize names it. */
static void *fake_hold(void *ctx, const struct kp_map_info *map)
{
	struct fake *f = ctx;

	if (f->no_hold || !map->path || !strcmp(map->path, "//anon"))
		return NULL;
	f->holds++;
	return (void *)map->path;
}

static int fake_symbolize_held(void *ctx, void *held, uint64_t off,
			       struct kp_frame_info *out, int max)
{
	struct fake *f = ctx;
	struct kp_map_info m = { .path = held };

	f->held_calls++;	/* and symbolize_calls, by fake_symbolize */
	return fake_symbolize(ctx, &m, off, out, max);
}

static void fake_release(void *ctx, void *held)
{
	struct fake *f = ctx;

	(void)held;
	f->releases++;
}

/* Every module got better at the last bump but those named "/bin/same". */
static uint64_t fake_names_epoch(void *ctx, void *held)
{
	struct fake *f = ctx;

	if (held && !strcmp(held, "/bin/same"))
		return 0;
	return f->epoch;
}

static uint64_t fake_jit_epoch(void *ctx)
{
	return ((struct fake *)ctx)->jit_epoch;
}

static void fake_jit_poll(void *ctx, void (*before)(void *bctx, uint32_t pid, uint64_t start),
			  void *bctx)
{
	struct fake *f = ctx;

	if (!f->jit_change)
		return;
	f->befores++;
	before(bctx, f->jit_change, f->jit_start);
	f->jit_change = 0;
	f->reused = 1;
	f->jit_epoch++;
}

static const struct kp_resolver_ops fake_ops = {
	.symbolize = fake_symbolize,
	.unwind = fake_unwind,
	.process_gone = fake_gone,
	.hold = fake_hold,
	.symbolize_held = fake_symbolize_held,
	.release = fake_release,
	.names_epoch = fake_names_epoch,
	.jit_epoch = fake_jit_epoch,
	.jit_poll = fake_jit_poll,
};

static inline struct kp_model *fake_model(struct fake *f, size_t max_nodes)
{
	struct kp_model_opts o = { .max_nodes = max_nodes,
				   .resolver = { .ops = &fake_ops, .ctx = f },
				   .eager_views = f->eager_views };

#ifdef KP_FAKE_DEFER	/* the same tests with new stacks named late */
	o.defer_stacks = 1;
#endif

	return kp_model__new(&o);
}

/* ---- record builders ---- */

static inline int feed_process(struct kp_model *m, uint32_t pid, uint64_t start,
			const char *comm)
{
	struct kp_record r = { .type = KP_REC_PROCESS };

	r.process.pid = pid;
	r.process.start_ns = start;
	r.process.comm = comm;
	r.process.exe = "";
	return kp_model__feed(m, &r);
}

static inline int feed_mmap(struct kp_model *m, uint32_t pid, uint64_t addr, uint64_t len,
		     uint64_t pgoff, const char *path, uint64_t ino)
{
	struct kp_record r = { .type = KP_REC_MMAP };

	r.mmap.pid = r.mmap.tid = pid;
	r.mmap.addr = addr;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.path = path;
	r.mmap.ino = ino;
	r.mmap.maj = 8;
	return kp_model__feed(m, &r);
}

/* A sample: nk kernel pcs then nu user pcs in pcs[], innermost first. */
static inline int feed_sample(struct kp_model *m, uint32_t pid, uint32_t tid, uint64_t t,
		       uint64_t cgroup, uint32_t flags, const uint64_t *k, int nk,
		       const uint64_t *u, int nu)
{
	struct kp_record r = { .type = KP_REC_SAMPLE };

	r.sample.pid = pid;
	r.sample.tid = tid;
	r.sample.time_ns = t;
	r.sample.cgroup_id = cgroup;
	r.sample.flags = flags;
	snprintf(r.sample.comm, sizeof(r.sample.comm), "t%u", tid);
	r.sample.kframes = k;
	r.sample.nr_kframes = (uint16_t)nk;
	r.sample.uframes = u;
	r.sample.nr_uframes = (uint16_t)nu;
	return kp_model__feed(m, &r);
}

#endif /* KP_TESTS_MODEL_FAKE_H */
