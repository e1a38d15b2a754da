/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind-int.h — internals shared by the unwinder's files (unwind.c, the
 * CFI module cache unwind-cfi.c, the DWARF expression evaluator
 * unwind-expr.c). Not part of any contract: only src/unwind/unwind*.c
 * include it.
 *
 * Register state: x86-64 DWARF numbering 0..16 (16 = return address/rip),
 * with a bit per register saying whether its value is known.
 * Memory: only the copied stack [sp0, sp0 + len) can be read.
 * Errors: -ERANGE (address above the copy: stack copy too short), -EFAULT
 * (any other unreadable address), KP_ENOCFI, -EINVAL (expression we do
 * not evaluate), -ENOMEM.
 */
#ifndef KP_UNWIND_INT_H
#define KP_UNWIND_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#include "unwind/unwind.h"

#define UW_NREGS 17
#define UW_SP 7
#define UW_FP 6
#define UW_RA 16

struct uw_regs {
	uint64_t r[UW_NREGS];
	uint32_t valid;		/* bit n: r[n] is known */
};

/* Registers a function keeps for its caller (x86-64 SysV: rbx, rbp,
 * r12-r15): after a frame-pointer step only these (and the stack pointer
 * and return address) are known; after a CFI step out of a call only
 * these are worth computing (the others are the callee's scratch: a
 * call site's CFI never needs them). */
#define UW_CALLEE_SAVED ((1u << 3) | (1u << UW_FP) | (0xfu << 12))

/* What a step returns when it succeeds: on to the caller, or the end of
 * the stack (an undefined or zero return address). Errors are < 0. */
enum uw_step { UW_STEP_OK, UW_STEP_END };

struct uw_mem {
	const uint8_t *stack;
	size_t len;
	uint64_t sp0;		/* address of stack[0] */
	uint64_t *reads;	/* NULL, or [lo, hi): widened to the bytes each
				 * read asks for, failed ones too (unwind-memo.c) */
};

/* Read 8 bytes at addr from the copied stack. */
int uw_mem_read(const struct uw_mem *m, uint64_t addr, uint64_t *out);

/* Is callee-saved register n's save slot at addr below the sampled stack
 * pointer, in the sampled frame? Then the function is in its epilogue and
 * has popped it already (GCC leaves the rule in place after the pop: no
 * .cfi_restore; the word below rsp is not in the copy): the register
 * holds the caller's value, a "same value" rule. Never the return
 * address. */
static inline bool uw_popped(int n, uint64_t addr, const struct uw_regs *regs,
			     const struct uw_mem *m)
{
	return n != UW_RA && addr < m->sp0 && (regs->valid & (1u << UW_SP)) &&
	       regs->r[UW_SP] == m->sp0;
}

/* Evaluate a CFI expression. cfa is pushed for DW_OP_call_frame_cfa
 * (pass have_cfa false while computing the CFA itself). Sets *is_value
 * when the result is a value (DW_OP_stack_value or a register), else the
 * result is an address to read. */
int uw_expr_eval(const Dwarf_Op *ops, size_t nops, const struct uw_regs *regs,
		 const struct uw_mem *mem, bool have_cfa, uint64_t cfa,
		 uint64_t *out, bool *is_value);

/* The end of a CFI step (unwind.c step, uw_rule__step): the caller's
 * registers next, its stack pointer the CFA, which must lie above the
 * callee's (the stack grows towards the caller), else -EFAULT; into
 * *regs, and UW_STEP_OK, or UW_STEP_END at a return address of 0. */
static inline int uw_step_to(struct uw_regs *regs, struct uw_regs *next, uint64_t cfa)
{
	if (cfa <= regs->r[UW_SP])
		return -EFAULT;
	next->r[UW_SP] = cfa;
	next->valid |= 1u << UW_SP;
	*regs = *next;
	return next->r[UW_RA] ? UW_STEP_OK : UW_STEP_END;
}

/* ---- frame states compiled for the step (unwind-rule.c) ---- */

#define UW_RULE_REGS 7	/* the return address and the callee-saved six */
enum { UW_RULE_UNTRIED, UW_RULE_YES, UW_RULE_NO };
enum { UW_RK_SAME, UW_RK_UNDEF, UW_RK_AT_CFA, UW_RK_VAL_CFA, UW_RK_REG };

