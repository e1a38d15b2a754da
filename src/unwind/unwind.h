/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind.h — DWARF CFI unwinding of user stacks from a register set and a
 * copy of the top of the stack (samples with KP_SAMPLE_REGS).
 *
 * Owns: per-module CFI tables (.eh_frame/.eh_frame_hdr/.debug_frame of the
 * binary or its debug file), loaded once and cached; the memory-read
 * callback over the copied stack bytes.
 *
 * How: libdw's CFI API (dwarf_cfi_addrframe, dwarf_frame_cfa/_register)
 * with our own register loop; return addresses are looked up at pc - 1.
 * A frame state of the common forms (CFA = register + offset, registers
 * saved at CFA + offset) is compiled once and stepped by that
 * (unwind-rule.c), and a thread's outer frames that have not changed since
 * its last walk are taken from that walk (unwind-memo.c), both with the
 * same results.
 * Mixed: a frame without CFI in code that keeps frame pointers where it
 * has none (anonymous memory: JIT code and trampolines; a module read
 * without an FDE for the pc: assembly, a Go binary) is stepped over by
 * its frame pointer (rbp + 16 the caller's stack pointer, the return
 * address at rbp + 8, the caller's rbp at rbp), with the same checks
 * (each frame above the last, inside the copy, the return address in a
 * mapping); the next frame uses its CFI again. JIT code that the code
 * function knows (kp_unwinder__set_code_fn) is stepped by the call frame
 * information its runtime gave for it (a jitdump's unwinding info), else
 * by what its instructions from the entry to the pc do to the stack
 * pointer where they are simple enough to follow (a frameless trampoline
 * such as CPython's), by its frame pointer otherwise. A module whose file cannot
 * be read, or whose CFI is refused, is not guessed at.
 * Modules are keyed by build-id, else device + inode, else the path; at
 * most 256 stay cached (kp_unwinder__set_max_modules) and, where a bound is
 * set, their estimated bytes under it (kp_unwinder__set_max_bytes), the
 * least recently used freed first. A cached module holds its mapped ELF image, no fd. The
 * vdso's CFI comes from kptop's own vdso (same kernel: live use only).
 * CFI that names absurd register numbers, nests too deep or is malformed
 * is refused when its module is loaded (src/unwind/cfi-scan.h), counted
 * in cfi_refused: that module falls back to frame pointers. JIT code's
 * own CFI is checked the same way (src/unwind/unwind-jitcfi.c) and kept
 * for at most 64 functions at a time.
 *
 * Who calls it: src/pump/resolve.c (the model's resolver) for each sample that
 * carries registers. Never includes model, collect or curses.
 *
 * Errors: counts >= 0 or -errno / KP_ENOCFI; failures are counted by cause
 * in kp_unwind_stats. Not thread-safe.
 */
#ifndef KP_UNWIND_H
#define KP_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "util/kp_err.h"

/* A mapping of the sampled process (as in an MMAP record). */
struct kp_unwind_map {
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	/* The file's GNU build-id when the kernel gave one (mmap2 events
	 * with a build-id carry no device and inode): with it, every
	 * process mapping the file shares one cached module. */
	const uint8_t *build_id;
	uint8_t build_id_len;
	/* The file to read CFI from (already made safe). NULL: asked of
	 * the path function (kp_unwinder__set_path_fn) when the file must
	 * be opened, i.e. on a cache miss; src is the caller's, for it.
	 * A map with no device, inode, build-id or file path ('/...', or
	 * "[vdso]") is anonymous memory: JIT code, stepped by rbp. */
	const char *path;
	const void *src;
};

struct kp_unwind_stats {
	uint64_t ok;		/* unwound to the outermost frame */
	uint64_t no_cfi;	/* stopped: no CFI for a pc */
	uint64_t short_stack;	/* stopped: needed stack bytes beyond the copy */
	uint64_t bad_address;	/* stopped: pc outside every mapping */
	uint64_t leaf_fixed;	/* frame-pointer stacks given back a leaf's caller */
	uint64_t fp_frames;	/* frames without CFI stepped over by rbp */
	uint64_t jit_frames;	/* JIT frames stepped by their code's stack use */
	uint64_t jit_cfi_frames;	/* JIT frames stepped by their runtime's CFI */
	uint64_t too_deep;	/* stopped: max frames filled before the outermost */
	uint64_t modules;	/* files opened for their CFI (cached by build-id,
				 * else device + inode, else path) */
	uint64_t modules_evicted;	/* freed to keep the cache bounded */
	uint64_t cfi_refused;	/* CFI sections (.eh_frame, .debug_frame) not
				 * given to libdw: hostile (register numbers,
				 * nesting, malformed records; cfi-scan.h) */
	uint64_t bytes;		/* the cached modules' memory, estimated: a
				 * fixed 4 KiB each for their files' state, their
				 * frame states, the DWARF of a .debug_frame
				 * (not the kept walks: a fixed 0.6 MiB at most) */
	uint64_t memo_walks;	/* walks that took their outer frames from an
				 * earlier walk of the same stack (unwind-memo.c) */
	uint64_t memo_frames;	/* ... and the frames they were spared */
};

struct kp_unwinder;

struct kp_unwinder *kp_unwinder__new(struct kp_err *err);
void kp_unwinder__free(struct kp_unwinder *u);

/* Unwind from regs (DWARF numbering, nr_regs of them) over stack[0..len)
 * which starts at regs[7] (the stack pointer), in the process whose
 * mappings are maps[0..nr_maps) (no two overlap, as the model's: a pc's
 * mapping is the one that holds it). pcs[0] is the sampled pc.
 * Returns the frame count (>= 1 when regs hold a pc); *truncated is set
 * when it stopped before the outermost frame. A copy of no more than
 * KP_UNWIND_LEAF_BYTES (the words every sample carries for the leaf fix)
 * is not unwound: -ENODATA, so that the caller keeps the frame-pointer
 * stack (kp_unwinder__user_stack makes that choice in one call). */
int kp_unwinder__unwind(struct kp_unwinder *u, uint32_t pid,
			const struct kp_unwind_map *maps, size_t nr_maps,
			const uint64_t *regs, int nr_regs,
			const uint8_t *stack, size_t len,
			uint64_t *pcs, int max, int *truncated);

/* Frame-pointer stacks skip the caller of a frameless leaf. Given the
 * frame-pointer stack fp[0..n) (fp[0] = sampled pc) and the first words at
 * the stack pointer, insert the leaf's caller when the leaf's CFI says its
 * return address is still on the stack. Returns the new count (<= max). */
int kp_unwinder__fix_leaf(struct kp_unwinder *u, uint32_t pid,
			  const struct kp_unwind_map *maps, size_t nr_maps,
			  const uint64_t *regs, int nr_regs,
			  const uint8_t *stack, size_t len,
			  uint64_t *fp, int n, int max);

/* 1 if the frame-pointer stack pcs[0..n) (innermost first) reaches the
 * process entry (its outermost frame's CFI marks the end of the stack, as in
 * _start), 0 if it stops short (the process wants DWARF unwinding), <0 on
 * error. Used by auto unwind mode to mark processes.
 * The rule: the outermost pc, or the one before it (an fp walk may add one
 * junk frame), lies in a function whose CFI leaves the return address
 * undefined (by .eh_frame: _start, clone's child), or in _start,
 * __libc_start_main*, __libc_start_call_main, start_thread, clone* or the
 * dynamic loader's _dl_start* and _dl_sysdep_start by the module's
 * symbols (or its debug file's); for a libc without local symbols, in the
 * function that ends right before __libc_start_main (where glibc >= 2.34
 * puts __libc_start_call_main). */
int kp_unwinder__reaches_entry(struct kp_unwinder *u, uint32_t pid,
			       const struct kp_unwind_map *maps, size_t nr_maps,
			       const uint64_t *pcs, int n);

/* Stack copies of at most this many bytes are only the words at the stack
 * pointer that every sample carries for the leaf fix (fp mode, and auto
 * mode for unmarked processes): too short to unwind with CFI. */
#define KP_UNWIND_LEAF_BYTES 64

enum kp_ustack_how {
	KP_USTACK_NONE = 0,	/* no frame from either */
	KP_USTACK_FP = 1,	/* the frame-pointer stack as it came */
	KP_USTACK_FP_LEAF = 2,	/* ... with a frameless leaf's caller put back */
	KP_USTACK_DWARF = 3,	/* unwound with CFI */
};

/* The best user stack of one sample, for the resolver: CFI-unwound when
 * the sample carries more than KP_UNWIND_LEAF_BYTES of stack, else (or
 * when the unwind stops with fewer frames than the frame-pointer stack has,
 * or before its first step)
 * the frame-pointer stack fp[0..nfp) with a frameless leaf's caller put
 * back. Fills pcs[0..max) innermost first (pcs may not alias fp); returns
 * the count; sets *truncated (stopped before the outermost frame, as far
 * as it can tell) and *how. When wants_dwarf is not NULL and the stack
 * came from frame pointers, sets it to 1 if that stack does not reach the
 * process entry (auto mode: mark the process), else 0. */
int kp_unwinder__user_stack(struct kp_unwinder *u, uint32_t pid,
			    const struct kp_unwind_map *maps, size_t nr_maps,
			    const uint64_t *regs, int nr_regs,
			    const uint8_t *stack, size_t len,
			    const uint64_t *fp, int nfp,
			    uint64_t *pcs, int max, int *truncated,
			    enum kp_ustack_how *how, int *wants_dwarf);

void kp_unwinder__stats(const struct kp_unwinder *u, struct kp_unwind_stats *out);

/* Is map's file built with frame pointers? By its .eh_frame: 1 if at
 * least half of its functions that set up a frame make rbp their CFA's
 * register, 0 if fewer do (a frame-pointer walk through its code breaks:
 * auto mode marks the process at once), -1 when it cannot tell
 * (anonymous memory, no .eh_frame, fewer than 4 such functions, a file
 * that cannot be read). Counted when the module is loaded, with the check
 * of cfi-scan.h. */
int kp_unwinder__keeps_fp(struct kp_unwinder *u, const struct kp_unwind_map *map);

/* on (the default): frames without CFI are stepped by their frame
 * pointer; off: the unwind stops there, as before mixed unwinding (for
 * benchmarks that compare the two on the same stacks). */
void kp_unwinder__set_mixed(struct kp_unwinder *u, int on);

/* on (the default): a frame state of the common forms is compiled once
 * and its steps taken by the compiled rule (unwind-rule.c); off: every
 * step asks libdw and evaluates each register's expression (tests and
 * benchmarks compare the two on the same stacks: same results). */
void kp_unwinder__set_rules(struct kp_unwinder *u, int on);

/* on (the default): the last walk of each thread's stack (32 kept) is
 * reused from the first frame where a new walk reaches one of its states
 * over the same stack bytes and mappings (unwind-memo.c: same results);
 * off: every walk goes to the end. 0 or -ENOMEM. */
int kp_unwinder__set_memo(struct kp_unwinder *u, int on);

/* Keep at most max modules cached (default 256; 0 counts as 1). */
void kp_unwinder__set_max_modules(struct kp_unwinder *u, size_t max);
/* Keep the cached modules under about bytes (0, the default: no bound),
 * by their estimate (kp_unwind_stats.bytes), checked as a module is
 * added: the least recently used are freed first (--max-memory). */
void kp_unwinder__set_max_bytes(struct kp_unwinder *u, size_t bytes);

/* Where debug files are found by build-id (default
 * /usr/lib/debug/.build-id): DIR/xx/yyyy.debug. Applies to modules first
 * seen after the call. 0 or -ENAMETOOLONG. */
int kp_unwinder__set_debug_dir(struct kp_unwinder *u, const char *dir);

/* For maps given without a path: fn(ctx, map) returns the safe path of
 * map's file (or NULL), called only when the file is not cached, and
 * once more at once when the path it gave cannot be opened. Making
 * a path safe opens /proc files: a new process's every map would cost
 * that on each of its first samples otherwise. */
typedef const char *kp_unwind_path_fn(void *ctx, const struct kp_unwind_map *map);
void kp_unwinder__set_path_fn(struct kp_unwinder *u, kp_unwind_path_fn *fn, void *ctx);

/* JIT code as the code function gives it (valid until its next call). */
struct kp_unwind_code {
	const uint8_t *code;	/* the function's bytes, from its entry */
	size_t len;
	uint64_t start;		/* the entry's address */
	/* its call frame information where the runtime gave it (a
	 * jitdump's .eh_frame records), its pointers read at eh_vaddr;
	 * NULL: none */
	const uint8_t *eh_frame;
	size_t eh_len;
	uint64_t eh_vaddr;
};

/* For anonymous memory (JIT code): fn(ctx, pid, map, pc, &out) fills out
 * with the function holding pc and returns 1, or 0 when it does not
 * know that code. Asked for every JIT frame, so it caches. */
typedef int kp_unwind_code_fn(void *ctx, uint32_t pid, const struct kp_unwind_map *map,
			      uint64_t pc, struct kp_unwind_code *out);
void kp_unwinder__set_code_fn(struct kp_unwinder *u, kp_unwind_code_fn *fn, void *ctx);

#endif /* KP_UNWIND_H */
