// SPDX-License-Identifier: GPL-2.0-only
/* unwind.c — DWARF CFI unwinding of user stacks (unwind.h).
 *
 * A plain register-state loop over libdw's CFI API: for each frame, find
 * the pc's mapping and module, ask dwarf_cfi_addrframe for the frame state
 * (at pc - 1 for return addresses), compute the CFA and the caller's
 * registers with unwind-expr.c, reading memory only from the copied stack.
 * The caller's stack pointer is the CFA. A pc with no frame state in code
 * that may keep a frame pointer (anonymous memory: JIT code, trampolines;
 * a readable file without CFI for it) is stepped over by the frame
 * pointer instead (step_fp), and the next frame uses its CFI again. The
 * walk ends successfully where the CFI leaves the return address undefined
 * (_start, clone's child) or the return address is 0. */
#include "unwind/unwind.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

#include "unwind/unwind-int.h"
#include "util/mappath.h"

/* The leaf fix runs for every sample, so what the CFI says at a sampled
 * pc is kept per (file, offset): either "the return address is not found
 * through the stack pointer here" or "it is the word at sp + delta". A
 * direct-mapped table; a collision just recomputes. */
#define UW_LEAF_SLOTS 8192u
enum { UW_LEAF_EMPTY, UW_LEAF_NONE, UW_LEAF_AT_SP };
struct uw_leaf_ent {
	uint64_t ino, off;
	uint32_t dev;
	int16_t state;
	int32_t delta;
};

struct kp_unwinder {
	struct uw_cache *cache;
	kp_unwind_code_fn *code_fn;	/* JIT code's bytes (may be NULL) */
	void *code_ctx;
	struct uw_jitcfi *jitcfi;	/* JIT code's own CFI */
	uint32_t pid;			/* of the stack being unwound */
	bool dwarf_only;		/* no frame-pointer steps (benchmarks) */
	bool no_rules;			/* no compiled steps (tests, benchmarks) */
	size_t map_hint;		/* the mapping frame_at found last */
	struct uw_memo *memo;		/* recent walks (NULL: none kept) */
	const struct kp_unwind_map *maps;	/* of the walk, for map_print */
	size_t nr_maps;
	struct kp_unwind_stats stats;
	struct uw_leaf_ent *leaf;	/* UW_LEAF_SLOTS entries */
};

struct kp_unwinder *kp_unwinder__new(struct kp_err *err)
{
	struct kp_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		goto out_nomem;
	u->cache = uw_cache__new();
	if (!u->cache)
		goto out_free;
	u->leaf = calloc(UW_LEAF_SLOTS, sizeof(*u->leaf));
	u->jitcfi = uw_jitcfi__new();
	u->memo = uw_memo__new();
	if (!u->leaf || !u->jitcfi || !u->memo)
		goto out_cache;
	return u;

out_cache:
	free(u->leaf);
	uw_jitcfi__free(u->jitcfi);
	uw_memo__free(u->memo);
	uw_cache__free(u->cache);
out_free:
	free(u);
out_nomem:
	kp_err_set(err, -ENOMEM, "unwinder: cannot allocate its CFI cache");
	errno = ENOMEM;
	return NULL;
}

void kp_unwinder__free(struct kp_unwinder *u)
{
	if (!u)
		return;
	uw_cache__free(u->cache);
	uw_jitcfi__free(u->jitcfi);
	uw_memo__free(u->memo);
	free(u->leaf);
	free(u);
}

void kp_unwinder__set_code_fn(struct kp_unwinder *u, kp_unwind_code_fn *fn, void *ctx)
{
	u->code_fn = fn;
	u->code_ctx = ctx;
}

void kp_unwinder__set_path_fn(struct kp_unwinder *u, kp_unwind_path_fn *fn, void *ctx)
{
	uw_cache__set_path_fn(u->cache, fn, ctx);
}

static const struct kp_unwind_map *find_map(const struct kp_unwind_map *maps,
					    size_t nr_maps, uint64_t pc)
{
	for (size_t i = 0; i < nr_maps; i++)
		if (pc >= maps[i].start && pc < maps[i].end)
			return &maps[i];
	return NULL;
}

/* find_map, the mapping found last tried first: consecutive frames are
 * mostly in one (the program's, the interpreter's). */
