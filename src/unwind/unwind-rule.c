// SPDX-License-Identifier: GPL-2.0-only
/* unwind-rule.c — a CFI frame state compiled into what one step needs
 * (unwind-int.h, struct uw_rule), so that the frames of a warm stack are
 * stepped by a few additions and reads instead of a libdw query and an
 * expression per register.
 *
 * What compiles: a CFA of "register + offset" (DW_CFA_def_cfa, the form
 * of nearly all x86-64 CFI), and for the return address and each
 * callee-saved register one of: undefined, same value, saved at CFA +
 * offset, CFA + offset as a value, another register's value. Anything
 * else (a CFA expression, a register expression, a signal frame, which
 * restores every register) does not: its steps keep the general path
 * (unwind.c step), whose results these reproduce exactly, errors and
 * their order included. Not thread-safe: a rule belongs to its module's
 * frame slot. */
#include "unwind/unwind-int.h"

#include <errno.h>
#include <dwarf.h>

#include "util/kp_err.h"

static bool fits(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* One register's rule from what dwarf_frame_register gave; false when it
 * is not one of the simple forms. */
static bool compile_reg(const Dwarf_Op *ops, size_t nops, uint8_t *kind, int32_t *off)
{
	size_t n = nops;
	int64_t k = 0;

	*off = 0;
	if (nops == 0) {
		*kind = ops ? UW_RK_UNDEF : UW_RK_SAME;
		return true;
	}
	if (nops == 1 && (ops[0].atom == DW_OP_regx ||
			  (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31))) {
		uint64_t r = ops[0].atom == DW_OP_regx ? ops[0].number
						       : (uint64_t)(ops[0].atom - DW_OP_reg0);

		if (r >= UW_NREGS)
			return false;
		*kind = UW_RK_REG;
		*off = (int32_t)r;
		return true;
	}
	*kind = UW_RK_AT_CFA;
	if (ops[n - 1].atom == DW_OP_stack_value) {
		*kind = UW_RK_VAL_CFA;
		n--;
	}
	if (n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 2) {
		if (ops[1].atom != DW_OP_plus_uconst)
			return false;
		k = (int64_t)ops[1].number;
	}
	if (!fits(k))
		return false;
	*off = (int32_t)k;
	return true;
}

void uw_rule__compile(Dwarf_Frame *frame, struct uw_rule *out)
{
	Dwarf_Op mem_ops[3], *ops;
	size_t nops;
	bool signalp = false;

	out->state = UW_RULE_NO;
	dwarf_frame_info(frame, NULL, NULL, &signalp);
	if (signalp || dwarf_frame_cfa(frame, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_bregx || ops[0].number >= UW_NREGS ||
	    !fits((int64_t)ops[0].number2))
		return;
	out->cfa_reg = (uint8_t)ops[0].number;
	out->cfa_off = (int32_t)(int64_t)ops[0].number2;
	out->reg[0] = UW_RA;	/* then the callee-saved ones, as step() does */
	for (int n = 0, i = 1; n < UW_RA && i < UW_RULE_REGS; n++)
		if (UW_CALLEE_SAVED & (1u << n))
			out->reg[i++] = (uint8_t)n;
	for (int i = 0; i < UW_RULE_REGS; i++)
		if (dwarf_frame_register(frame, out->reg[i], mem_ops, &ops, &nops) ||
		    !compile_reg(ops, nops, &out->kind[i], &out->off[i]))
			return;
	out->state = UW_RULE_YES;
}

/* Register n of the caller by rule i into next; 1 when the rule is
 * "undefined", <0 on a failed read (as unwind.c caller_reg). */
static int apply(const struct uw_rule *rule, int i, const struct uw_regs *regs,
		 const struct uw_mem *mem, uint64_t cfa, struct uw_regs *next)
{
	int n = rule->reg[i], err;
	uint64_t v;

	switch (rule->kind[i]) {
	case UW_RK_UNDEF:
		return 1;
	case UW_RK_SAME:
		if (!(regs->valid & (1u << n)))
			return 0;
		v = regs->r[n];
		break;
	case UW_RK_REG:
		if (!(regs->valid & (1u << rule->off[i])))
			return 0;	/* unknown, as an -EINVAL from the evaluator */
		v = regs->r[rule->off[i]];
		break;
	case UW_RK_VAL_CFA:
		v = cfa + (uint64_t)(int64_t)rule->off[i];
		break;
	default:
		v = cfa + (uint64_t)(int64_t)rule->off[i];
		if (uw_popped(n, v, regs, mem)) {	/* as UW_RK_SAME */
			if (!(regs->valid & (1u << n)))
				return 0;
			v = regs->r[n];
		} else if ((err = uw_mem_read(mem, v, &v))) {
			return err;
		}
		break;
	}
	next->r[n] = v;
	next->valid |= 1u << n;
	return 0;
}

int uw_rule__step(const struct uw_rule *rule, struct uw_regs *regs, const struct uw_mem *mem)
{
	struct uw_regs next = { .valid = 0 };
	uint64_t cfa;
	int err;

	if (!(regs->valid & (1u << rule->cfa_reg)))
		return KP_ENOCFI;
	cfa = regs->r[rule->cfa_reg] + (uint64_t)(int64_t)rule->cfa_off;
	err = apply(rule, 0, regs, mem, cfa, &next);
	if (err == 1)
		return UW_STEP_END;
	if (err)
		return err;
	if (!(next.valid & (1u << UW_RA)))
		return KP_ENOCFI;
	for (int i = 1; i < UW_RULE_REGS; i++)
		if ((err = apply(rule, i, regs, mem, cfa, &next)) < 0)
			return err;
	return uw_step_to(regs, &next, cfa);
}
