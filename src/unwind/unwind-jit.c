// SPDX-License-Identifier: GPL-2.0-only
/* unwind-jit.c — the frame of JIT code without CFI, from its bytes
 * (unwind-int.h: uw_jit_rule).
 *
 * Generated code has no CFI. Most of it keeps a frame pointer and is
 * stepped by it (unwind.c's step_fp); some does not: CPython's perf
 * trampolines (3.12, 3.13 on x86-64) are "sub $8,%rsp; call *%rcx;
 * add $8,%rsp; ret", and their callers' rbp is not theirs. So the
 * instructions from the function's entry to the pc are followed, and
 * what they do to the stack pointer and rbp gives the frame: the caller's
 * stack pointer (the CFA) as sp + offset, where its return address is,
 * and where rbp was saved. Only straight-line code of a few instruction
 * forms is followed (push, pop, sub/add of rsp by a constant, mov
 * %rsp,%rbp, calls, endbr64, nop): anything else, a branch included,
 * leaves the frame unknown, and the caller steps by rbp as before.
 * Every byte read is inside code[0..len). */
#include "unwind/unwind-int.h"

#include <string.h>

struct jit_sim {
	int64_t delta;		/* bytes below the entry's stack pointer */
	int64_t rbp_at;		/* delta just after rbp was pushed, or -1 */
	bool rbp_moved;		/* rbp no longer holds the caller's value */
	bool fp;		/* rbp = the stack pointer at delta fp_delta */
	int64_t fp_delta;
};

static int32_t le32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* rsp adjusted by an immediate: 48 83 /5 ib (sub), 48 83 /0 ib (add),
 * 48 81 /5 id, 48 81 /0 id, on rsp (modrm 0xec / 0xc4). The length, or
 * 0 when the bytes are not one of those. */
static size_t rsp_imm(const uint8_t *p, size_t n, struct jit_sim *s)
{
	int64_t imm;
	size_t len;

	if (n < 4 || p[0] != 0x48 || (p[1] != 0x83 && p[1] != 0x81) ||
	    (p[2] != 0xec && p[2] != 0xc4))
		return 0;
	if (p[1] == 0x83) {
		imm = (int8_t)p[3];
		len = 4;
	} else {
		if (n < 7)
			return 0;
		imm = le32(p + 3);
		len = 7;
	}
	s->delta += p[2] == 0xec ? imm : -imm;
	return len;
}

/* push/pop of a register (50+r, 58+r, with a REX.B prefix 41). */
static size_t push_pop(const uint8_t *p, size_t n, struct jit_sim *s)
{
	size_t rex = n >= 2 && p[0] == 0x41;
	uint8_t op;

	if (n < rex + 1)
		return 0;
	op = p[rex];
	if (op >= 0x50 && op <= 0x57) {
		s->delta += 8;
		if (!rex && op == 0x55 && s->rbp_at < 0 && !s->rbp_moved)
			s->rbp_at = s->delta;
		return rex + 1;
	}
	if (op >= 0x58 && op <= 0x5f) {
		s->delta -= 8;
		if (!rex && op == 0x5d) {	/* pop %rbp: the caller's again */
			bool back = s->rbp_at == s->delta + 8;

			s->rbp_moved = !back;
			s->rbp_at = -1;
			s->fp = false;
		}
		return rex + 1;
	}
	return 0;
}

/* A call: e8 rel32, or ff /2 through a register (ff d0+r, 41 ff d0+r):
 * the callee returns with the stack as it was. */
static size_t call(const uint8_t *p, size_t n)
{
	size_t rex = n >= 1 && p[0] == 0x41;

	if (n >= 5 && p[0] == 0xe8)
		return 5;
	if (n >= rex + 2 && p[rex] == 0xff && (p[rex + 1] & 0xf8) == 0xd0)
		return rex + 2;
	return 0;
}

/* mov between two registers (REX.W 89 /r or 8b /r, mod 11), neither
 * rsp nor rbp written: the length, or 0. */
static size_t mov_reg(const uint8_t *p, size_t n)
{
	uint8_t rex, modrm, dst;

	if (n < 3 || (p[0] & 0xf0) != 0x40 || !(p[0] & 8) ||
	    (p[1] != 0x89 && p[1] != 0x8b) || (p[2] & 0xc0) != 0xc0)
		return 0;
	rex = p[0], modrm = p[2];
	dst = p[1] == 0x89 ? (uint8_t)((modrm & 7) | (rex & 1) << 3)
			   : (uint8_t)((modrm >> 3 & 7) | (rex & 4) << 1);
	return dst == 4 || dst == 5 ? 0 : 3;
}

/* One instruction at p: its length, or 0 when it is not followed. */
static size_t jit_insn(const uint8_t *p, size_t n, struct jit_sim *s)
{
	size_t len;

	if (n >= 4 && !memcmp(p, "\xf3\x0f\x1e\xfa", 4))	/* endbr64 */
		return 4;
	if (p[0] == 0x90)
		return 1;
	if (n >= 3 && p[0] == 0x48 && ((p[1] == 0x89 && p[2] == 0xe5) ||
				       (p[1] == 0x8b && p[2] == 0xec))) {
		s->fp = true;	/* mov %rsp,%rbp */
		s->fp_delta = s->delta;
		s->rbp_moved = true;
		return 3;
	}
	if ((len = rsp_imm(p, n, s)) || (len = push_pop(p, n, s)) || (len = call(p, n)) ||
	    (len = mov_reg(p, n)))
		return len;
	return 0;
}

int uw_jit_rule(const uint8_t *code, size_t len, uint64_t off, struct uw_jit_rule *out)
{
	struct jit_sim s = { .rbp_at = -1 };
	size_t at = 0, n;

	if (!code || off >= len || off > UW_JIT_MAX_BYTES)
		return KP_ENOCFI;
	while (at < off) {
		if (!(n = jit_insn(code + at, len - at, &s)))
			return KP_ENOCFI;
		at += n;
		if (s.delta < 0 || s.delta > UW_JIT_MAX_FRAME)
			return KP_ENOCFI;
	}
	if (at != off || (s.delta & 7))
		return KP_ENOCFI;	/* pc inside an instruction */
	/* the entry's stack pointer held the return address: the CFA is
	 * 8 above it; rbp was pushed at entry - rbp_at */
	out->cfa_off = s.delta + 8;
	out->rbp_below_cfa = s.rbp_at >= 0 ? s.rbp_at + 8 : 0;
	out->rbp_same = s.rbp_at < 0 && !s.rbp_moved;
	return 0;
}