static const struct kp_unwind_map *find_map_hint(struct kp_unwinder *u,
						 const struct kp_unwind_map *maps,
						 size_t nr_maps, uint64_t pc)
{
	const struct kp_unwind_map *map;

	if (u->map_hint < nr_maps && pc >= maps[u->map_hint].start &&
	    pc < maps[u->map_hint].end)
		return &maps[u->map_hint];
	if ((map = find_map(maps, nr_maps, pc)))
		u->map_hint = (size_t)(map - maps);
	return map;
}

/* What a kept walk remembers of the mapping of address at (unwind-memo.c). */
static uint64_t map_print(void *ctx, uint64_t at)
{
	struct kp_unwinder *u = ctx;

	return uw_memo__map_print(find_map_hint(u, u->maps, u->nr_maps, at));
}

/* A mapping with no file behind it (no device, inode or build-id, and
 * no path that names a file: kp_mappath_is_file, the model's rule too):
 * anonymous memory, where JIT compilers put their code; not the vdso
 * when it is given by its name (its CFI is read from kptop's own). */
static bool map_is_anon(const struct kp_unwind_map *map)
{
	return !map->ino && !map->maj && !map->min && !map->build_id_len &&
	       !kp_mappath_is_file(map->path) && !(map->path && !strcmp(map->path, "[vdso]"));
}

/* The frame state for pc; KP_ENOCFI, -EFAULT (no mapping) or 0.
 * debug_frame: see uw_module__frame. *by_fp (may be NULL) is set to pc's
 * mapping when there is no frame state but the code may be stepped over
 * without it (by its frame pointer, or JIT code by its instructions):
 * anonymous memory, or a module that was read (not hostile) and has no
 * CFI for pc; else to NULL. A file that cannot be read is not guessed at. */
static int frame_at(struct kp_unwinder *u, const struct kp_unwind_map *maps,
		    size_t nr_maps, uint64_t pc, bool debug_frame,
		    Dwarf_Frame **frame, struct uw_rule **rule,
		    const struct kp_unwind_map **by_fp)
{
	const struct kp_unwind_map *map;
	struct uw_module *m;
	int err;

	map = find_map_hint(u, maps, nr_maps, pc);
	*frame = NULL;
	if (by_fp)
		*by_fp = NULL;
	if (!map)
		return -EFAULT;
	if (map_is_anon(map)) {
		if (by_fp)
			*by_fp = map;
		return KP_ENOCFI;
	}
	m = uw_cache__module(u->cache, map);
	if (!m)
		return KP_ENOCFI;
	err = uw_module__frame(m, map, pc, debug_frame, frame, rule);
	if (by_fp && err == KP_ENOCFI)
		*by_fp = map;
	return err;
}

static int frame_cfa(Dwarf_Frame *frame, const struct uw_regs *regs,
		     const struct uw_mem *mem, uint64_t *cfa)
{
	Dwarf_Op *ops;
	size_t nops;
	bool is_value;

	if (dwarf_frame_cfa(frame, &ops, &nops) || nops == 0)
		return KP_ENOCFI;
	return uw_expr_eval(ops, nops, regs, mem, false, 0, cfa, &is_value);
}

/* Register n keeps its value in the caller, when known. */
static int caller_same(int n, const struct uw_regs *regs, struct uw_regs *out)
{
	if (regs->valid & (1u << n)) {
		out->r[n] = regs->r[n];
		out->valid |= 1u << n;
	}
	return 0;
}

/* The caller's value of register n into out (valid bit set or cleared);
 * returns 1 if the rule is "undefined". */
static int caller_reg(Dwarf_Frame *frame, int n, const struct uw_regs *regs,
		      const struct uw_mem *mem, uint64_t cfa, struct uw_regs *out)
{
	Dwarf_Op mem_ops[3], *ops;
	size_t nops;
	uint64_t v;
	bool is_value;
	int err;

	if (dwarf_frame_register(frame, n, mem_ops, &ops, &nops))
		return KP_ENOCFI;
	if (nops == 0) {
		if (ops)	/* undefined */
			return 1;
		return caller_same(n, regs, out);
	}
	err = uw_expr_eval(ops, nops, regs, mem, true, cfa, &v, &is_value);
	if (!err && !is_value) {
		if (uw_popped(n, v, regs, mem))
			return caller_same(n, regs, out);
		err = uw_mem_read(mem, v, &v);
	}
	if (err == -EINVAL)	/* e.g. from a clobbered register: unknown */
		return 0;
	if (err)
		return err;
	out->r[n] = v;
	out->valid |= 1u << n;
	return 0;
}

