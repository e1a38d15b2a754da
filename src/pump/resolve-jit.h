/* SPDX-License-Identifier: GPL-2.0-only */
/* resolve-jit.h — the bytes of JIT code for the unwinder's code function
 * (unwind.h: kp_unwinder__set_code_fn), so that it steps over frameless
 * generated code (CPython's perf trampolines) by its instructions.
 *
 * Live: the function holding a pc in anonymous memory, as the symbols
 * layer gives it (kp_symbols__code: a perf map or jitdump entry, its bytes
 * read from the process, with the .eh_frame records a jitdump gave for
 * it), kept per process and entry (functions of at
 * most KP_RJIT_MAX_CODE bytes; past KP_RJIT_MAX_BYTES in all, every copy
 * is dropped and the table starts again); a pc the symbols layer could
 * not place is asked again some thousands of lookups later (a perf map
 * grows), one in a function too big to keep never again. A replay (kp_rjit__set_replay) never reads a
 * process: it uses the CODE records of anonymous code the saved file
 * carries (kp_rjit__hold, as the model is fed them), matched by address.
 * kp_rjit__foreach gives what was used, as CODE records, for a save to
 * carry, so that its replay steps the same frames.
 *
 * Owns: the copies. Internal to src/pump/: resolve.c owns one. Errors:
 * 0 or -ENOMEM. Not thread-safe.
 */
#ifndef KP_PUMP_RESOLVE_JIT_H
#define KP_PUMP_RESOLVE_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "symbols/symbols.h"
#include "unwind/unwind.h"

#define KP_RJIT_MAX_CODE 4096		/* bytes of one function kept, at most */
#define KP_RJIT_MAX_BYTES (4u << 20)	/* bytes of all of them */

struct kp_rjit;

struct kp_rjit *kp_rjit__new(struct kp_symbols *syms);
void kp_rjit__free(struct kp_rjit *j);
void kp_rjit__set_replay(struct kp_rjit *j, int on);

/* The function holding pc of process pid's anonymous mapping m: 1 with
 * *out (its bytes, address and size, and the call frame information its
 * runtime gave, borrowed until the next call), 0 when not known. */
int kp_rjit__code(struct kp_rjit *j, uint32_t pid, const struct kp_map_info *m, uint64_t pc,
		  struct kp_unwind_code *out);

/* A CODE record fed to the model: kept when it is anonymous code. */
int kp_rjit__hold(struct kp_rjit *j, const struct kp_rec_code *c);

/* Every function kept (read live, or held), as a CODE record with path
 * "//anon"; cb returns non-zero to stop, which is returned. */
int kp_rjit__foreach(struct kp_rjit *j, int (*cb)(void *ctx, const struct kp_rec_code *c),
		     void *ctx);

/* Functions and bytes kept (stats, tests). */
void kp_rjit__usage(const struct kp_rjit *j, size_t *funcs, size_t *bytes);

#endif /* KP_PUMP_RESOLVE_JIT_H */
