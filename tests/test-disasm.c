// SPDX-License-Identifier: GPL-2.0-only
/* test-disasm.c — symbols/disasm.h over known x86-64 bytes: the text
 * capstone gives (Intel syntax), sizes, the kinds of jumps, calls and
 * returns with their direct targets, and a byte that does not decode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "symbols/disasm.h"

struct seen {
	struct kp_insn in[16];
	int n;
};

static int keep(void *ctx, const struct kp_insn *in)
{
	struct seen *s = ctx;

	if (s->n < 16)
		s->in[s->n++] = *in;
	return 0;
}

static void test_known_bytes(void **state)
{
	/* push rbp; mov rbp, rsp; idiv rcx; call +0; jne -2; pop rbp; ret;
	 * 0x06 (not an instruction in 64-bit mode) */
	static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xf7, 0xf9,
		0xe8, 0x00, 0x00, 0x00, 0x00, 0x75, 0xfe, 0x5d, 0xc3, 0x06 };
	struct kp_disasm *d = kp_disasm__new();
	struct seen s = { .n = 0 };

	assert_non_null(d);
	assert_int_equal(kp_disasm__run(d, code, sizeof(code), 0x401000, keep, &s), 0);
	assert_int_equal(s.n, 8);
	assert_string_equal(s.in[0].text, "push rbp");
	assert_int_equal(s.in[0].addr, 0x401000);
	assert_string_equal(s.in[1].text, "mov rbp, rsp");
	assert_int_equal(s.in[1].size, 3);
	assert_string_equal(s.in[2].text, "idiv rcx");
	assert_int_equal(s.in[3].kind, KP_INSN_CALL);
	assert_int_equal(s.in[3].target, 0x40100c);	/* the next instruction */
	assert_int_equal(s.in[4].kind, KP_INSN_JUMP);
	assert_int_equal(s.in[4].target, 0x40100c);	/* itself */
	assert_int_equal(s.in[6].kind, KP_INSN_RET);
	assert_int_equal(s.in[1].kind, KP_INSN_OTHER);
	assert_string_equal(s.in[7].text, ".byte 0x06");
	assert_int_equal(s.in[7].size, 1);
	kp_disasm__free(d);
}

static int stop_at_two(void *ctx, const struct kp_insn *in)
{
	return ++*(int *)ctx == 2 ? 42 : 0;
}

static void test_stop(void **state)
{
	static const uint8_t nops[8] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	struct kp_disasm *d = kp_disasm__new();
	int n = 0;

	assert_non_null(d);
	assert_int_equal(kp_disasm__run(d, nops, sizeof(nops), 0, stop_at_two, &n), 42);
	assert_int_equal(n, 2);
	kp_disasm__free(d);
	kp_disasm__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_bytes),
		cmocka_unit_test(test_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
