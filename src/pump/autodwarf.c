// SPDX-License-Identifier: GPL-2.0-only
#include "pump/autodwarf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/symbols.h"
#include "unwind/unwind.h"

#define SLOTS 4096		/* processes tracked (open addressing) */
#define OK_AFTER 32		/* stacks reaching the entry: stop checking */
#define SETTLE_NS 50000000ull	/* a process's first 50 ms are not judged */
#define SHORT_TO_MARK 4		/* stacks stopping short before a mark ... */
				/* ... and more of them than reaching stacks */
#define STALE_NS 1000000000ull	/* unsampled this long: its slot is freed ... */
#define STALE_MARKED_NS 60000000000ull	/* ... this long, if marked */

struct pid_state {
	uint32_t pid;		/* 0: free */
	uint16_t ok;		/* stacks seen reaching the entry */
	uint16_t short_;	/* stacks seen stopping short of it */
	uint64_t first_ns;	/* time of its first sample */
	uint64_t last_ns;	/* time of its last sample */
	uint8_t marked;
};

struct kp_autodwarf {
	struct kp_resolver inner;
	struct kp_resolver_ops ops;	/* autodwarf_ops, less what inner lacks */
	struct kp_collector *c;
	struct kp_unwinder *u;		/* for the leaf fix; may be NULL */
	uint64_t marked, leaf_fixed;
	uint32_t self;			/* kptop's own pid: never marked */
	uint32_t used;			/* slots taken */
	uint64_t now_ns;		/* the latest sample time */
	uint64_t next_sweep_ns;		/* no sweep before (sample time) */
	struct pid_state pids[SLOTS];
};

static struct pid_state *state_of(struct kp_autodwarf *a, uint32_t pid)
{
	uint32_t h = (pid * 2654435761u) & (SLOTS - 1);

	for (int i = 0; i < SLOTS; i++, h = (h + 1) & (SLOTS - 1)) {
		if (a->pids[h].pid == pid)
			return &a->pids[h];
		if (a->pids[h].pid == 0) {
			a->pids[h].pid = pid;
			a->used++;
			return &a->pids[h];
		}
	}
	return NULL;	/* full: stop marking new processes */
}

/* pid's slot, or NULL: no insertion. */
static struct pid_state *find_state(struct kp_autodwarf *a, uint32_t pid)
{
	uint32_t h = (pid * 2654435761u) & (SLOTS - 1);

	for (int i = 0; i < SLOTS && a->pids[h].pid; i++, h = (h + 1) & (SLOTS - 1))
		if (a->pids[h].pid == pid)
			return &a->pids[h];
	return NULL;
}

/* Free slot st, moving back the entries after it that probed past it
 * (linear probing without tombstones), so that the table holds the
 * processes alive, not every pid ever seen: full, it made every sample
 * of a new pid probe all SLOTS slots and left new processes unjudged. */
static void drop_state(struct kp_autodwarf *a, struct pid_state *st)
{
	uint32_t hole = (uint32_t)(st - a->pids), j = hole;

	a->used--;
	for (;;) {
		uint32_t home;

		memset(&a->pids[hole], 0, sizeof(a->pids[hole]));
		for (;;) {
			j = (j + 1) & (SLOTS - 1);
			if (!a->pids[j].pid)
				return;
			home = (a->pids[j].pid * 2654435761u) & (SLOTS - 1);
			/* j may move to hole if home is not cyclically in (hole, j] */
			if (hole <= j ? (home <= hole || home > j) : (home <= hole && home > j))
				break;
		}
		a->pids[hole] = a->pids[j];
		hole = j;
	}
}

/* Free the slots of the processes not sampled for a while: a sample that
 * comes after its process's exit (queued behind the exit, or of a process
 * whose exit came before its first record) gets a slot that no exit frees.
 * Under churn those filled the table in seconds, and then every sample and
 * every exit probed all SLOTS slots (a quarter of kptop's own CPU). A
 * process still alive is judged afresh when it is sampled again; a marked
 * one is unmarked first (after a longer idle time: its next samples are
 * frame-pointer stacks until it is marked again). At most once a STALE_NS,
 * and only with the table half full. */
