// SPDX-License-Identifier: GPL-2.0-only
/* test-pycode.c — line lookups in CPython 3.11 location tables
 * (src/symbols/pycode.h), against what CPython itself says: the table of
 * fuzz/pycode-seeds.py's sample() and its co_lines() by instruction index
 * (python3.11, printed when this test was written), then cut tables,
 * entries without a location and versions that are not 3.11 to 3.13. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "symbols/pycode.h"

static const char hex[] = "8000d80c0d8045dd0d12903189588c58f000040517f0000405178801d8"
	"0b0c88718935f000030917d80c119051894a88458845e00c119051894a88458845d80b10804c";

static size_t unhex(uint8_t *out)
{
	size_t n = 0;

	for (const char *p = hex; p[0] && p[1]; p += 2) {
		unsigned v;

		sscanf(p, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

/* co_lines() of sample(): [start, end) in code units -> line */
static const struct { uint32_t start, end, line; } want[] = {
	{ 0, 1, 2 }, { 1, 3, 3 }, { 3, 20, 4 }, { 20, 25, 5 }, { 25, 31, 6 },
	{ 31, 37, 8 }, { 37, 39, 9 },
};

static void test_lines(void **state)
{
	uint8_t lt[sizeof(hex) / 2];
	size_t n = unhex(lt);

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		for (uint32_t k = want[i].start; k < want[i].end; k++)
			assert_int_equal(kp_py__line(0x30b, lt, n, 2, k), want[i].line);
	assert_int_equal(kp_py__line(0x30b, lt, n, 2, 39), 0);	/* past the end */
	assert_int_equal(kp_py__line(0x30c, lt, n, 2, 3), 4);	/* 3.12: same format */
	assert_int_equal(kp_py__line(0x30a, lt, n, 2, 3), 0);	/* 3.10: another */
	assert_int_equal(kp_py__line(0x30b, NULL, 0, 2, 0), 0);
}

static void test_damaged(void **state)
{
	uint8_t lt[sizeof(hex) / 2];
	size_t n = unhex(lt);
	static const uint8_t none[] = { 0xf8 | 1, 0x80 | 13 << 3, 0x03 };
	static const uint8_t cont[] = { 0x80 | 13 << 3, 0x40 };	/* varint cut */

	(void)state;
	/* cut inside an entry: no line for it or past it, never a crash */
	for (size_t cut = 0; cut < n; cut++)
		for (uint32_t k = 0; k < 40; k++) {
			uint32_t l = kp_py__line(0x30b, lt, cut, 2, k);

			assert_true(l == 0 || l <= 9);
		}
	assert_int_equal(kp_py__line(0x30b, none, sizeof(none), 5, 1), 0);	/* no location */
	assert_int_equal(kp_py__line(0x30b, none, sizeof(none), 5, 2), 4);	/* 5 - 1 */
	assert_int_equal(kp_py__line(0x30b, cont, sizeof(cont), 5, 0), 0);
	lt[0] &= 0x7f;	/* not an entry's first byte */
	assert_int_equal(kp_py__line(0x30b, lt, n, 2, 0), 0);
}

static void test_layouts(void **state)
{
	(void)state;
	assert_non_null(kp_py__layout(0x30b));
	assert_null(kp_py__layout(0x30a));
	assert_null(kp_py__layout(0x40b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
