// SPDX-License-Identifier: GPL-2.0-only
/* test-pycode.c — line lookups in CPython 3.11 location tables
 * (src/symbols/pycode.h), against what CPython itself says: the table of
 * fuzz/pycode-seeds.py's sample() and its co_lines() by instruction index
 * (python3.11, printed when this test was written), then cut tables,
 * entries without a location and versions that are not 3.11 to 3.13;
 * and 3.13's _Py_DebugOffsets as a hostile process may give them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
	assert_int_equal(kp_py__line(0x307, lt, n, 2, 3), 0);	/* 3.7: not read */
	assert_int_equal(kp_py__line(0x30b, NULL, 0, 2, 0), 0);
}

/* f() of 3.8 to 3.10 (def f(n): / s = 0 / for i in range(n): / s += i /
 * (blank) / s *= 2 / return s, firstlineno 2), its table as the
 * interpreters wrote it; dis gives each instruction's line: byte offsets
 * 0-3 line 3, 4-15 line 4, 16-23 line 5, 24-33 line 7, 34-37 line 8. */
static const uint8_t lt310[] = { 4, 1, 12, 1, 8, 1, 10, 2, 4, 1 };	/* co_linetable */
static const uint8_t lt38[] = { 0, 1, 4, 1, 12, 1, 8, 2, 10, 1 };	/* co_lnotab */
static const uint32_t old_lines[19] = { 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 7, 7, 7, 7, 7, 8, 8 };

static void test_lines_old(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < 19; i++) {
		assert_int_equal(kp_py__line(0x30a, lt310, sizeof(lt310), 2, i), old_lines[i]);
		assert_int_equal(kp_py__line(0x309, lt38, sizeof(lt38), 2, i), old_lines[i]);
		assert_int_equal(kp_py__line(0x308, lt38, sizeof(lt38), 2, i), old_lines[i]);
	}
	assert_int_equal(kp_py__line(0x30a, lt310, sizeof(lt310), 2, 19), 0);	/* past it */
	/* a range without a line (-128), and a cut table: no line */
	static const uint8_t noline[] = { 4, 1, 4, 0x80, 4, 2 };
	assert_int_equal(kp_py__line(0x30a, noline, sizeof(noline), 10, 2), 0);
	assert_int_equal(kp_py__line(0x30a, noline, sizeof(noline), 10, 4), 13);
	assert_int_equal(kp_py__line(0x30a, lt310, 3, 2, 3), 0);
	for (size_t cut = 0; cut <= sizeof(lt38); cut++)
		for (uint32_t i = 0; i < 40; i++) {
			assert_true(kp_py__line(0x308, lt38, cut, 2, i) <= 8);
			assert_true(kp_py__line(0x30a, lt310, cut, 2, i) <= 8);
		}
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
	assert_null(kp_py__layout(0x307));
	assert_null(kp_py__layout(0x40b));
	for (uint32_t v = 0x308; v <= 0x30d; v++)
		assert_true(kp_py__layout_fits(kp_py__layout(v)));
	assert_int_equal(kp_py__layout(0x30a)->frames, KP_PY_FRAMES_LASTI);
	assert_int_equal(kp_py__layout(0x309)->frames, KP_PY_FRAMES_LASTI_BYTES);
	assert_int_equal(kp_py__layout(0x30b)->frames, KP_PY_FRAMES_INTERP);
}

/* _Py_DebugOffsets of 3.13 as 64-bit words: the index of each field read
 * (its structure's size one before its first field). */
enum { D_VERSION = 1, D_FREE = 2, D_RT = 3, D_RT_INTERP = 5, D_IS = 6,
       D_IS_THREADS = 9, D_TS = 19, D_TS_NEXT = 21, D_TS_FRAME = 23, D_TS_TID = 25,
       D_FR = 28, D_FR_PREV = 29, D_FR_EXEC = 30, D_FR_INSTR = 31, D_FR_OWNER = 33,
       D_CO = 34, D_CO_FILE = 35, D_CO_QUAL = 37, D_CO_LT = 38, D_CO_FIRST = 39,
       D_CO_CODE = 43, D_UNI = 67, D_UNI_ASCII = 70, D_WORDS = 73 };