/* CFA = r[cfa_reg] + cfa_off; register reg[i] of the caller by kind[i]:
 * the same, undefined, the word at CFA + off[i], CFA + off[i], or
 * register off[i]'s value. state: UW_RULE_YES when the frame state had
 * only those forms (and is no signal frame). */
struct uw_rule {
	uint8_t state, cfa_reg;
	uint8_t reg[UW_RULE_REGS], kind[UW_RULE_REGS];
	int32_t cfa_off;
	int32_t off[UW_RULE_REGS];
};

/* Compile frame into *out (out->state says whether it could). */
void uw_rule__compile(Dwarf_Frame *frame, struct uw_rule *out);
/* One step by a compiled rule (state UW_RULE_YES), with the results of
 * unwind.c's step() on the frame state it was compiled from:
 * UW_STEP_OK / UW_STEP_END, KP_ENOCFI, -ERANGE, -EFAULT. */
int uw_rule__step(const struct uw_rule *rule, struct uw_regs *regs, const struct uw_mem *mem);

/* ---- recent walks, reused (unwind-memo.c) ---- */

struct uw_memo;

struct uw_memo *uw_memo__new(void);
void uw_memo__free(struct uw_memo *m);
/* What a kept walk remembers of a pc's mapping (0 for none). */
uint64_t uw_memo__map_print(const struct kp_unwind_map *map);
/* The print of the mapping holding address at, for ctx's walk. */
typedef uint64_t uw_memo_print_fn(void *ctx, uint64_t at);
/* A walk of process pid's stack at sp begins; epoch: uw_cache__epoch
 * (and the unwinder's settings) now. Then, for each frame reached (the
 * sampled state first), uw_memo__frame with its state and whether its pc
 * is looked up as is (not at pc - 1); after each step uw_memo__reads with
 * the bytes it asked for (uw_mem reads). */
void uw_memo__begin(struct uw_memo *m, uint32_t pid, uint64_t sp, uint64_t epoch);
void uw_memo__frame(struct uw_memo *m, const struct uw_regs *r, bool exact);
void uw_memo__reads(struct uw_memo *m, uint64_t lo, uint64_t hi);
/* The walk is not to be kept (a JIT step, too deep). */
void uw_memo__no_keep(struct uw_memo *m);
/* After uw_memo__frame: the frame of the kept walk in the same state as
 * the last one, whose later steps read the same bytes of mem and whose
 * pcs from there on lie in mappings that print the same; -1 when there
 * is none. */
int uw_memo__match(struct uw_memo *m, const struct uw_mem *mem,
		   uw_memo_print_fn *map_print, void *ctx);
/* The kept walk's pcs after frame j appended to pcs[0..n): the new
 * count, or -1 when they would pass max; *end: how it ended
 * (UW_STEP_END at the entry, else the error). */
int uw_memo__take(struct uw_memo *m, int j, uint64_t *pcs, int n, int max, int *end);
/* The walk ended (end as above) over mem: kept if it may be, with the
 * prints of its pcs' mappings. */
void uw_memo__end(struct uw_memo *m, int end, const struct uw_mem *mem,
		  uw_memo_print_fn *map_print, void *ctx);
/* Walks reused, and the frames they were spared. */
void uw_memo__stats(const struct uw_memo *m, uint64_t *walks, uint64_t *frames);

/* ---- JIT code without CFI (unwind-jit.c) ---- */

#define UW_JIT_MAX_BYTES 4096	/* code followed from the entry, at most */
#define UW_JIT_MAX_FRAME 4096	/* bytes a followed frame may take */

/* The frame at offset off of code[0..len) (a function's bytes from its
 * entry): the caller's stack pointer (CFA) is sp + cfa_off, the return
 * address the word below it; the caller's rbp is the word at CFA -
 * rbp_below_cfa when that is not 0, else rbp itself when rbp_same, else
 * unknown. 0, or KP_ENOCFI when the code up to off is not straight-line
 * code of the forms followed (unwind-jit.c says which). */
struct uw_jit_rule {
	int64_t cfa_off;
	int64_t rbp_below_cfa;
	bool rbp_same;
};
int uw_jit_rule(const uint8_t *code, size_t len, uint64_t off, struct uw_jit_rule *out);

/* ---- JIT code's own CFI (unwind-jitcfi.c) ---- */