/* One step from the state in regs (whose pc's frame state is frame) to
 * its caller's: every register out of a signal frame (all registers,
 * the interrupted code's), else the callee-saved ones. */
static int step(Dwarf_Frame *frame, struct uw_regs *regs, const struct uw_mem *mem,
		bool signalp)
{
	struct uw_regs next = { .valid = 0 };
	uint64_t cfa;
	int err;

	if ((err = frame_cfa(frame, regs, mem, &cfa)))
		return err == -EINVAL ? KP_ENOCFI : err;
	err = caller_reg(frame, UW_RA, regs, mem, cfa, &next);
	if (err == 1)
		return UW_STEP_END;
	if (err)
		return err;
	if (!(next.valid & (1u << UW_RA)))
		return KP_ENOCFI;
	for (int n = 0; n < UW_RA; n++) {
		if (n == UW_SP || (!signalp && !(UW_CALLEE_SAVED & (1u << n))))
			continue;
		err = caller_reg(frame, n, regs, mem, cfa, &next);
		if (err < 0)
			return err;
	}
	return uw_step_to(regs, &next, cfa);
}

/* The caller's state after a step without CFI: its return address ra,
 * stack pointer sp and, when fp_known, rbp fp; of the rest only the
 * callee-saved registers stay known. UW_STEP_END at a return address of
 * 0, -EFAULT when it is in no mapping. */
static int to_caller(const struct kp_unwind_map *maps, size_t nr_maps, struct uw_regs *regs,
		     uint64_t ra, uint64_t sp, uint64_t fp, bool fp_known)
{
	if (!ra)
		return UW_STEP_END;
	if (!find_map(maps, nr_maps, ra - 1))
		return -EFAULT;
	regs->valid &= UW_CALLEE_SAVED & ~(1u << UW_FP);
	if (fp_known) {
		regs->r[UW_FP] = fp;
		regs->valid |= 1u << UW_FP;
	}
	regs->r[UW_SP] = sp;
	regs->r[UW_RA] = ra;
	regs->valid |= 1u << UW_SP | 1u << UW_RA;
	return UW_STEP_OK;
}

/* One step by the frame pointer, for a pc without CFI (JIT code,
 * trampolines and assembly keep "push %rbp; mov %rsp,%rbp"): the caller's
 * stack pointer is rbp + 16, its return address the word at rbp + 8, its
 * rbp the word at rbp. The frame must lie at or above the stack pointer
 * (so the caller's is strictly above), rbp aligned and inside the copy,
 * and the return address in a mapping: else KP_ENOCFI, -ERANGE (beyond
 * the copy) or -EFAULT. */
static int step_fp(const struct kp_unwind_map *maps, size_t nr_maps,
		   struct uw_regs *regs, const struct uw_mem *mem)
{
	uint64_t fp = regs->r[UW_FP], ra, caller_fp;
	int err;

	if (!(regs->valid & (1u << UW_FP)) || fp < regs->r[UW_SP] || (fp & 7) ||
	    fp > UINT64_MAX - 16)
		return KP_ENOCFI;
	if ((err = uw_mem_read(mem, fp + 8, &ra)) || (err = uw_mem_read(mem, fp, &caller_fp)))
		return err;
	return to_caller(maps, nr_maps, regs, ra, fp + 16, caller_fp, true);
}

/* One step over JIT code by the CFI its runtime gave (unwind-jitcfi.c),
 * looked up at at (pc, or a return address - 1); KP_ENOCFI when it has
 * none for at. *exact as step_frame's. */
static int step_jit_cfi(struct kp_unwinder *u, const struct kp_unwind_code *jc, uint64_t at,
			struct uw_regs *regs, const struct uw_mem *mem, bool *exact)
{
	Dwarf_Frame *frame;
	bool signalp = false;
	int err;

