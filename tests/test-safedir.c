// SPDX-License-Identifier: GPL-2.0-only
/* test-safedir.c — cmocka tests of util/safedir: a missing directory made
 * mode 0700 (its missing parents too) and handed back by its real path
 * (through a link of ours); one open to others, one on a way writable by
 * others, one holding other files, and a relative path refused, each with
 * a message that names it; a directory holding the marker taken. Runs as
 * anyone (another user's directory: the rules are the same checks). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/safedir.h"

#define DIR_TEMPLATE "/tmp/kp-safedir-XXXXXX"
#define MARK "cache_clean_interval_s"

static char dir[sizeof(DIR_TEMPLATE)];

static int setup(void **state)
{
	(void)state;
	memcpy(dir, DIR_TEMPLATE, sizeof(DIR_TEMPLATE));
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", dir, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int check(const char *rel, char *real, struct kp_err *err)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	memset(err, 0, sizeof(*err));
	return kp_safedir__private(path, MARK, "the cache", real, PATH_MAX, err);
}

static void touch(const char *rel)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

static void test_made_0700(void **state)
{
	char real[PATH_MAX], want[PATH_MAX], link[PATH_MAX];
	struct kp_err err;
	struct stat st;

	(void)state;
	assert_int_equal(check("a/b", real, &err), 0);
	snprintf(want, sizeof(want), "%s/a/b", dir);
	assert_string_equal(real, want);
	assert_int_equal(stat(want, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(want, sizeof(want), "%s/a", dir);
	assert_int_equal(stat(want, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* again: empty, ours, 0700; and through a link, its real path */
	assert_int_equal(check("a/b", real, &err), 0);
	snprintf(link, sizeof(link), "%s/l", dir);
	assert_int_equal(symlink(want, link), 0);
	assert_int_equal(check("l/b", real, &err), 0);
	snprintf(want, sizeof(want), "%s/a/b", dir);
	assert_string_equal(real, want);
}

static void test_marked(void **state)
{
	char real[PATH_MAX];
	struct kp_err err;

	(void)state;
	assert_int_equal(check("c", real, &err), 0);
	touch("c/" MARK);
	touch("c/0123abcd");
	assert_int_equal(check("c", real, &err), 0);
}

static void refused(const char *rel, int code, const char *why)
{
	char real[PATH_MAX];
	struct kp_err err;

	assert_int_equal(check(rel, real, &err), code);
	assert_non_null(strstr(err.msg, why));
	assert_non_null(strstr(err.msg, "refusing to use it as the cache"));
	assert_non_null(strstr(err.msg, dir));
}

static void test_refusals(void **state)
{
	char path[PATH_MAX];
	struct kp_err err;

	(void)state;
	snprintf(path, sizeof(path), "%s/open", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, 0750), 0);
	refused("open", -EPERM, "mode is 0750");
	snprintf(path, sizeof(path), "%s/shared", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, 0777), 0);	/* not sticky */
	refused("shared/c", -EPERM, "writable by other users");
	snprintf(path, sizeof(path), "%s/shared/c", dir);
	assert_int_equal(access(path, F_OK), -1);	/* nothing made past it */
	assert_int_equal(mkdir(path, 0700), 0);
	refused("shared/c", -EPERM, "'shared' on the way");
	snprintf(path, sizeof(path), "%s/full", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	touch("full/notes");
	refused("full", -ENOTEMPTY, "holds files");
	assert_int_equal(kp_safedir__private("rel/dir", MARK, "the cache", path,
					     sizeof(path), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not an absolute path"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_made_0700, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
