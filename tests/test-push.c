// SPDX-License-Identifier: GPL-2.0-only
/* test-push.c — cmocka tests of src/push/ without a server: the
 * application rule (services, containers, the per-user manager, the
 * command name, characters made safe), the URL's protocol and endpoint
 * (default ports, a path prefix, what is refused), base64, the spool
 * entry format (a round trip, refusals), and the spool directory:
 * entries kept in order across a reopen, the oldest dropped past the
 * limit and counted, a planted link or a foreign name never read, and
 * the directory made 0700. Runs as anyone. */
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

#include "push/http.h"
#include "push/push.h"
#include "push/spool.h"

#define DIR_TEMPLATE "/tmp/kp-push-XXXXXX"

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
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void app_is(const char *cgroup, const char *comm, const char *want)
{
	char buf[128];

	kp_push_app(cgroup, comm, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_app_rule(void **state)
{
	(void)state;
	app_is("/system.slice/nginx.service", "nginx: worker", "nginx");
	app_is("/system.slice/postgresql@15-main.service", "postgres", "postgresql_15-main");
	app_is("/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service",
	       "foo", "foo");
	app_is("/user.slice/user-1000.slice/user@1000.service/init.scope", "bash", "bash");
	app_is("/user.slice/user-1000.slice/session-3.scope", "vim", "vim");
	app_is("/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
	       "python3", "container-0123456789ab");
	app_is("/kubepods.slice/kubepods-pod1.slice/cri-containerd-"
	       "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210.scope",
	       "java", "container-fedcba987654");
	app_is("/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	       "redis", "container-0123456789ab");
	app_is("/docker/0123456789abcdef", "redis", "redis");	/* not an id */
	app_is("/", "split-fp", "split-fp");
	app_is(NULL, "a b/c{d}", "a_b_c_d_");
	app_is("/x.service", "", "x");
	app_is(NULL, "", "unknown");
	app_is("/.service", "sh", "sh");	/* no unit name */
}

static void endpoint_is(const char *url, enum kp_push_proto proto, const char *want)
{
	struct kp_err err = { 0 };
	enum kp_push_proto p = 99;
	char buf[256];

	assert_int_equal(kp_push_endpoint(url, &p, buf, sizeof(buf), &err), 0);
	assert_int_equal(p, proto);
	assert_string_equal(buf, want);
}

static void test_endpoint(void **state)
{
	struct kp_err err = { 0 };
	enum kp_push_proto p;
	char buf[256];
	static const char *const bad[] = {
		"ftp://h", "pyroscope://", "pyroscope:///x", "h:4040",
		"pyroscope://h/x?a=1", "pyroscope://user:pw@h", "parca://h /x",
		"pyroscope://h#frag",
	};

	(void)state;
	endpoint_is("pyroscope://127.0.0.1", KP_PUSH_PYROSCOPE,
		    "http://127.0.0.1:4040/ingest");
	endpoint_is("pyroscope://h:9000/prefix/", KP_PUSH_PYROSCOPE,
		    "http://h:9000/prefix/ingest");
	endpoint_is("pyroscope+https://profiles.example", KP_PUSH_PYROSCOPE,
		    "https://profiles.example/ingest");
	endpoint_is("parca://[::1]", KP_PUSH_PARCA, "http://[::1]:7070/profiles/writeraw");
	endpoint_is("parca://[::1]:80", KP_PUSH_PARCA, "http://[::1]:80/profiles/writeraw");
	endpoint_is("PARCA+HTTPS://p.example:443", KP_PUSH_PARCA,
		    "https://p.example:443/profiles/writeraw");
	endpoint_is("https://g.example/pyro", KP_PUSH_PYROSCOPE, "https://g.example/pyro/ingest");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(kp_push_endpoint(bad[i], &p, buf, sizeof(buf), &err),
				 KP_EUSAGE);
		assert_non_null(strstr(err.msg, "for --push"));
		assert_null(strchr(err.msg, '\n'));
	}
}

static void test_base64(void **state)
{
	char out[16];

	(void)state;
	kp_base64((const unsigned char *)"", 0, out);
	assert_string_equal(out, "");
	kp_base64((const unsigned char *)"f", 1, out);
	assert_string_equal(out, "Zg==");
	kp_base64((const unsigned char *)"fo", 2, out);
	assert_string_equal(out, "Zm8=");
	kp_base64((const unsigned char *)"foo", 3, out);
	assert_string_equal(out, "Zm9v");
	kp_base64((const unsigned char *)"\xff\xfe\x00\x01", 4, out);
	assert_string_equal(out, "//4AAQ==");
}

static const uint8_t gz[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0 };

static void entry(struct kp_spool_entry *e, const char *app, uint64_t from)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->app, sizeof(e->app), "%s", app);
	snprintf(e->host, sizeof(e->host), "host-1");
	e->from_s = from;
	e->until_s = from + 15;
	e->body = gz;
	e->body_len = sizeof(gz);
}