	err = uw_jitcfi__frame(u->jitcfi, u->pid, jc->start, jc->eh_frame, jc->eh_len,
			       jc->eh_vaddr, at, &frame);
	if (err)
		return err;
	dwarf_frame_info(frame, NULL, NULL, &signalp);
	err = step(frame, regs, mem, signalp);
	free(frame);
	if (err == UW_STEP_OK || err == UW_STEP_END)
		u->stats.jit_cfi_frames++;
	*exact = signalp;
	return err;
}

/* One step over JIT code at pc (the sampled pc when exact, else a return
 * address; at is the address looked up: pc, or pc - 1): by the CFI its
 * runtime gave, else by what its instructions did to the stack pointer
 * (unwind-jit.c); KP_ENOCFI when its bytes are not known or not followed,
 * -ERANGE / -EFAULT as step_fp. */
static int step_jit(struct kp_unwinder *u, const struct kp_unwind_map *maps,
		    size_t nr_maps, const struct kp_unwind_map *map, uint64_t pc, uint64_t at,
		    struct uw_regs *regs, const struct uw_mem *mem, bool *exact)
{
	struct kp_unwind_code jc = { .code = NULL };
	struct uw_jit_rule rule;
	uint64_t cfa, ra, rbp = regs->r[UW_FP];
	int err;

	if (!u->code_fn || !(regs->valid & (1u << UW_SP)) ||
	    u->code_fn(u->code_ctx, u->pid, map, at, &jc) != 1)
		return KP_ENOCFI;
	if (jc.eh_frame && jc.eh_len &&
	    (err = step_jit_cfi(u, &jc, at, regs, mem, exact)) != KP_ENOCFI)
		return err;
	if (!jc.code || pc < jc.start || uw_jit_rule(jc.code, jc.len, pc - jc.start, &rule))
		return KP_ENOCFI;
	cfa = regs->r[UW_SP] + (uint64_t)rule.cfa_off;
	if ((err = uw_mem_read(mem, cfa - 8, &ra)))
		return err;
	if (rule.rbp_below_cfa && (err = uw_mem_read(mem, cfa - (uint64_t)rule.rbp_below_cfa, &rbp)))
		return err;
	return to_caller(maps, nr_maps, regs, ra, cfa, rbp, rule.rbp_below_cfa ||
			 (rule.rbp_same && (regs->valid & (1u << UW_FP))));
}

/* One frame of the loop: by its CFI, else by its frame pointer where
 * frame_at allows. *exact: the next pc is looked up as is (a signal
 * frame's caller), not at pc - 1. */
static int step_frame(struct kp_unwinder *u, const struct kp_unwind_map *maps,
		      size_t nr_maps, struct uw_regs *r, const struct uw_mem *mem,
		      bool *exact)
{
	uint64_t at = *exact ? r->r[UW_RA] : r->r[UW_RA] - 1;
	const struct kp_unwind_map *by_fp;
	struct uw_rule *rule = NULL;
	Dwarf_Frame *frame;
	bool signalp = false;
	int err;

	err = frame_at(u, maps, nr_maps, at, true, &frame, u->no_rules ? NULL : &rule, &by_fp);
	if (err == KP_ENOCFI && by_fp && !u->dwarf_only) {
		*exact = false;
		if (map_is_anon(by_fp)) {
			uint64_t cfi_frames = u->stats.jit_cfi_frames;

			/* JIT code's bytes and CFI come from outside the copy */
			if (u->memo)
				uw_memo__no_keep(u->memo);

			err = step_jit(u, maps, nr_maps, by_fp, r->r[UW_RA], at, r, mem, exact);
			if (err == UW_STEP_OK && u->stats.jit_cfi_frames == cfi_frames)
				u->stats.jit_frames++;
			if (err != KP_ENOCFI)
				return err;
		}
		err = step_fp(maps, nr_maps, r, mem);
		if (err == UW_STEP_OK)
			u->stats.fp_frames++;
		return err;
	}
	if (err)
		return err;
	if (rule && rule->state == UW_RULE_YES) {	/* never a signal frame */
		*exact = false;
		return uw_rule__step(rule, r, mem);
	}
	dwarf_frame_info(frame, NULL, NULL, &signalp);
	err = step(frame, r, mem, signalp);	/* frame is the module's */
	*exact = signalp;
	return err;
}

