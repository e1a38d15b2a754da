/* SPDX-License-Identifier: GPL-2.0-only */
/* autodwarf.h — the auto unwind mode's glue between the model's resolver
 * and the collector (--unwind auto).
 *
 * Owns: a resolver that wraps the real one (src/pump/resolve.h). Names and
 * process exits go straight through. For user stacks it (1) keeps the
 * frame-pointer stack when a sample carries only the few stack words every
 * sample has (the unwinder refuses to unwind those), with the caller of a
 * frameless leaf put back (kp_unwinder__fix_leaf, when an unwinder is
 * given; the unwinder asks its path function, src/pump/resolve.c's, for the
 * leaf mapping's safe path only when it has no module for it yet), and
 * (2) marks a process for DWARF stack copies (kp_collector__mark_dwarf)
 * once its frame-pointer stacks are seen not to reach the process entry
 * (_start, __libc_start_main*, __libc_start_call_main, start_thread,
 * clone*, the dynamic loader's start) — at its first such stack when the
 * sampled code's file is built without frame pointers
 * (kp_unwinder__keeps_fp), else after its first 50 ms: with an unwinder,
 * by its rule
 * (kp_unwinder__reaches_entry: the entry functions' ranges and the CFI,
 * no whole symbol table loaded as samples come); without one, by the
 * outermost frames' names from the inner resolver. Every sample is judged
 * while its process is not marked, also one that carries a stack copy
 * already (its program's first samples: kptop.bpf.c auto_dwarf), which is
 * unwound with it.
 *
 * Who calls it: src/main/kptop.c builds it between the resolver and the model
 * and hands it the collector once that exists (NULL: nothing is marked).
 * Not thread-safe: the model calls it from its one thread. Errors:
 * constructor NULL with errno. Never draws or exits.
 */
#ifndef KP_AUTODWARF_H
#define KP_AUTODWARF_H

#include "collect/collect.h"
#include "model/model.h"
#include "unwind/unwind.h"

struct kp_autodwarf;

struct kp_autodwarf *kp_autodwarf__new(struct kp_resolver inner);
void kp_autodwarf__free(struct kp_autodwarf *a);
void kp_autodwarf__set_collector(struct kp_autodwarf *a, struct kp_collector *c);
/* Borrowed, for the frameless-leaf fix (NULL: no fix). */
void kp_autodwarf__set_unwinder(struct kp_autodwarf *a, struct kp_unwinder *u);
/* The wrapping resolver; valid while a lives. */
struct kp_resolver kp_autodwarf__resolver(struct kp_autodwarf *a);
/* Processes marked so far; fp stacks given back a leaf's caller. */
uint64_t kp_autodwarf__marked(const struct kp_autodwarf *a);
uint64_t kp_autodwarf__leaf_fixed(const struct kp_autodwarf *a);

#endif /* KP_AUTODWARF_H */
