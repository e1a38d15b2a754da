// SPDX-License-Identifier: GPL-2.0-only
/* safedir.c — the checks (and making) of a private directory (see
 * safedir.h for the rules). */
#include "util/safedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ctx {
	const char *path, *what;
	struct kp_err *err;
};

static int refuse(const struct ctx *c, int code, const char *why, const char *todo)
{
	return kp_err_set(c->err, code, "%s: %s; refusing to use it as %s (%s)",
			  c->path, why, c->what, todo);
}

static int fail(const struct ctx *c, int code)
{
	return kp_err_set(c->err, code, "%s: %s; cannot use it as %s", c->path,
			  strerror(-code), c->what);
}

/* The real path of path, whose end may not exist yet: the longest
 * existing part resolved, the rest (plain names) appended. */
static int resolve(const struct ctx *c, char *out, size_t len)
{
	char buf[PATH_MAX], tail[PATH_MAX] = "", real[PATH_MAX];
	char *slash;

	if (snprintf(buf, sizeof(buf), "%s", c->path) >= (int)sizeof(buf))
		return fail(c, -ENAMETOOLONG);
	while (!realpath(buf, real)) {
		char t[PATH_MAX];

		if (errno != ENOENT)
			return fail(c, -errno);
		slash = strrchr(buf, '/');
		if (!slash[1] || !strcmp(slash + 1, ".") || !strcmp(slash + 1, ".."))
			return fail(c, -ENOENT);
		snprintf(t, sizeof(t), "/%s%s", slash + 1, tail);
		memcpy(tail, t, sizeof(tail));
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (snprintf(out, len, "%s%s", strcmp(real, "/") ? real : "", tail) >= (int)len)
		return fail(c, -ENAMETOOLONG);
	return 0;
}

/* A directory on the way: root's or ours, writable by nobody else
 * unless sticky. */
static int check_way(const struct ctx *c, int fd, const char *name)
{
	struct stat st;
	char why[PATH_MAX + 96];

	if (fstat(fd, &st))
		return fail(c, -errno);
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, sizeof(why), "'%s' on the way belongs to uid %u",
			 name, (unsigned)st.st_uid);
		return refuse(c, -EPERM, why, "use a directory only root can change");
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		snprintf(why, sizeof(why), "'%s' on the way is writable by other "
			 "users (mode %04o)", name, (unsigned)(st.st_mode & 07777));
		return refuse(c, -EPERM, why, "use a directory only root can change");
	}
	return 0;
}

/* The directory itself: ours, 0700, empty or marked. */
static int check_end(const struct ctx *c, int fd, const char *marker)
{
	struct stat st;
	struct dirent *e;
	char why[128];
	int dfd, other = 0, marked = 0;
	DIR *dir;

	if (fstat(fd, &st))
		return fail(c, -errno);
	if (st.st_uid != geteuid()) {
		snprintf(why, sizeof(why), "it belongs to uid %u, not %u",
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return refuse(c, -EPERM, why, "use a directory of your own");
	}
	if (st.st_mode & 077) {
		snprintf(why, sizeof(why), "its mode is %04o, open to other users",
			 (unsigned)(st.st_mode & 07777));
		return refuse(c, -EPERM, why, "chmod 700 it");
	}
	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(dir = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return fail(c, -errno);
	}
	while ((e = readdir(dir)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (marker && !strcmp(e->d_name, marker))
			marked = 1;
		else
			other = 1;
	}
	closedir(dir);
	if (other && !marked)
		return refuse(c, -ENOTEMPTY, "it holds files that are not its own",
			      "name a new or empty directory: what is in it may be deleted");
	return 0;
}

/* Walk real (cut up in place) from /, making what is missing. The last
 * directory's descriptor, or -errno. */
static int walk(const struct ctx *c, char *real)
{
	char *save = NULL, *name;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), nfd, rc;

	if (fd < 0)
		return fail(c, -errno);
	if ((rc = check_way(c, fd, "/")) != 0)
		goto out_close;
	for (name = strtok_r(real, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT &&
		    (mkdirat(fd, name, 0700) == 0 || errno == EEXIST))
			nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			rc = errno == ELOOP ?
			     refuse(c, -ELOOP, "a symbolic link appeared on the way",
				    "try again, or name the real directory") :
			     fail(c, -errno);
			goto out_close;
		}
		close(fd);
		fd = nfd;
		if ((rc = check_way(c, fd, name)) != 0)
			goto out_close;
	}
	return fd;
out_close:
	close(fd);
	return rc;
}

int kp_safedir__private(const char *path, const char *marker, const char *what,
			char *real, size_t len, struct kp_err *err)
{
	struct ctx c = { .path = path, .what = what, .err = err };
	char buf[PATH_MAX];
	int fd, rc;

	if (!path || path[0] != '/')
		return kp_err_set(err, -EINVAL, "%s: not an absolute path; refusing "
				  "to use it as %s (give one from /)",
				  path ? path : "(none)", what);
	rc = resolve(&c, buf, sizeof(buf));
	if (rc)
		return rc;
	if (snprintf(real, len, "%s", buf) >= (int)len)
		return fail(&c, -ENAMETOOLONG);
	fd = walk(&c, buf);
	if (fd < 0)
		return fd;
	rc = check_end(&c, fd, marker);
	close(fd);
	return rc;
}