static void sweep(struct kp_autodwarf *a)
{
	if (a->used < SLOTS / 2 || a->now_ns < a->next_sweep_ns)
		return;
	a->next_sweep_ns = a->now_ns + STALE_NS;
	for (uint32_t i = 0; i < SLOTS; i++) {
		struct pid_state *st = &a->pids[i];

		/* dropping moves a later entry into slot i: look again */
		while (st->pid && st->last_ns + (st->marked ? STALE_MARKED_NS : STALE_NS) <
				  a->now_ns) {
			if (st->marked && a->c && kp_collector__mark_dwarf(a->c, st->pid, 0))
				break;
			drop_state(a, st);
		}
	}
}

static int is_entry(const char *name)
{
	/* _dl_start*, _dl_sysdep_start: the dynamic loader's own start,
	 * before the program's _start (no frame pointers there). */
	static const char *const prefixes[] = { "__libc_start_main", "clone",
						"__clone", "_dl_start",
						"_dl_sysdep_start" };

	if (!name)
		return 0;
	if (!strcmp(name, "_start") || !strcmp(name, "__libc_start_call_main") ||
	    !strcmp(name, "start_thread"))
		return 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* The mapping holding pc, or NULL. */
static const struct kp_map_info *map_of(const struct kp_map_info *maps,
					size_t nr_maps, uint64_t pc)
{
	for (size_t i = 0; i < nr_maps; i++)
		if (pc >= maps[i].addr && pc - maps[i].addr < maps[i].len)
			return &maps[i];
	return NULL;
}

/* The name of the function at the return address pc, or NULL. The
 * inner resolver's cheap function op when it has one: this runs as the
 * samples come, where full names (DWARF) would cost most. */
static const char *name_at(struct kp_autodwarf *a, const struct kp_map_info *maps,
			   size_t nr_maps, uint64_t pc)
{
	const struct kp_map_info *m = map_of(maps, nr_maps, pc - 1);
	struct kp_frame_info fi[8];
	const char *name = NULL;
	int n;

	if (!m)
		return NULL;
	if (a->inner.ops->function) {
		n = a->inner.ops->function(a->inner.ctx, m, pc - 1, &name, NULL);
		return n > 0 ? name : NULL;
	}
	n = a->inner.ops->symbolize(a->inner.ctx, m, pc - 1, fi, 8);
	return n > 0 ? fi[n - 1].name : NULL;
}

/* The unwinder's map of one of the process's mappings. */
static struct kp_unwind_map unwind_map(const struct kp_map_info *m)
{
	return (struct kp_unwind_map){ .start = m->addr, .end = m->addr + m->len,
		.pgoff = m->pgoff, .maj = m->maj, .min = m->min, .ino = m->ino,
		.build_id = m->build_id, .build_id_len = m->build_id_len,
		.src = m };	/* its path is asked of the resolver if needed */
}

/* Does the frame-pointer stack reach the entry? The outermost frame, or
 * the one before it (a frame-pointer walk may add one junk frame). With
 * the unwinder, by its rule (kp_unwinder__reaches_entry: the entry
 * functions' ranges and the CFI, without loading a whole symbol table);
 * else by the names of the inner resolver's cheap function op. */
static int reaches_entry(struct kp_autodwarf *a, const struct kp_rec_sample *s,
			 const struct kp_map_info *maps, size_t nr_maps)
{
	uint16_t n = s->nr_uframes;
	struct kp_unwind_map um[2];
	size_t nu = 0;

	if (!a->u) {
		if (is_entry(name_at(a, maps, nr_maps, s->uframes[n - 1])))
			return 1;
		return n >= 2 && is_entry(name_at(a, maps, nr_maps, s->uframes[n - 2]));
	}
	/* the maps of the two outermost pcs (a return address: pc - 1) */
	for (int i = n >= 2 ? n - 2 : 0; i < n; i++) {
		const struct kp_map_info *m = map_of(maps, nr_maps,
						     s->uframes[i] - (i > 0));

		if (m && (nu == 0 || um[0].src != m))
			um[nu++] = unwind_map(m);
	}
	return kp_unwinder__reaches_entry(a->u, s->pid, um, nu, s->uframes, n) == 1;
}

/* A process's first samples, before its stacks are judged: is the
 * sampled code's module built without frame pointers (by its CFI,
 * kp_unwinder__keeps_fp) and its frame-pointer stack short? Then waiting
 * to judge it loses its first stacks: it is marked at once. Not in the
 * dynamic loader, where every program starts. */
static int mark_early(struct kp_autodwarf *a, const struct kp_rec_sample *s,
		      const struct kp_map_info *maps, size_t nr_maps)
{
	const struct kp_map_info *m = map_of(maps, nr_maps, s->uframes[0]);
	const char *base;
	struct kp_unwind_map um;

	if (!a->u || !m || !m->path || m->path[0] != '/')
		return 0;
	base = strrchr(m->path, '/') + 1;
	if (!strncmp(base, "ld-", 3))
		return 0;
	um = unwind_map(m);
	return kp_unwinder__keeps_fp(a->u, &um) == 0 && !reaches_entry(a, s, maps, nr_maps);
}

static void check_mark(struct kp_autodwarf *a, const struct kp_rec_sample *s,
		       const struct kp_map_info *maps, size_t nr_maps)
{
	struct pid_state *st;

	/* kptop itself: marking it would make every sample of its own
	 * threads copy and unwind kilobytes of stack, a cost that feeds on
	 * itself (it is built with frame pointers; its libraries may not be). */
	if (!a->c || !s->pid || s->pid == a->self || !s->uframes ||
	    s->nr_uframes == 0 || !a->inner.ops->symbolize)
		return;
	if (s->time_ns > a->now_ns)
		a->now_ns = s->time_ns;
	sweep(a);
	st = state_of(a, s->pid);
	if (!st)
		return;
	if (s->time_ns > st->last_ns)
		st->last_ns = s->time_ns;
	if (st->marked || st->ok >= OK_AFTER)
		return;
	/* Right after exec the stacks are the dynamic loader's, or walk
	 * through mappings not yet known: they say nothing of the program. */
	if (!st->first_ns)
		st->first_ns = s->time_ns ? s->time_ns : 1;
	if (s->time_ns < st->first_ns + SETTLE_NS) {
		if (mark_early(a, s, maps, nr_maps) &&
		    kp_collector__mark_dwarf(a->c, s->pid, 1) == 0) {
			st->marked = 1;
			a->marked++;
		}
		return;
	}
	if (reaches_entry(a, s, maps, nr_maps)) {
		st->ok++;
		return;
	}
	/* One short stack is not enough: a process with frame pointers has
	 * some (in the dynamic loader, in a libc function caught before it
	 * saved %rbp); one without them has nothing else. */
	if (st->short_ < UINT16_MAX)
		st->short_++;
	if (st->short_ < SHORT_TO_MARK || st->short_ <= st->ok)
		return;
	if (kp_collector__mark_dwarf(a->c, s->pid, 1) == 0) {
		st->marked = 1;
		a->marked++;
	}
}

/* The frame-pointer stack with the caller of a frameless leaf (or of a
 * leaf caught in its prologue) put back: the walk skips it, the leaf's CFI
 * finds it in the words at the stack pointer. Only the leaf's own module
 * is searched for the caller. Returns the count, or -ENOTSUP to let the
 * model take the frame-pointer stack as it came. */
static int fix_leaf(struct kp_autodwarf *a, const struct kp_rec_sample *s,
		    const struct kp_map_info *maps, size_t nr_maps,
		    uint64_t *pcs, int max, int *truncated)
{
	uint16_t nu = s->nr_uframes;
	const struct kp_map_info *map;
	struct kp_unwind_map um;
	int n;

	if (!a->u || !s->uframes || nu == 0 || nu > max)
		return -ENOTSUP;
	map = map_of(maps, nr_maps, s->uframes[0]);
	if (!map || !map->path || map->path[0] != '/')
		return -ENOTSUP;
	um = unwind_map(map);
	memcpy(pcs, s->uframes, nu * sizeof(*pcs));
	n = kp_unwinder__fix_leaf(a->u, s->pid, &um, 1, s->regs, s->nr_regs,
				  s->stack, s->stack_len, pcs, nu, max);
	if (n <= nu)
		return -ENOTSUP;
	a->leaf_fixed++;
	*truncated = 0;
	return n;
}

/* A speculative stack copy (KP_SAMPLE_SPEC: taken before the process
 * was judged) whose frame-pointer stack reaches the entry: that stack
 * stands, as for the process's samples without a copy. By the record
 * alone, so that a replay chooses as the live run did. */
static int fp_stands(struct kp_autodwarf *a, const struct kp_rec_sample *s,
		     const struct kp_map_info *maps, size_t nr_maps)
{
	return (s->flags & KP_SAMPLE_SPEC) && s->uframes && s->nr_uframes &&
	       reaches_entry(a, s, maps, nr_maps);
}

static int op_unwind(void *ctx, const struct kp_rec_sample *s,
		     const struct kp_map_info *maps, size_t nr_maps,
		     uint64_t *pcs, int max, int *truncated)
{
	struct kp_autodwarf *a = ctx;

	/* A stack copy also comes with the first samples of a program whose
	 * processes are not marked (kptop.bpf.c auto_dwarf): they are judged
	 * too, by their frame-pointer stack, which stands when it reaches the
	 * entry (so that a program's stacks do not end in two ways). */
	check_mark(a, s, maps, nr_maps);
	if (s->stack_len <= KP_UNWIND_LEAF_BYTES || fp_stands(a, s, maps, nr_maps))
		return fix_leaf(a, s, maps, nr_maps, pcs, max, truncated);
	if (!a->inner.ops->unwind)
		return -ENOTSUP;
	return a->inner.ops->unwind(a->inner.ctx, s, maps, nr_maps, pcs, max,
				    truncated);
}

static int op_symbolize(void *ctx, const struct kp_map_info *map, uint64_t addr,
			struct kp_frame_info *out, int max)
{
	struct kp_autodwarf *a = ctx;

	if (!a->inner.ops->symbolize)
		return 0;
	return a->inner.ops->symbolize(a->inner.ctx, map, addr, out, max);
}

static const char *op_module_name(void *ctx, const struct kp_map_info *map,
				  uint64_t addr)
{
	struct kp_autodwarf *a = ctx;

	if (!a->inner.ops->module_name)
		return NULL;
	return a->inner.ops->module_name(a->inner.ctx, map, addr);
}

static void op_process_gone(void *ctx, uint32_t pid, uint64_t start_ns)
{
	struct kp_autodwarf *a = ctx;
	struct pid_state *st = find_state(a, pid);

	/* Exit or exec: whatever runs under this pid next (a new program,
	 * a new process reusing the pid) is judged afresh, and does not
	 * inherit the DWARF stack copies of the old one. */
	if (st && st->marked && a->c && kp_collector__mark_dwarf(a->c, pid, 0) == 0)
		st->marked = 0;
	if (st && !st->marked)
		drop_state(a, st);
	if (a->inner.ops->process_gone)
		a->inner.ops->process_gone(a->inner.ctx, pid, start_ns);
}

/* Only in a->ops when the inner resolver has it. */
static int op_function(void *ctx, const struct kp_map_info *map, uint64_t addr,
		       const char **name, uint64_t span[2])
{
	struct kp_autodwarf *a = ctx;

	return a->inner.ops->function(a->inner.ctx, map, addr, name, span);
}

static void *op_hold(void *ctx, const struct kp_map_info *map)
{
	struct kp_autodwarf *a = ctx;

	if (!a->inner.ops->hold)
		return NULL;
	return a->inner.ops->hold(a->inner.ctx, map);
}

/* Only called with what the inner op_hold gave. */
static int op_symbolize_held(void *ctx, void *held, uint64_t off,
			     struct kp_frame_info *out, int max)
{
	struct kp_autodwarf *a = ctx;

	return a->inner.ops->symbolize_held(a->inner.ctx, held, off, out, max);
}

static void op_release(void *ctx, void *held)
{
	struct kp_autodwarf *a = ctx;

	a->inner.ops->release(a->inner.ctx, held);
}

/* Only in a->ops when the inner resolver has it (so is the next one). */
static void op_prefetch(void *ctx, const struct kp_map_info *map)
{
	struct kp_autodwarf *a = ctx;

	a->inner.ops->prefetch(a->inner.ctx, map);
}

/* Only called with what the inner op_hold gave, or NULL. */
static uint64_t op_names_epoch(void *ctx, void *held)
{
	struct kp_autodwarf *a = ctx;

	return a->inner.ops->names_epoch(a->inner.ctx, held);
}

static void op_jit_poll(void *ctx, void (*before)(void *bctx, uint32_t pid, uint64_t start),
			void *bctx)
{
	struct kp_autodwarf *a = ctx;

	a->inner.ops->jit_poll(a->inner.ctx, before, bctx);
}

static uint64_t op_jit_epoch(void *ctx)
{
	struct kp_autodwarf *a = ctx;

	return a->inner.ops->jit_epoch(a->inner.ctx);
}

/* Annotate's ops go to the inner resolver as they are. */
static int op_code(void *ctx, const struct kp_map_info *map, uint64_t off,
		   struct kp_rec_code *out, const char **why)
{
	struct kp_autodwarf *a = ctx;

	return a->inner.ops->code(a->inner.ctx, map, off, out, why);
}

static int op_disasm(void *ctx, const uint8_t *code, size_t len, uint64_t vaddr,
		     int (*cb)(void *cbctx, const struct kp_insn_info *in),
		     void *cbctx)
{
	struct kp_autodwarf *a = ctx;

	return a->inner.ops->disasm(a->inner.ctx, code, len, vaddr, cb, cbctx);
}

/* The unwinder's JIT code: the inner resolver's. */
static void op_code_fed(void *ctx, const struct kp_rec_code *c)
{
	struct kp_autodwarf *a = ctx;

	a->inner.ops->code_fed(a->inner.ctx, c);
}

static int op_unwind_codes(void *ctx, int (*cb)(void *cbctx, const struct kp_rec_code *c),
			   void *cbctx)
{
	struct kp_autodwarf *a = ctx;

	return a->inner.ops->unwind_codes(a->inner.ctx, cb, cbctx);
}

static const struct kp_resolver_ops autodwarf_ops = {
	.symbolize = op_symbolize,
	.module_name = op_module_name,
	.unwind = op_unwind,
	.process_gone = op_process_gone,
	.function = op_function,
	.hold = op_hold,
	.symbolize_held = op_symbolize_held,
	.release = op_release,
	.prefetch = op_prefetch,
	.names_epoch = op_names_epoch,
	.jit_epoch = op_jit_epoch,
	.jit_poll = op_jit_poll,
	.code = op_code,
	.disasm = op_disasm,
	.code_fed = op_code_fed,
	.unwind_codes = op_unwind_codes,
};

struct kp_autodwarf *kp_autodwarf__new(struct kp_resolver inner)
{
	struct kp_autodwarf *a;

	if (!inner.ops) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	a->inner = inner;
	a->ops = autodwarf_ops;
	if (!inner.ops->prefetch)
		a->ops.prefetch = NULL;	/* the model then skips its work */
	if (!inner.ops->names_epoch)
		a->ops.names_epoch = NULL;
	if (!inner.ops->jit_epoch)
		a->ops.jit_epoch = NULL;
	if (!inner.ops->jit_poll)
		a->ops.jit_poll = NULL;
	if (!inner.ops->code)
		a->ops.code = NULL;
	if (!inner.ops->disasm)
		a->ops.disasm = NULL;
	if (!inner.ops->code_fed)
		a->ops.code_fed = NULL;
	if (!inner.ops->unwind_codes)
		a->ops.unwind_codes = NULL;
	if (!inner.ops->function)
		a->ops.function = NULL;
	a->self = (uint32_t)getpid();
	return a;
}

void kp_autodwarf__free(struct kp_autodwarf *a)
{
	if (!a)
		return;
	free(a);
}

void kp_autodwarf__set_unwinder(struct kp_autodwarf *a, struct kp_unwinder *u)
{
	a->u = u;
}

void kp_autodwarf__set_collector(struct kp_autodwarf *a, struct kp_collector *c)
{
	a->c = c;
}

struct kp_resolver kp_autodwarf__resolver(struct kp_autodwarf *a)
{
	return (struct kp_resolver){ .ops = &a->ops, .ctx = a };
}

uint64_t kp_autodwarf__marked(const struct kp_autodwarf *a)
{
	return a->marked;
}

uint64_t kp_autodwarf__leaf_fixed(const struct kp_autodwarf *a)
{
	return a->leaf_fixed;
}
