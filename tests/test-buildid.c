// SPDX-License-Identifier: GPL-2.0-only
/* test-buildid.c — build IDs read from disk (symbols/buildid.h): the
 * fixture binaries' notes, a hand-made notes buffer as /sys/kernel/notes
 * holds, malformed notes, and files that are not ELF or not regular. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "symbols/buildid.h"
#include "util/kp_err.h"

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void test_notes(void **state)
{
	uint8_t buf[64] = { 0 }, id[KP_BUILDID_MAX], len = 0;

	(void)state;
	/* a "Linux" note first (namesz 6: padded to 8), then the build ID */
	put32(buf, 6), put32(buf + 4, 4), put32(buf + 8, 0x101);
	memcpy(buf + 12, "Linux", 6);
	put32(buf + 24, 4), put32(buf + 28, 3), put32(buf + 32, 3);
	memcpy(buf + 36, "GNU", 4);
	buf[40] = 0xaa, buf[41] = 0xbb, buf[42] = 0xcc;
	assert_int_equal(kp_buildid__notes(buf, 44, id, &len), 0);
	assert_int_equal(len, 3);
	assert_int_equal(id[0], 0xaa);
	assert_int_equal(id[2], 0xcc);
	/* cut inside the descriptor: malformed, never read past the end */
	assert_int_equal(kp_buildid__notes(buf, 42, id, &len), -KP_EFORMAT);
	/* a huge namesz */
	put32(buf, 0xfffffff0u);
	assert_int_equal(kp_buildid__notes(buf, 44, id, &len), -KP_EFORMAT);
	assert_int_equal(kp_buildid__notes(buf, 8, id, &len), -KP_ENOSYM);
}

static void test_file(void **state)
{
	uint8_t id[KP_BUILDID_MAX], len = 0;

	(void)state;
	/* the fixture is linked with a build ID (gcc's default here) */
	assert_int_equal(kp_buildid__file("tests/fixtures/fx-prog-pie", id, &len), 0);
	assert_true(len == 20 || len == 16 || len == 8);
	assert_int_equal(kp_buildid__file("/nonexistent/x", id, &len), -ENOENT);
	assert_int_equal(kp_buildid__file("/dev/null", id, &len), -EINVAL);
	assert_int_equal(kp_buildid__file("/proc/self/status", id, &len), -KP_EFORMAT);
}

static void test_kernel(void **state)
{
	uint8_t id[KP_BUILDID_MAX], len = 0;
	int rc = kp_buildid__kernel(id, &len);

	(void)state;
	if (rc == -ENOENT || rc == -EACCES)
		skip();
	assert_int_equal(rc, 0);
	assert_true(len > 0 && len <= KP_BUILDID_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
