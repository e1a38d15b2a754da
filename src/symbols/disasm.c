// SPDX-License-Identifier: GPL-2.0-only
/* disasm.c — capstone behind disasm.h. One handle per kp_disasm, detail
 * on (groups and operands: a jump's or call's target), Intel syntax. */
#include "symbols/disasm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

struct kp_disasm {
	csh cs;
	cs_insn *insn;
};

struct kp_disasm *kp_disasm__new(void)
{
	struct kp_disasm *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		free(d);
		errno = ENOTSUP;
		return NULL;
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		cs_close(&d->cs);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void kp_disasm__free(struct kp_disasm *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

/* "mnemonic operands", cut to fit. */
static void set_text(struct kp_insn *in, const char *mn, const char *ops)
{
	size_t n = strlen(mn), k = strlen(ops);	/* capstone ends both */

	if (n > sizeof(in->text) - 1)
		n = sizeof(in->text) - 1;
	memcpy(in->text, mn, n);
	if (k && n + 1 < sizeof(in->text)) {
		in->text[n++] = ' ';
		if (k > sizeof(in->text) - 1 - n)
			k = sizeof(in->text) - 1 - n;
		memcpy(in->text + n, ops, k);
		n += k;
	}
	in->text[n] = 0;
}

/* What the decoded instruction is, and its direct target. */
static void classify(struct kp_disasm *d, const cs_insn *ci, struct kp_insn *out)
{
	const cs_x86 *x = &ci->detail->x86;

	out->kind = KP_INSN_OTHER;
	if (cs_insn_group(d->cs, ci, CS_GRP_CALL))
		out->kind = KP_INSN_CALL;
	else if (cs_insn_group(d->cs, ci, CS_GRP_JUMP))
		out->kind = KP_INSN_JUMP;
	else if (cs_insn_group(d->cs, ci, CS_GRP_RET))
		out->kind = KP_INSN_RET;
	out->target = 0;
	if ((out->kind == KP_INSN_CALL || out->kind == KP_INSN_JUMP) &&
	    x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
		out->target = (uint64_t)x->operands[0].imm;
}

int kp_disasm__run(struct kp_disasm *d, const uint8_t *code, size_t len,
		   uint64_t addr, int (*cb)(void *ctx, const struct kp_insn *in),
		   void *ctx)
{
	struct kp_insn in;
	int rc;

	while (len) {
		const uint8_t *p = code;
		size_t left = len;
		uint64_t at = addr;

		memset(&in, 0, sizeof(in));
		if (cs_disasm_iter(d->cs, &p, &left, &at, d->insn)) {
			in.addr = addr;
			in.size = d->insn->size;
			set_text(&in, d->insn->mnemonic, d->insn->op_str);
			classify(d, d->insn, &in);
		} else {
			in.addr = addr;
			in.size = 1;
			snprintf(in.text, sizeof(in.text), ".byte 0x%02x", code[0]);
		}
		rc = cb(ctx, &in);
		if (rc)
			return rc;
		code += in.size;
		len -= in.size;
		addr += in.size;
	}
	return 0;
}