static void count_stop(struct kp_unwind_stats *st, int err)
{
	if (err == -ERANGE)
		st->short_stack++;
	else if (err == KP_ENOCFI)
		st->no_cfi++;
	else
		st->bad_address++;
}

/* How a walk of n frames ended: err UW_STEP_END (at the entry), else
 * the error that stopped it, counted by cause. */
static int walk_end(struct kp_unwinder *u, int n, int err, int *truncated)
{
	if (err == UW_STEP_END) {
		*truncated = 0;
		u->stats.ok++;
	} else {
		count_stop(&u->stats, err);
	}
	return n;
}

/* Walks kept under another epoch (module cache, settings) are not reused. */
static uint64_t memo_epoch(const struct kp_unwinder *u)
{
	return uw_cache__epoch(u->cache) ^ (u->dwarf_only ? 1ull << 63 : 0);
}

/* One step of the walk (step_frame), the bytes it read told to the memo. */
static int memo_step(struct kp_unwinder *u, struct uw_regs *r, struct uw_mem *mem,
		     bool *exact)
{
	uint64_t reads[2] = { UINT64_MAX, 0 };
	int err;

	mem->reads = u->memo ? reads : NULL;
	err = step_frame(u, u->maps, u->nr_maps, r, mem, exact);
	mem->reads = NULL;
	if (u->memo)
		uw_memo__reads(u->memo, reads[0], reads[1]);
	return err;
}

/* After a step to the state in r (pcs[0..n) so far): the rest of a kept
 * walk that reached the same state over the same bytes, when there is
 * one: the frame count, *end how it ended; else 0. */
static int memo_reuse(struct kp_unwinder *u, const struct uw_regs *r,
		      const struct uw_mem *mem, bool exact, uint64_t *pcs, int n,
		      int max, int *end)
{
	int j;

	uw_memo__frame(u->memo, r, exact);
	j = uw_memo__match(u->memo, mem, map_print, u);
	if (j < 0)
		return 0;
	n = uw_memo__take(u->memo, j, pcs, n, max, end);
	return n > 0 ? n : 0;
}

static void regs_init(struct uw_regs *r, const uint64_t *regs, int nr_regs)
{
	r->valid = 0;
	for (int i = 0; i < UW_NREGS; i++) {
		r->r[i] = i < nr_regs ? regs[i] : 0;
		if (i < nr_regs)
			r->valid |= 1u << i;
	}
}

int kp_unwinder__unwind(struct kp_unwinder *u, uint32_t pid,
			const struct kp_unwind_map *maps, size_t nr_maps,
			const uint64_t *regs, int nr_regs,
			const uint8_t *stack, size_t len,
			uint64_t *pcs, int max, int *truncated)
{
	struct uw_mem mem = { .stack = stack, .len = stack ? len : 0 };
	struct uw_regs r;
	int n = 0, k, err = 0;
	bool exact = true;

	*truncated = 1;
	if (nr_regs <= UW_RA || max < 1) {
		u->stats.bad_address++;
		return nr_regs <= UW_RA ? -EINVAL : 0;
	}
	if (!stack || len <= KP_UNWIND_LEAF_BYTES)
		return -ENODATA;	/* only the leaf words: keep the fp stack */
	regs_init(&r, regs, nr_regs);
	u->pid = pid;
	u->maps = maps;
	u->nr_maps = nr_maps;
	mem.sp0 = r.r[UW_SP];
	pcs[n++] = r.r[UW_RA];
	if (u->memo) {
		uw_memo__begin(u->memo, pid, mem.sp0, memo_epoch(u));
		uw_memo__frame(u->memo, &r, exact);
	}
	while (n < max) {
		err = memo_step(u, &r, &mem, &exact);
		if (err)	/* UW_STEP_END or an error */
			break;
		pcs[n++] = r.r[UW_RA];
		if (u->memo && (k = memo_reuse(u, &r, &mem, exact, pcs, n, max, &err)) > 0)
			return walk_end(u, k, err, truncated);
	}
	if (!err) {
		u->stats.too_deep++;
		return n;
	}
	if (u->memo)
		uw_memo__end(u->memo, err, &mem, map_print, u);
	return walk_end(u, n, err, truncated);
}

