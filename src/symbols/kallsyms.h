/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms.h — kernel symbols from /proc/kallsyms (text symbols of the
 * kernel and of loaded modules, "[modname]").
 *
 * Owns its tables. When kptr_restrict hides the addresses (every address
 * reads 0) the table is empty and kp_kallsyms__restricted() says so.
 * Lines that do not parse are skipped. The file is read once, up to a
 * size cap. Errors: constructor NULL with errno. Not thread-safe.
 */
#ifndef KP_SYMBOLS_KALLSYMS_H
#define KP_SYMBOLS_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kp_kallsyms;

struct kp_kallsyms *kp_kallsyms__load(const char *path);
void kp_kallsyms__free(struct kp_kallsyms *k);

/* Function name at addr, or NULL. */
const char *kp_kallsyms__lookup(const struct kp_kallsyms *k, uint64_t addr);
/* "[kernel]" or "[modname]" for addr. Never NULL. */
const char *kp_kallsyms__module(const struct kp_kallsyms *k, uint64_t addr);
int kp_kallsyms__restricted(const struct kp_kallsyms *k);
/* The kernel text where an idle CPU halts, as [lo, hi) ranges: the
 * cpuidle section (__cpuidle_text_start to __cpuidle_text_end) and the
 * paravirt halts outside it (core kernel functions named *safe_halt*:
 * pv_native_safe_halt, xen_safe_halt, pvm_safe_halt_hc, ...), each
 * where kallsyms has it.
 * Writes up to max ranges into r and returns how many. */
size_t kp_kallsyms__idle_text(const struct kp_kallsyms *k, uint64_t (*r)[2],
			      size_t max);
size_t kp_kallsyms__count(const struct kp_kallsyms *k);

#endif /* KP_SYMBOLS_KALLSYMS_H */
