/* SPDX-License-Identifier: GPL-2.0-only */
/* resolve-code.h — the resolver's annotate ops (model.h: code, disasm):
 * a function's bytes from src/symbols/ (kp_symbols__code), its
 * instructions from the disassembler (symbols/disasm.h), and the source
 * line of each instruction (kp_symbols__user) as the line table of a
 * CODE record. Internal to src/pump/: resolve.c owns one kp_rcode per
 * resolver (made on first use) and frees it.
 *
 * What the code op hands out (bytes, strings, lines) is borrowed until
 * its next call. Errors: 0 / 1 or -errno. Not thread-safe.
 */
#ifndef KP_PUMP_RESOLVE_CODE_H
#define KP_PUMP_RESOLVE_CODE_H

#include "model/model.h"
#include "symbols/symbols.h"

struct kp_rcode;

/* The model's description of a mapping as the symbols layer takes it
 * (resolve.c; path "" when the map has none). */
void kp_resolve__sym_map(const struct kp_map_info *m, struct kp_sym_map *out);

void kp_rcode__free(struct kp_rcode *c);

/* The ops, with *slot the resolver's kp_rcode (made when NULL). */
int kp_rcode__code(struct kp_rcode **slot, struct kp_symbols *syms,
		   const struct kp_map_info *map, uint64_t off,
		   struct kp_rec_code *out, const char **why);
int kp_rcode__disasm(struct kp_rcode **slot, const uint8_t *code, size_t len,
		     uint64_t vaddr,
		     int (*cb)(void *cbctx, const struct kp_insn_info *in),
		     void *cbctx);

#endif /* KP_PUMP_RESOLVE_CODE_H */
