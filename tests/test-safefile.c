// SPDX-License-Identifier: GPL-2.0-only
/* test-safefile.c — cmocka tests of util/safefile: a new file renamed
 * into place with mode 0600, an old file of ours replaced and never
 * written into, the refusals at open and check (nothing created), and a
 * path changed while the file was written: refused at commit, the data
 * kept and named. The tests of another user's files are output-safe.sh
 * (they need root). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/safefile.h"

#define DIR_TEMPLATE "/tmp/kp-safefile-XXXXXX"

static char dir[sizeof(DIR_TEMPLATE)];
static char path[256], other[256];

static int setup(void **state)
{
	(void)state;
	memcpy(dir, DIR_TEMPLATE, sizeof(DIR_TEMPLATE));
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Files in dir, other than "out" and "other". */
static int strays(void)
{
	char cmd[300];
	FILE *p;
	int n = 0, c;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -v -x -e out -e other", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((c = fgetc(p)) != EOF)
		n += c == '\n';
	pclose(p);
	return n;
}

static void slurp(const char *p, char *buf, size_t n)
{
	FILE *f = fopen(p, "r");
	size_t len;

	assert_non_null(f);
	len = fread(buf, 1, n - 1, f);
	buf[len] = '\0';
	fclose(f);
}

static void test_new_then_replace(void **state)
{
	struct kp_err err = { 0 };
	struct kp_safefile *f;
	struct stat st, old;
	char buf[64];
	mode_t mask;

	(void)state;
	f = kp_safefile__open(path, &err);
	assert_non_null(f);
	fputs("first\n", kp_safefile__stream(f));
	assert_int_equal(access(path, F_OK), -1);	/* not there until commit */
	assert_int_equal(kp_safefile__commit(f, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	mask = umask(0);
	umask(mask);
	assert_int_equal(st.st_mode & 0777, 0600 & ~mask);
	/* an old file of ours, linked elsewhere: replaced, not written into */
	assert_int_equal(link(path, other), 0);
	assert_int_equal(stat(path, &old), 0);
	f = kp_safefile__open(path, &err);
	assert_non_null(f);
	fputs("second\n", kp_safefile__stream(f));
	assert_int_equal(kp_safefile__commit(f, &err), 0);
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "second\n");
	slurp(other, buf, sizeof(buf));
	assert_string_equal(buf, "first\n");
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_ino != old.st_ino);
	assert_int_equal(strays(), 0);
}

/* Refused by open and by check alike, with one line naming p and word. */
static void refused_at_open(const char *p, const char *word)
{
	struct kp_err err = { 0 }, cerr = { 0 };

	assert_null(kp_safefile__open(p, &err));
	if (!strstr(err.msg, word))
		fail_msg("'%s' does not say '%s'", err.msg, word);
	assert_non_null(strstr(err.msg, p));
	assert_null(strchr(err.msg, '\n'));
	assert_true(kp_safefile__check(p, &cerr) < 0);
	assert_string_equal(cerr.msg, err.msg);
	assert_int_equal(strays(), 0);
}

static void test_refusals(void **state)
{
	char p[300];

	(void)state;
	assert_int_equal(kp_safefile__check(path, NULL), 0);
	assert_int_equal(access(path, F_OK), -1);	/* check creates nothing */
	assert_int_equal(strays(), 0);
	assert_int_equal(symlink(other, path), 0);	/* dangling */
	refused_at_open(path, "is a symbolic link; refusing to write through it");
	assert_int_equal(access(other, F_OK), -1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	refused_at_open(path, "is a FIFO; refusing");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	refused_at_open(path, "is a directory; refusing");
	snprintf(p, sizeof(p), "%s/", path);
	refused_at_open(p, "names a directory");
	assert_int_equal(rmdir(path), 0);
	snprintf(p, sizeof(p), "%s/no/such", dir);
	refused_at_open(p, "cannot create: No such file or directory");
}

/* A link planted at the name while the file was written: refused at
 * commit; the data stays in the new file, which the message names. */
static void test_changed_meanwhile(void **state)
{
	struct kp_err err = { 0 };
	struct kp_safefile *f;
	char kept[300], buf[64];
	const char *at;

	(void)state;
	f = kp_safefile__open(path, &err);
	assert_non_null(f);
	fputs("data\n", kp_safefile__stream(f));
	assert_int_equal(symlink(other, path), 0);
	assert_int_equal(kp_safefile__commit(f, &err), -ELOOP);
	at = strstr(err.msg, "; the data is kept in ");
	assert_non_null(at);
	snprintf(kept, sizeof(kept), "%s", at + strlen("; the data is kept in "));
	slurp(kept, buf, sizeof(buf));
	assert_string_equal(buf, "data\n");
	assert_int_equal(access(other, F_OK), -1);	/* not followed */
	assert_int_equal(unlink(kept), 0);
	assert_int_equal(unlink(path), 0);
}

static void test_abort_removes(void **state)
{
	struct kp_err err = { 0 };
	struct kp_safefile *f = kp_safefile__open(path, &err);

	(void)state;
	assert_non_null(f);
	fputs("x", kp_safefile__stream(f));
	kp_safefile__abort(f);
	kp_safefile__abort(NULL);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(strays(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_then_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_meanwhile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_removes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