static void test_entry_format(void **state)
{
	struct kp_spool_entry e, back;
	struct kp_err err = { 0 };
	uint8_t buf[600];
	int n;

	(void)state;
	entry(&e, "nginx", 1764900000);
	n = kp_spool_header(&e, (char *)buf, sizeof(buf));
	assert_true(n > 0);
	memcpy(buf + n, gz, sizeof(gz));
	assert_int_equal(kp_spool_parse(buf, (size_t)n + sizeof(gz), &back, &err), 0);
	assert_string_equal(back.app, "nginx");
	assert_string_equal(back.host, "host-1");
	assert_int_equal(back.from_s, 1764900000);
	assert_int_equal(back.until_s, 1764900015);
	assert_int_equal(back.body_len, sizeof(gz));
	assert_int_equal(kp_spool_parse(buf, (size_t)n, &back, &err), KP_EFORMAT);
	assert_int_equal(kp_spool_parse(buf, (size_t)n + 1, &back, &err), KP_EFORMAT);
	buf[0] = 'K';
	assert_int_equal(kp_spool_parse(buf, (size_t)n + sizeof(gz), &back, &err),
			 KP_EFORMAT);
	e.until_s = e.from_s;
	assert_true(kp_spool_header(&e, (char *)buf, sizeof(buf)) < 0);
	entry(&e, "a b", 1);
	assert_true(kp_spool_header(&e, (char *)buf, sizeof(buf)) < 0);
}

static int count_entries(void)
{
	char cmd[200];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls '%s/spool' | grep -c '\\.push$'", dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

/* Entries in order, kept over a reopen; past the limit the oldest go. */
static void test_spool_order_and_limit(void **state)
{
	char path[300], name[400];
	struct kp_spool_entry e, back;
	struct kp_err err = { 0 };
	uint64_t dropped = 0, seq, n, bytes;
	struct kp_spool *s;
	uint8_t *buf;
	size_t len;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/spool", dir);
	s = kp_spool__open(path, 1 << 20, &err);
	assert_non_null(s);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	for (int i = 0; i < 3; i++) {
		entry(&e, "app", 1000 + (uint64_t)i);
		assert_int_equal(kp_spool__add(s, &e, &dropped, &err), 0);
	}
	assert_int_equal(dropped, 0);
	kp_spool__close(s);

	/* A link planted under an entry's name is never indexed or read. */
	snprintf(name, sizeof(name), "%s/%020d.push", path, 7);
	assert_int_equal(symlink("/etc/shadow", name), 0);
	s = kp_spool__open(path, 1 << 20, &err);
	assert_non_null(s);
	kp_spool__usage(s, &n, &bytes);
	assert_int_equal(n, 3);
	assert_int_equal(kp_spool__oldest(s, &seq), 1);
	assert_int_equal(kp_spool__read(s, seq, &buf, &len, &err), 0);
	assert_int_equal(kp_spool_parse(buf, len, &back, &err), 0);
	assert_int_equal(back.from_s, 1000);
	free(buf);
	kp_spool__remove(s, seq);
	assert_int_equal(kp_spool__oldest(s, &seq), 1);
	assert_int_equal(kp_spool__read(s, seq, &buf, &len, &err), 0);
	assert_int_equal(kp_spool_parse(buf, len, &back, &err), 0);
	assert_int_equal(back.from_s, 1001);
	free(buf);
	/* New entries come after the link's number too: never onto it. */
	entry(&e, "app", 2000);
	assert_int_equal(kp_spool__add(s, &e, &dropped, &err), 0);
	kp_spool__usage(s, &n, &bytes);
	assert_int_equal(n, 3);
	kp_spool__close(s);
	unlink(name);

	/* A limit that holds two: adding drops the oldest, counted. */
	s = kp_spool__open(path, (size_t)bytes * 2 / 3 + 1, &err);
	assert_non_null(s);
	entry(&e, "app", 3000);
	assert_int_equal(kp_spool__add(s, &e, &dropped, &err), 0);
	assert_int_equal(dropped, 2);
	kp_spool__usage(s, &n, &bytes);
	assert_int_equal(n, 2);
	assert_int_equal(count_entries(), 2);
	assert_int_equal(kp_spool__oldest(s, &seq), 1);
	assert_int_equal(kp_spool__read(s, seq, &buf, &len, &err), 0);
	assert_int_equal(kp_spool_parse(buf, len, &back, &err), 0);
	assert_int_equal(back.from_s, 2000);
	free(buf);
	kp_spool__close(s);
}

/* A directory holding others' files, or open to others, is refused. */
static void test_spool_refused(void **state)
{
	char path[300], file[400];
	struct kp_err err = { 0 };
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/other", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(file, sizeof(file), "%s/notes.txt", path);
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_null(kp_spool__open(path, 1 << 20, &err));
	assert_non_null(strstr(err.msg, "push spool"));
	snprintf(path, sizeof(path), "%s/open", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	chmod(path, 0755);
	assert_null(kp_spool__open(path, 1 << 20, &err));
	assert_non_null(strstr(err.msg, "chmod 700"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_app_rule),
		cmocka_unit_test(test_endpoint),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_entry_format),
		cmocka_unit_test_setup_teardown(test_spool_order_and_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
