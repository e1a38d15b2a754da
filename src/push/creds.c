// SPDX-License-Identifier: GPL-2.0-only
/* creds.c — secrets and CA certificates read as root (see creds.h). */
#include "push/creds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* path opened without following a link, a regular file of our user with
 * none of the mode bits in bad; -1 and err set otherwise. */
static int open_owned(const char *path, const char *opt, mode_t bad, const char *want,
		      struct stat *st, struct kp_err *err)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		kp_err_set(err, KP_EUSAGE, "%s %s: %s", opt, path, strerror(errno));
		return -1;
	}
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
	    (st->st_mode & bad)) {
		close(fd);
		kp_err_set(err, KP_EUSAGE, "%s %s: not a regular file of uid %u %s",
			   opt, path, (unsigned)geteuid(), want);
		return -1;
	}
	return fd;
}

int kp_creds__secret(const char *path, const char *opt, char **out, struct kp_err *err)
{
	char buf[KP_SECRET_MAX + 1];
	struct stat st;
	ssize_t n;
	int fd = open_owned(path, opt, 077, "with mode 0600 or 0400; refusing to "
			    "read a secret others can read or change (chown and "
			    "chmod 600 it)", &st, err);

	if (fd < 0)
		return err->code;
	n = read(fd, buf, KP_SECRET_MAX + 1);
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	if (n <= 0 || n > KP_SECRET_MAX || memchr(buf, '\n', (size_t)n) ||
	    memchr(buf, '\0', (size_t)n))
		return kp_err_set(err, KP_EUSAGE, "%s %s: expected one line of at "
				  "most %u bytes", opt, path, KP_SECRET_MAX);
	buf[n] = '\0';
	if (!strcmp(opt, "--push-basic-auth") && !strchr(buf, ':'))
		return kp_err_set(err, KP_EUSAGE, "%s %s: expected 'user:password'",
				  opt, path);
	*out = strdup(buf);
	explicit_bzero(buf, sizeof(buf));
	return *out ? 0 : kp_err_set(err, -ENOMEM, "out of memory");
}

int kp_creds__cacert(const char *path, char **out, size_t *len, struct kp_err *err)
{
	static const char opt[] = "--push-cacert";
	struct stat st;
	char *buf;
	ssize_t n;
	int fd = open_owned(path, opt, 022, "that only it can change (chown it and "
			    "chmod go-w it)", &st, err);

	if (fd < 0)
		return err->code;
	if (st.st_size <= 0 || st.st_size > KP_CACERT_MAX) {
		close(fd);
		return kp_err_set(err, KP_EUSAGE, "%s %s: %lld bytes; expected PEM "
				  "certificates, at most %u bytes", opt, path,
				  (long long)st.st_size, KP_CACERT_MAX);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return kp_err_set(err, -ENOMEM, "out of memory");
	}
	n = read(fd, buf, (size_t)st.st_size + 1);
	close(fd);
	if (n > 0 && n <= st.st_size) {
		buf[n] = '\0';
		if (memmem(buf, (size_t)n, "-----BEGIN CERTIFICATE-----", 27)) {
			*out = buf;
			*len = (size_t)n;
			return 0;
		}
	}
	free(buf);
	return kp_err_set(err, KP_EUSAGE, "%s %s: no PEM certificate in it (expected "
			  "-----BEGIN CERTIFICATE-----)", opt, path);
}
