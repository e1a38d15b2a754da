// SPDX-License-Identifier: GPL-2.0-only
/* unwind-expr.c — the DWARF expressions of call frame information,
 * evaluated over a register set and the copied stack (see unwind-int.h).
 * Covers what .eh_frame/.debug_frame use on x86-64: register+offset
 * rules, CFA-relative locations and the small PLT expressions. */
#include "unwind/unwind-int.h"

#include <errno.h>
#include <string.h>
#include <dwarf.h>

#include "util/kp_err.h"

#define UW_EXPR_STACK 16

int uw_mem_read(const struct uw_mem *m, uint64_t addr, uint64_t *out)
{
	uint64_t off;

	if (m->reads) {
		if (addr < m->reads[0])
			m->reads[0] = addr;
		if (addr > UINT64_MAX - 8)
			m->reads[1] = UINT64_MAX;
		else if (addr + 8 > m->reads[1])
			m->reads[1] = addr + 8;
	}
	if (addr < m->sp0)
		return -EFAULT;
	off = addr - m->sp0;
	if (off > m->len || m->len - off < sizeof(*out))
		return -ERANGE;
	memcpy(out, m->stack + off, sizeof(*out));
	return 0;
}

static int reg_value(const struct uw_regs *regs, uint64_t n, uint64_t *out)
{
	if (n >= UW_NREGS || !(regs->valid & (1u << n)))
		return -EINVAL;
	*out = regs->r[n];
	return 0;
}

/* Binary operators: pops b then a, pushes a OP b. */
static int binop(uint8_t atom, uint64_t a, uint64_t b, uint64_t *out)
{
	switch (atom) {
	case DW_OP_plus: *out = a + b; break;
	case DW_OP_minus: *out = a - b; break;
	case DW_OP_mul: *out = a * b; break;
	case DW_OP_and: *out = a & b; break;
	case DW_OP_or: *out = a | b; break;
	case DW_OP_xor: *out = a ^ b; break;
	case DW_OP_shl: *out = b < 64 ? a << b : 0; break;
	case DW_OP_shr: *out = b < 64 ? a >> b : 0; break;
	case DW_OP_shra: *out = (uint64_t)((int64_t)a >> (b < 64 ? b : 63)); break;
	case DW_OP_eq: *out = a == b; break;
	case DW_OP_ne: *out = a != b; break;
	case DW_OP_lt: *out = (int64_t)a < (int64_t)b; break;
	case DW_OP_le: *out = (int64_t)a <= (int64_t)b; break;
	case DW_OP_gt: *out = (int64_t)a > (int64_t)b; break;
	case DW_OP_ge: *out = (int64_t)a >= (int64_t)b; break;
	default: return -EINVAL;
	}
	return 0;
}

/* Push the value of a literal, constant or register-based operation;
 * 1 if op was one of those, 0 if not, <0 on error. */
static int push_op(const Dwarf_Op *op, const struct uw_regs *regs,
		   bool have_cfa, uint64_t cfa, uint64_t *v)
{
	uint8_t a = op->atom;
	int err;

	if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
		*v = a - DW_OP_lit0;
	} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
		if ((err = reg_value(regs, a - DW_OP_breg0, v)))
			return err;
		*v += op->number;
	} else if (a == DW_OP_bregx) {
		if ((err = reg_value(regs, op->number, v)))
			return err;
		*v += op->number2;
	} else if (a == DW_OP_call_frame_cfa) {
		if (!have_cfa)
			return -EINVAL;
		*v = cfa;
	} else if (a == DW_OP_const1u || a == DW_OP_const2u || a == DW_OP_const4u ||
		   a == DW_OP_const8u || a == DW_OP_constu || a == DW_OP_const1s ||
		   a == DW_OP_const2s || a == DW_OP_const4s || a == DW_OP_const8s ||
		   a == DW_OP_consts) {
		*v = op->number;
	} else {
		return 0;
	}
	return 1;
}

/* One stack-manipulating operation. */
static int stack_op(const Dwarf_Op *op, uint64_t *st, int *sp,
		    const struct uw_mem *mem)
{
	uint8_t a = op->atom;
	uint64_t t;
	int err;

	if (a == DW_OP_dup || a == DW_OP_over) {
		int from = a == DW_OP_dup ? *sp - 1 : *sp - 2;

		if (from < 0 || *sp >= UW_EXPR_STACK)
			return -EINVAL;
		st[*sp] = st[from];
		(*sp)++;
		return 0;
	}
	if (*sp < 1)
		return -EINVAL;
	switch (a) {
	case DW_OP_drop: (*sp)--; return 0;
	case DW_OP_neg: st[*sp - 1] = -st[*sp - 1]; return 0;
	case DW_OP_not: st[*sp - 1] = ~st[*sp - 1]; return 0;
	case DW_OP_plus_uconst: st[*sp - 1] += op->number; return 0;
	case DW_OP_deref:
		if ((err = uw_mem_read(mem, st[*sp - 1], &t)))
			return err;
		st[*sp - 1] = t;
		return 0;
	case DW_OP_swap:
		if (*sp < 2)
			return -EINVAL;
		t = st[*sp - 1];
		st[*sp - 1] = st[*sp - 2];
		st[*sp - 2] = t;
		return 0;
	}
	if (*sp < 2)
		return -EINVAL;
	if ((err = binop(a, st[*sp - 2], st[*sp - 1], &t)))
		return err;
	st[*sp - 2] = t;
	(*sp)--;
	return 0;
}

int uw_expr_eval(const Dwarf_Op *ops, size_t nops, const struct uw_regs *regs,
		 const struct uw_mem *mem, bool have_cfa, uint64_t cfa,
		 uint64_t *out, bool *is_value)
{
	uint64_t st[UW_EXPR_STACK];
	int sp = 0, r;

	*is_value = false;
	if (nops == 1 && (ops[0].atom == DW_OP_regx ||
			  (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31))) {
		*is_value = true;
		return reg_value(regs, ops[0].atom == DW_OP_regx ? ops[0].number :
				 (uint64_t)(ops[0].atom - DW_OP_reg0), out);
	}
	for (size_t i = 0; i < nops; i++) {
		if (ops[i].atom == DW_OP_stack_value) {
			*is_value = true;
			break;
		}
		if (ops[i].atom == DW_OP_nop)
			continue;
		r = push_op(&ops[i], regs, have_cfa, cfa, &st[sp < UW_EXPR_STACK ? sp : 0]);
		if (r < 0)
			return r;
		if (r == 1) {
			if (sp >= UW_EXPR_STACK)
				return -EINVAL;
			sp++;
			continue;
		}
		if ((r = stack_op(&ops[i], st, &sp, mem)))
			return r;
	}
	if (sp < 1)
		return -EINVAL;
	*out = st[sp - 1];
	return 0;
}