/* The table's 3.13 layout as a 3.13 interpreter publishes it. */
static void debug_image(uint64_t *w)
{
	const struct kp_py_layout *l = kp_py__layout(0x30d);

	memset(w, 0, D_WORDS * 8);
	memcpy(w, "xdebugpy", 8);
	w[D_VERSION] = 0x030d00f0;
	w[D_RT] = 1000, w[D_RT_INTERP] = l->interp_head;
	w[D_IS] = 8000, w[D_IS_THREADS] = l->tstate_head;
	w[D_TS] = 300, w[D_TS_NEXT] = l->ts_next, w[D_TS_FRAME] = l->ts_frame;
	w[D_TS_TID] = l->ts_tid;
	w[D_FR] = 80, w[D_FR_PREV] = l->f_previous, w[D_FR_EXEC] = l->f_code;
	w[D_FR_INSTR] = l->f_instr, w[D_FR_OWNER] = l->f_owner;
	w[D_CO] = 220, w[D_CO_FILE] = l->co_filename, w[D_CO_QUAL] = l->co_qualname;
	w[D_CO_LT] = l->co_linetable, w[D_CO_FIRST] = l->co_firstlineno;
	w[D_CO_CODE] = l->co_code;
	w[D_UNI] = 80, w[D_UNI_ASCII] = l->str_ascii_data;
}

/* kp_py__debug_layout of image w put at 4096 of a memory file. */
static int read_image(const uint64_t *w, size_t words, struct kp_py_layout *out)
{
	int fd = memfd_create("test-pycode", MFD_CLOEXEC), rc;

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, w, words * 8, 4096), (ssize_t)(words * 8));
	rc = kp_py__debug_layout(fd, 4096, 0x30d, out);
	close(fd);
	return rc;
}

static void test_debug_offsets(void **state)
{
	const struct kp_py_layout *l = kp_py__layout(0x30d);
	struct kp_py_layout got;
	uint64_t w[D_WORDS];

	(void)state;
	debug_image(w);
	assert_int_equal(read_image(w, D_WORDS, &got), 0);
	assert_memory_equal(&got, l, sizeof(got));
	w[D_CO_QUAL] += 8;			/* another build: followed */
	assert_int_equal(read_image(w, D_WORDS, &got), 0);
	assert_int_equal(got.co_qualname, l->co_qualname + 8);
	w[D_FREE] = 1;
	assert_int_equal(read_image(w, D_WORDS, &got), -ENOTSUP);
	debug_image(w);
	w[D_CO_LT] = w[D_CO];			/* past its structure */
	assert_int_equal(read_image(w, D_WORDS, &got), -EFAULT);
	debug_image(w);
	w[D_IS] = 1u << 20;			/* big: 3.13's is 100s of KiB */
	assert_int_equal(read_image(w, D_WORDS, &got), 0);
	w[D_IS_THREADS] = 1u << 16;		/* past 16 bits */
	assert_int_equal(read_image(w, D_WORDS, &got), -EFAULT);
	debug_image(w);
	w[D_CO_QUAL] = w[D_CO_CODE];		/* inside, past what is read */
	assert_int_equal(read_image(w, D_WORDS, &got), -EFAULT);
	debug_image(w);
	w[D_UNI_ASCII] = 64;			/* the str's pointer past its head */
	assert_int_equal(read_image(w, D_WORDS, &got), -EFAULT);
	debug_image(w);
	w[D_VERSION] = 0x030c00f0;		/* not the version it runs */
	assert_int_equal(read_image(w, D_WORDS, &got), -ENOENT);
	debug_image(w);
	memcpy(w, "xdebugpz", 8);
	assert_int_equal(read_image(w, D_WORDS, &got), -ENOENT);
	debug_image(w);
	assert_int_equal(read_image(w, 20, &got), -EFAULT);	/* cut short */
	assert_int_equal(kp_py__debug_layout(-1, 0, 0x30c, &got), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_lines_old),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_debug_offsets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
