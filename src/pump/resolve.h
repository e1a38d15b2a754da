/* SPDX-License-Identifier: GPL-2.0-only */
/* resolve.h — the glue that gives the model (model/model.h) its resolver:
 * frame names from src/symbols/symbols.h and DWARF unwinding from
 * src/unwind/unwind.h.
 *
 * Unwinding: kp_unwinder__user_stack picks the best user stack (CFI
 * unwound, or the frame-pointer one with a frameless leaf's caller put
 * back); when it keeps the frame-pointer stack unchanged the op returns
 * -ENODATA so that the model keeps (and counts) the sample's own stack.
 *
 * Names: the symbols' frames; for user code they leave unnamed, the
 * start of its function where the file's .eh_frame gives it
 * (kp_symbols__user_start), which the model shows as "module @0xSTART".
 *
 * Owns: the strings it hands the model (interned: each distinct string is
 * kept once, valid until kp_resolve__free), a cache of safe paths
 * (/proc/PID/map_files/...) and the bytes of JIT code (resolve-jit.h)
 * for the unwinder. Borrows the kp_symbols and
 * the kp_unwinder (which may be NULL: then no DWARF unwinding); the caller
 * frees them after kp_resolve__free.
 *
 * Who calls it: src/main/kptop.c (batch and live), which puts
 * kp_resolve__resolver() into kp_model_opts. Not thread-safe (the model
 * calls it from its one thread). Errors: constructor NULL with errno.
 */
#ifndef KP_RESOLVE_H
#define KP_RESOLVE_H

#include "model/model.h"
#include "symbols/symbols.h"
#include "unwind/unwind.h"
#include "util/kp_err.h"

struct kp_resolve;

struct kp_resolve *kp_resolve__new(struct kp_symbols *syms,
				   struct kp_unwinder *unw, struct kp_err *err);
void kp_resolve__free(struct kp_resolve *r);

/* The resolver to put in kp_model_opts; valid while r lives. */
struct kp_resolver kp_resolve__resolver(struct kp_resolve *r);

/* A replay (kptop -i): JIT code's bytes for the unwinder come from the
 * file's CODE records only, never from a process that has the pid now
 * (resolve-jit.h). */
void kp_resolve__set_replay(struct kp_resolve *r, int on);

/* Strings interned so far and their bytes (stats, tests). */
void kp_resolve__usage(const struct kp_resolve *r, size_t *strings, size_t *bytes);

#endif /* KP_RESOLVE_H */