/* Where the return address is, as an offset from the CFA, when the RA
 * rule is "at CFA + k" (evaluated at two CFAs: the address must move with
 * it and be an address, not a value). 0 and *k, or -ENOENT (no rule) or
 * -ENOTSUP (not at a fixed offset). */
static int ra_offset(Dwarf_Frame *frame, const struct uw_regs *r,
		     const struct uw_mem *mem, uint64_t cfa, int64_t *k)
{
	Dwarf_Op mem_ops[3], *ops;
	size_t nops;
	uint64_t v1, v2;
	bool iv1, iv2;

	if (dwarf_frame_register(frame, UW_RA, mem_ops, &ops, &nops) || nops == 0)
		return -ENOENT;	/* no rule for the return address */
	if (uw_expr_eval(ops, nops, r, mem, true, cfa, &v1, &iv1) ||
	    uw_expr_eval(ops, nops, r, mem, true, cfa + 4096, &v2, &iv2) ||
	    iv1 || iv2 || v2 - v1 != 4096)
		return -ENOTSUP;	/* not at a fixed offset from the CFA */
	*k = (int64_t)(v1 - cfa);
	return 0;
}

/* What the CFI says at the sampled pc: UW_LEAF_NONE (CFA not from the
 * stack pointer: the fp walk is right), UW_LEAF_AT_SP with *delta, or <0
 * when there is no frame state for pc (not cached). */
static int leaf_rule(struct kp_unwinder *u, const struct kp_unwind_map *maps,
		     size_t nr_maps, const struct uw_regs *r,
		     const struct uw_mem *mem, int32_t *delta)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t nops;
	uint64_t cfa, d;
	int64_t k;
	int state = UW_LEAF_NONE, err;

	/* .eh_frame only, unless a .debug_frame is read already: the leaf
	 * fix runs on every frame-pointer sample, and a pc without
	 * .eh_frame (hand-written code) is not worth inflating a debug
	 * file for. */
	if ((err = frame_at(u, maps, nr_maps, r->r[UW_RA], false, &frame, NULL, NULL)))
		return err;
	if (dwarf_frame_cfa(frame, &ops, &nops) || nops != 1 ||
	    !((ops[0].atom == DW_OP_bregx && ops[0].number == UW_SP) ||
	      ops[0].atom == DW_OP_breg0 + UW_SP))
		goto out;
	if (frame_cfa(frame, r, mem, &cfa) || ra_offset(frame, r, mem, cfa, &k))
		goto out;
	/* the RA's offset from the stack pointer, in unsigned arithmetic
	 * (hostile CFI makes k anything): below sp it wraps above INT32_MAX */
	d = (uint64_t)k + (cfa - r->r[UW_SP]);
	if (d > INT32_MAX)
		goto out;
	*delta = (int32_t)d;
	state = UW_LEAF_AT_SP;
out:
	return state;	/* frame is the module's */
}

/* The leaf's return address if the CFI at the sampled pc finds it through
 * the stack pointer (CFA = rsp + N): 1 and *ra, 0 if not, <0 on error.
 * The rule is cached per (file, offset) for files with an inode. */
static int leaf_return(struct kp_unwinder *u, const struct kp_unwind_map *maps,
		       size_t nr_maps, const struct uw_regs *r,
		       const struct uw_mem *mem, uint64_t *ra)
{
	const struct kp_unwind_map *map = find_map(maps, nr_maps, r->r[UW_RA]);
	struct uw_leaf_ent *e = NULL;
	uint64_t off = 0, h;
	uint32_t dev = 0;
	int32_t delta = 0;
	int state;

	if (map && map->ino) {
		off = r->r[UW_RA] - map->start + map->pgoff;
		dev = map->maj << 20 | map->min;
		h = (off * 0x9e3779b97f4a7c15ull) ^ (map->ino * 0xc2b2ae3d27d4eb4full);
		e = &u->leaf[(h >> 32) & (UW_LEAF_SLOTS - 1)];
		if (e->state != UW_LEAF_EMPTY && e->off == off &&
		    e->ino == map->ino && e->dev == dev) {
			state = e->state;
			delta = e->delta;
			goto have;
		}
	}
	state = leaf_rule(u, maps, nr_maps, r, mem, &delta);
	if (state < 0)
		return state;
	if (e)
		*e = (struct uw_leaf_ent){ .ino = map->ino, .off = off, .dev = dev,
					   .state = (int16_t)state, .delta = delta };
have:
	if (state != UW_LEAF_AT_SP)
		return 0;
	return uw_mem_read(mem, r->r[UW_SP] + (uint64_t)delta, ra) ? 0 : 1;
}

