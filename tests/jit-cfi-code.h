/* SPDX-License-Identifier: GPL-2.0-only */
/* jit-cfi-code.h — the generated code of the JIT CFI tests and its call
 * frame information, shared by test-unwind's test_jit_eh_frame (in
 * process) and tests/workload/jitcall's cfi mode (through a jitdump):
 * x86-64 code that keeps no frame pointer and branches before its call,
 * so that neither its frame pointer nor its instructions tell its frame,
 *   sub $24,%rsp; test %rdi,%rdi; je 1f; mov %rdi,%rax; mov %rsi,%rdi;
 *   call *%rax; 1: add $24,%rsp; ret
 * and its .eh_frame as a jitdump lays it out, at the code's address plus
 * its size rounded up to 8 (KP_CFI_EH_AT): a CIE (CFA rsp + 8, the
 * return address at CFA - 8) and an FDE (CFA rsp + 32 from offset 4 on,
 * rsp + 8 from 21 on) whose start, pc-relative from its field at
 * KP_CFI_FDE_PC, the user fills in; then the zero terminator.
 * Header-only (static data), for tests.
 */
#ifndef KP_TESTS_JIT_CFI_CODE_H
#define KP_TESTS_JIT_CFI_CODE_H

#include <stdint.h>

static const uint8_t kp_cfi_code[22] = {
	0x48, 0x83, 0xec, 0x18,	/* sub $24,%rsp */
	0x48, 0x85, 0xff,	/* test %rdi,%rdi */
	0x74, 0x08,		/* je 1f */
	0x48, 0x89, 0xf8,	/* mov %rdi,%rax */
	0x48, 0x89, 0xf7,	/* mov %rsi,%rdi */
	0xff, 0xd0,		/* call *%rax */
	0x48, 0x83, 0xc4, 0x18,	/* 1: add $24,%rsp */
	0xc3,			/* ret */
};

#define KP_CFI_EH_AT 24		/* the .eh_frame at code + 24 */
#define KP_CFI_FDE_PC 32	/* its FDE's start field */

static const uint8_t kp_cfi_eh[52] = {
	0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b,
	0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0,
	0x14, 0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, 22, 0, 0, 0,
	0, 0x44, 0x0e, 0x20, 0x51, 0x0e, 0x08, 0,
	0, 0, 0, 0,
};

#endif /* KP_TESTS_JIT_CFI_CODE_H */