struct uw_jitcfi;

struct uw_jitcfi *uw_jitcfi__new(void);
void uw_jitcfi__free(struct uw_jitcfi *c);
/* The frame state at pc of the JIT code of process pid at start, whose
 * call frame information is the .eh_frame records eh[0..len), their
 * pointers read at eh_vaddr: 0 with *frame (the caller frees it),
 * KP_ENOCFI when they hold no FDE for pc or were refused (cfi-scan.h),
 * -ENOMEM. */
int uw_jitcfi__frame(struct uw_jitcfi *c, uint32_t pid, uint64_t start,
		     const uint8_t *eh, size_t len, uint64_t eh_vaddr, uint64_t pc,
		     Dwarf_Frame **frame);
/* Records refused (ever), and the bytes the cache holds. */
void uw_jitcfi__stats(const struct uw_jitcfi *c, uint64_t *refused, size_t *bytes);

/* ---- the CFI module cache (unwind-cfi.c) ---- */

struct uw_cache;
struct uw_module;

struct uw_cache *uw_cache__new(void);
void uw_cache__free(struct uw_cache *c);
/* Where debug files are looked up by build-id (DIR/xx/yyyy.debug);
 * affects modules loaded afterwards. */
int uw_cache__set_debug_dir(struct uw_cache *c, const char *dir);
void uw_cache__set_path_fn(struct uw_cache *c, kp_unwind_path_fn *fn, void *ctx);
/* Files opened and read so far (a cache hit opens nothing). */
uint64_t uw_cache__loads(const struct uw_cache *c);
/* Modules freed to keep the cache at its size (least recently used). */
uint64_t uw_cache__evicted(const struct uw_cache *c);
/* CFI sections refused by the check of cfi-scan.h (once per load). */
uint64_t uw_cache__refused(const struct uw_cache *c);
/* At most max modules (default 256, at least 1) from the next lookup on. */
void uw_cache__set_max(struct uw_cache *c, size_t max);
/* At most about bytes (0: no bound) held by the modules, by their
 * estimate (unwind.h kp_unwind_stats.bytes): checked when a module is
 * added, the least recently used freed first. */
void uw_cache__set_max_bytes(struct uw_cache *c, size_t bytes);
size_t uw_cache__bytes(const struct uw_cache *c);
/* Moves whenever what a lookup may answer can have changed (a file read
 * or retried, a module evicted, a frame state refused): walks kept
 * under an older epoch are not reused (unwind-memo.c). */
uint64_t uw_cache__epoch(const struct uw_cache *c);

/* The module of map (loaded on first use); NULL when its file cannot be
 * opened or read, or its CFI is hostile (remembered: not retried). A
 * file without CFI is a module (its pcs have no frame state). */
struct uw_module *uw_cache__module(struct uw_cache *c, const struct kp_unwind_map *map);

/* The CFI frame state at pc (a process address inside map). *frame is
 * the module's (it keeps the states it looked up, by address): valid
 * until the next lookup in the same module or its eviction; the caller
 * never frees it. rule (may be NULL): the state compiled (unwind-rule.c),
 * as long-lived as *frame. .eh_frame first; then, if debug_frame, a .debug_frame
 * (of the file or its debug file: beginning its DWARF may inflate every
 * debug section, tens of ms for libc's). Returns 0, KP_ENOCFI or -errno. */
int uw_module__frame(struct uw_module *m, const struct kp_unwind_map *map,
		     uint64_t pc, bool debug_frame, Dwarf_Frame **frame,
		     struct uw_rule **rule);

/* By the module's .eh_frame: 1 if at least half of its functions that
 * set up a frame make rbp their CFA's register (built with frame
 * pointers), 0 if fewer do (built without: a frame-pointer walk through
 * it breaks), -1 when it cannot tell (no .eh_frame, fewer than 4 such
 * functions). */
int uw_module__keeps_fp(const struct uw_module *m);

/* 1 if pc (a process address inside map) is inside one of the process
 * entry functions (_start, __libc_start_main, __libc_start_call_main,
 * start_thread, clone, clone3) by the module's symbol table (or that of
 * its debug file). */
int uw_module__in_entry(struct uw_module *m, const struct kp_unwind_map *map,
			uint64_t pc);

#endif /* KP_UNWIND_INT_H */