int kp_unwinder__fix_leaf(struct kp_unwinder *u, uint32_t pid,
			  const struct kp_unwind_map *maps, size_t nr_maps,
			  const uint64_t *regs, int nr_regs,
			  const uint8_t *stack, size_t len,
			  uint64_t *fp, int n, int max)
{
	struct uw_mem mem = { .stack = stack, .len = stack ? len : 0 };
	struct uw_regs r;
	uint64_t ra = 0;

	if (nr_regs <= UW_RA || n < 1 || max < 2 || n > max)
		return n;
	regs_init(&r, regs, nr_regs);
	mem.sp0 = r.r[UW_SP];
	if (fp[0] != r.r[UW_RA])
		return n;	/* the fp stack is not from these registers */
	if (leaf_return(u, maps, nr_maps, &r, &mem, &ra) != 1 || !ra)
		return n;
	if (n >= 2 && fp[1] == ra)
		return n;
	if (!find_map(maps, nr_maps, ra))
		return n;	/* not a code address: leave the stack alone */
	if (n == max)
		n--;
	memmove(&fp[2], &fp[1], (size_t)(n - 1) * sizeof(*fp));
	fp[1] = ra;
	u->stats.leaf_fixed++;
	return n + 1;
}

/* Rule: the stack reaches the process entry if its outermost pc, or the
 * one before it (an fp walk may add one junk frame past the entry code),
 * is in a function whose CFI leaves the return address undefined (_start,
 * the child side of clone/clone3) or inside one of the entry functions
 * by name (_start, __libc_start_main*, __libc_start_call_main,
 * start_thread, clone*, the dynamic loader's _dl_start* and
 * _dl_sysdep_start) in the module's or its debug file's symbols; for
 * a libc without local symbols, the function right before
 * __libc_start_main (see unwind-cfi.c). */
static int pc_is_entry(struct kp_unwinder *u, const struct kp_unwind_map *maps,
		       size_t nr_maps, uint64_t pc, bool exact)
{
	const struct kp_unwind_map *map;
	struct uw_module *m;
	Dwarf_Frame *frame;
	Dwarf_Op mem_ops[3], *ops;
	size_t nops;
	int ret = 0;

	if (!exact && pc)
		pc--;
	if (!(map = find_map(maps, nr_maps, pc)) || !(m = uw_cache__module(u->cache, map)))
		return 0;
	if (uw_module__in_entry(m, map, pc))
		return 1;
	/* .eh_frame only: the outermost pc of a frame-pointer walk is often
	 * junk, not worth inflating a debug file for */
	if (uw_module__frame(m, map, pc, false, &frame, NULL))
		return 0;
	if (!dwarf_frame_register(frame, UW_RA, mem_ops, &ops, &nops) && nops == 0 && ops)
		ret = 1;
	return ret;	/* frame is the module's */
}

int kp_unwinder__reaches_entry(struct kp_unwinder *u, uint32_t pid,
			       const struct kp_unwind_map *maps, size_t nr_maps,
			       const uint64_t *pcs, int n)
{
	if (n < 1)
		return -EINVAL;
	if (pc_is_entry(u, maps, nr_maps, pcs[n - 1], n == 1))
		return 1;
	return n >= 2 && pc_is_entry(u, maps, nr_maps, pcs[n - 2], n == 2);
}

/* The frame-pointer stack into pcs, with the leaf fix when regs exist. */
static int fp_stack(struct kp_unwinder *u, uint32_t pid,
		    const struct kp_unwind_map *maps, size_t nr_maps,
		    const uint64_t *regs, int nr_regs, const uint8_t *stack,
		    size_t len, const uint64_t *fp, int nfp, uint64_t *pcs, int max,
		    enum kp_ustack_how *how)
{
	int n = nfp < max ? nfp : max;
	uint64_t before = u->stats.leaf_fixed;

