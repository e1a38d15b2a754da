/* SPDX-License-Identifier: GPL-2.0-only */
/* disasm.h — machine code to instructions, for annotate: x86-64 through
 * capstone (the only user of capstone in kptop).
 *
 * Owns: a capstone handle and its instruction buffer (struct
 * kp_disasm). Keeps nothing from the code it is handed.
 *
 * Who calls it: src/pump/resolve.c (the resolver's disasm and code ops),
 * tests. It never reads files: the caller hands it the bytes.
 *
 * Bytes that do not decode become one ".byte 0xNN" instruction each, so
 * the walk always reaches the end. Errors: 0, the callback's non-zero
 * return, or -errno (-ENOMEM, -ENOTSUP: capstone refused the arch).
 * Not thread-safe: one kp_disasm per thread.
 */
#ifndef KP_SYMBOLS_DISASM_H
#define KP_SYMBOLS_DISASM_H

#include <stddef.h>
#include <stdint.h>

#define KP_INSN_TEXT 128	/* "mnemonic operands", NUL included */

enum kp_insn_kind {
	KP_INSN_OTHER = 0,
	KP_INSN_JUMP,		/* conditional or not */
	KP_INSN_CALL,
	KP_INSN_RET,
};

struct kp_insn {
	uint64_t addr;		/* as given: start address + offset */
	uint32_t size;		/* bytes */
	enum kp_insn_kind kind;
	uint64_t target;	/* a direct jump's or call's target; 0: none */
	char text[KP_INSN_TEXT];	/* Intel syntax, cut to fit */
};

struct kp_disasm;

struct kp_disasm *kp_disasm__new(void);	/* NULL with errno */
void kp_disasm__free(struct kp_disasm *d);

/* Decode code[0..len) as if it sat at address addr, calling cb for every
 * instruction in order. */
int kp_disasm__run(struct kp_disasm *d, const uint8_t *code, size_t len,
		   uint64_t addr, int (*cb)(void *ctx, const struct kp_insn *in),
		   void *ctx);

#endif /* KP_SYMBOLS_DISASM_H */