	if (n <= 0) {
		*how = KP_USTACK_NONE;
		return 0;
	}
	memcpy(pcs, fp, (size_t)n * sizeof(*pcs));
	n = kp_unwinder__fix_leaf(u, pid, maps, nr_maps, regs, nr_regs,
				  stack, len, pcs, n, max);
	*how = u->stats.leaf_fixed != before ? KP_USTACK_FP_LEAF : KP_USTACK_FP;
	return n;
}

int kp_unwinder__user_stack(struct kp_unwinder *u, uint32_t pid,
			    const struct kp_unwind_map *maps, size_t nr_maps,
			    const uint64_t *regs, int nr_regs,
			    const uint8_t *stack, size_t len,
			    const uint64_t *fp, int nfp,
			    uint64_t *pcs, int max, int *truncated,
			    enum kp_ustack_how *how, int *wants_dwarf)
{
	int n = 0, r;

	*truncated = 0;
	if (wants_dwarf)
		*wants_dwarf = 0;
	if (max < 1) {
		*how = KP_USTACK_NONE;
		return 0;
	}
	if (len > KP_UNWIND_LEAF_BYTES && nr_regs > UW_RA) {
		n = kp_unwinder__unwind(u, pid, maps, nr_maps, regs, nr_regs, stack,
					len, pcs, max, truncated);
		/* a walk that could not step from the pc (no CFI for it, or
		 * registers of an image an exec is replacing) is no better
		 * than the frame pointers: they decide */
		if (n > 0 && (!*truncated || (n >= nfp && n > 1))) {
			*how = KP_USTACK_DWARF;
			return n;
		}
	}
	n = fp_stack(u, pid, maps, nr_maps, regs, nr_regs, stack, len, fp, nfp,
		     pcs, max, how);
	*truncated = 0;
	if (n > 0 && (wants_dwarf || n == max)) {
		r = kp_unwinder__reaches_entry(u, pid, maps, nr_maps, pcs, n);
		if (wants_dwarf)
			*wants_dwarf = r == 0;
		*truncated = r == 0 && n == max;
	}
	return n;
}

int kp_unwinder__set_debug_dir(struct kp_unwinder *u, const char *dir)
{
	return uw_cache__set_debug_dir(u->cache, dir);
}

void kp_unwinder__stats(const struct kp_unwinder *u, struct kp_unwind_stats *out)
{
	uint64_t refused;
	size_t jit_bytes;

	memset(out, 0, sizeof(*out));
	if (u) {
		*out = u->stats;
		out->modules = uw_cache__loads(u->cache);
		out->modules_evicted = uw_cache__evicted(u->cache);
		uw_jitcfi__stats(u->jitcfi, &refused, &jit_bytes);
		uw_memo__stats(u->memo, &out->memo_walks, &out->memo_frames);
		out->cfi_refused = uw_cache__refused(u->cache) + refused;
		out->bytes = uw_cache__bytes(u->cache) + jit_bytes;
	}
}

int kp_unwinder__keeps_fp(struct kp_unwinder *u, const struct kp_unwind_map *map)
{
	struct uw_module *m;

	if (map_is_anon(map) || !(m = uw_cache__module(u->cache, map)))
		return -1;
	return uw_module__keeps_fp(m);
}

void kp_unwinder__set_mixed(struct kp_unwinder *u, int on)
{
	u->dwarf_only = !on;
}

void kp_unwinder__set_rules(struct kp_unwinder *u, int on)
{
	u->no_rules = !on;
}

int kp_unwinder__set_memo(struct kp_unwinder *u, int on)
{
	if (!on) {
		uw_memo__free(u->memo);
		u->memo = NULL;
	} else if (!u->memo && !(u->memo = uw_memo__new())) {
		return -ENOMEM;
	}
	return 0;
}

void kp_unwinder__set_max_modules(struct kp_unwinder *u, size_t max)
{
	uw_cache__set_max(u->cache, max);
}

void kp_unwinder__set_max_bytes(struct kp_unwinder *u, size_t bytes)
{
	uw_cache__set_max_bytes(u->cache, bytes);
}
