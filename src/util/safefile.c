// SPDX-License-Identifier: GPL-2.0-only
/* safefile.c — the checked path walk, the new file and its rename into
 * place (see safefile.h for the rules). */
#include "util/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KP_SAFE_MAX_LINKS 40	/* as the kernel's MAXSYMLINKS */
#define KP_SAFE_TRIES 100	/* names tried for the new file */

struct kp_safefile {
	FILE *fp;
	int dirfd;		/* the directory, held open since the walk */
	char *path;		/* as given, for messages */
	char *name;		/* its last component */
	char *tmp;		/* the new file's name in dirfd */
	char *tmp_path;		/* ... and as a path, for messages */
};

static int walk(int fd, char *dir, int *links, const char *path,
		struct kp_err *err);

static int no_dir(const char *path, int e, struct kp_err *err)
{
	return kp_err_set(err, e, "%s: cannot create: %s", path, strerror(-e));
}

/* fs.protected_symlinks' rule: a link in a sticky world-writable
 * directory is followed only when it is ours or the directory owner's. */
static int may_follow(int fd, const struct stat *lnk)
{
	struct stat d;

	if (fstat(fd, &d))
		return 0;
	if ((d.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
		return 1;
	return lnk->st_uid == geteuid() || lnk->st_uid == d.st_uid;
}

/* The link c in fd: its target, walked by the same rules. */
static int follow(int fd, const char *c, int *links, const char *path,
		  struct kp_err *err)
{
	char *target = malloc(PATH_MAX);
	ssize_t n;
	int start, rc;

	if (!target)
		return kp_err_set(err, -ENOMEM, "out of memory");
	n = readlinkat(fd, c, target, PATH_MAX - 1);
	if (n < 0) {
		rc = no_dir(path, -errno, err);
		free(target);
		return rc;
	}
	target[n] = '\0';
	start = target[0] == '/' ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) :
		fcntl(fd, F_DUPFD_CLOEXEC, 0);
	rc = start < 0 ? no_dir(path, -errno, err) :
		walk(start, target, links, path, err);
	free(target);
	return rc;
}

/* The directory c below fd: a new O_PATH descriptor, or a refusal. */
static int step(int fd, const char *c, int *links, const char *path,
		struct kp_err *err)
{
	struct stat st;
	int nfd;

	if (fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW))
		return no_dir(path, -errno, err);
	if (S_ISLNK(st.st_mode)) {
		if (!may_follow(fd, &st))
			return kp_err_set(err, -ELOOP, "%s: '%s' on the way is another "
					  "user's (uid %u) symbolic link in a shared "
					  "directory; refusing to follow it (name the "
					  "real directory)", path, c, (unsigned)st.st_uid);
		if (++*links > KP_SAFE_MAX_LINKS)
			return no_dir(path, -ELOOP, err);
		return follow(fd, c, links, path, err);
	}
	/* O_NOFOLLOW: a link swapped in since the fstatat fails here */
	nfd = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return nfd < 0 ? no_dir(path, -errno, err) : nfd;
}

/* Walk the directories of dir (cut up in place) from fd, which is closed;
 * returns the last one's descriptor. */
static int walk(int fd, char *dir, int *links, const char *path,
		struct kp_err *err)
{
	char *save = NULL, *c;
	int nfd;

	for (c = strtok_r(dir, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		nfd = step(fd, c, links, path, err);
		close(fd);
		if (nfd < 0)
			return nfd;
		fd = nfd;
	}
	return fd;
}

/* Split path into its directory (walked and held in f->dirfd) and name. */
static int locate(struct kp_safefile *f, const char *path, struct kp_err *err)
{
	const char *slash = strrchr(path, '/');
	int fd, links = 0;
	char *dir;

	f->path = strdup(path);
	f->name = strdup(slash ? slash + 1 : path);
	dir = strndup(path, slash ? (size_t)(slash - path) : 0);
	if (!f->path || !f->name || !dir) {
		free(dir);
		return kp_err_set(err, -ENOMEM, "out of memory");
	}
	if (!*f->name || !strcmp(f->name, ".") || !strcmp(f->name, "..")) {
		free(dir);
		return kp_err_set(err, -EISDIR, "%s: names a directory; refusing to "
				  "write to it (add a file name)", path);
	}
	fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	fd = fd < 0 ? no_dir(path, -errno, err) : walk(fd, dir, &links, path, err);
	free(dir);
	if (fd < 0)
		return fd;
	f->dirfd = fd;
	return 0;
}

static const char *kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* 0 when the name may be replaced: free (*exists = 0) or our regular file.
 * Looks, never opens. */
static int check_target(const struct kp_safefile *f, int *exists,
			struct kp_err *err)
{
	struct stat st;

	*exists = 0;
	if (fstatat(f->dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : kp_err_set(err, -errno, "%s: %s",
							f->path, strerror(errno));
	*exists = 1;
	if (S_ISLNK(st.st_mode))
		return kp_err_set(err, -ELOOP, "%s: is a symbolic link; refusing to "
				  "write through it (remove it or choose another "
				  "path)", f->path);
	if (!S_ISREG(st.st_mode))
		return kp_err_set(err, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
				  "%s: is %s; refusing to write to it (choose "
				  "another path)", f->path, kind(st.st_mode));
	if (st.st_uid != geteuid())
		return kp_err_set(err, -EPERM, "%s: belongs to another user (uid "
				  "%u); refusing to replace it (remove it or choose "
				  "another path)", f->path, (unsigned)st.st_uid);
	return 0;
}

/* Six random letters and digits (the clock and pid when getrandom fails:
 * O_EXCL keeps the file safe, the randomness only avoids retries). */
static void suffix(char out[7], unsigned try)
{
	static const char az[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];
	struct timespec ts;
	uint64_t x;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)getpid() << 24 ^ try;
		for (int i = 0; i < 6; i++)
			r[i] = (unsigned char)(x >> (8 * i));
	}
	for (int i = 0; i < 6; i++)
		out[i] = az[r[i] % (sizeof(az) - 1)];
	out[6] = '\0';
}

static int create_tmp(struct kp_safefile *f, struct kp_err *err)
{
	size_t n = strlen(f->name) + sizeof(".tmpXXXXXX");
	size_t dirlen = strlen(f->path) - strlen(f->name);
	char *tmp = malloc(n), sfx[7];
	int fd = -1, e;

	f->tmp_path = malloc(dirlen + n);
	if (!tmp || !f->tmp_path) {
		free(tmp);
		return kp_err_set(err, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < KP_SAFE_TRIES && fd < 0; i++) {
		suffix(sfx, i);
		snprintf(tmp, n, "%s.tmp%s", f->name, sfx);
		fd = openat(f->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		e = -errno;
		free(tmp);
		return kp_err_set(err, e, "%s: cannot create: %s", f->path, strerror(-e));
	}
	f->tmp = tmp;	/* ours from here: abort removes it */
	snprintf(f->tmp_path, dirlen + n, "%.*s%s", (int)dirlen, f->path, tmp);
	f->fp = fdopen(fd, "w");
	if (!f->fp) {
		e = -errno;
		close(fd);
		return kp_err_set(err, e, "%s: %s", f->path, strerror(-e));
	}
	return 0;
}

static void release(struct kp_safefile *f)
{
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->path);
	free(f->name);
	free(f->tmp);
	free(f->tmp_path);
	free(f);
}

struct kp_safefile *kp_safefile__open(const char *path, struct kp_err *err)
{
	struct kp_safefile *f = calloc(1, sizeof(*f));
	int rc, exists;

	if (!f) {
		kp_err_set(err, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	f->dirfd = -1;
	rc = locate(f, path, err);
	if (rc == 0)
		rc = check_target(f, &exists, err);
	if (rc == 0)
		rc = create_tmp(f, err);
	if (rc) {
		kp_safefile__abort(f);
		errno = rc < 0 && rc > -KP_ERR_BASE ? -rc : EINVAL;
		return NULL;
	}
	return f;
}

int kp_safefile__check(const char *path, struct kp_err *err)
{
	struct kp_safefile *f = calloc(1, sizeof(*f));
	int rc, exists;

	if (!f)
		return kp_err_set(err, -ENOMEM, "out of memory");
	f->dirfd = -1;
	rc = locate(f, path, err);
	if (rc == 0)
		rc = check_target(f, &exists, err);
	release(f);
	return rc;
}

FILE *kp_safefile__stream(const struct kp_safefile *f)
{
	return f->fp;
}

void kp_safefile__abort(struct kp_safefile *f)
{
	if (!f)
		return;
	if (f->fp)
		fclose(f->fp);
	if (f->tmp && f->dirfd >= 0)
		unlinkat(f->dirfd, f->tmp, 0);
	release(f);
}

static int flush_close(struct kp_safefile *f, struct kp_err *err)
{
	int e = 0;

	if (ferror(f->fp))
		e = -EIO;
	else if (fflush(f->fp) || fsync(fileno(f->fp)))
		e = -errno;
	if (fclose(f->fp) && !e)
		e = -errno;
	f->fp = NULL;
	if (e)
		return kp_err_set(err, e, "%s: write failed: %s", f->path, strerror(-e));
	return 0;
}

/* Give the new file a name that was free: never replace what appeared
 * meanwhile. -1 with errno set on failure. */
static int rename_new(const struct kp_safefile *f)
{
	if (renameat2(f->dirfd, f->tmp, f->dirfd, f->name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* a file system without RENAME_NOREPLACE: a hard link never replaces */
	if (linkat(f->dirfd, f->tmp, f->dirfd, f->name, 0) == 0) {
		unlinkat(f->dirfd, f->tmp, 0);
		return 0;
	}
	if (errno == EEXIST)
		return -1;
	return renameat(f->dirfd, f->tmp, f->dirfd, f->name);	/* nor links */
}

static int put_in_place(const struct kp_safefile *f, struct kp_err *err)
{
	int exists, rc = check_target(f, &exists, err);

	if (rc)
		return rc;
	if ((exists ? renameat(f->dirfd, f->tmp, f->dirfd, f->name) :
	     rename_new(f)) == 0)
		return 0;
	if (errno == EEXIST)
		return kp_err_set(err, -EEXIST, "%s: was created by someone else "
				  "while kptop ran; refusing to replace it (remove "
				  "it or choose another path)", f->path);
	return kp_err_set(err, -errno, "%s: rename failed: %s", f->path,
			  strerror(errno));
}

int kp_safefile__commit(struct kp_safefile *f, struct kp_err *err)
{
	char msg[KP_ERR_MSG];
	int rc, fd;

	rc = flush_close(f, err);
	if (rc) {	/* incomplete: not worth keeping */
		kp_safefile__abort(f);
		return rc;
	}
	rc = put_in_place(f, err);
	if (rc) {	/* complete but refused: kept, and said where */
		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		kp_err_set(err, rc, "%s; the data is kept in %s", msg, f->tmp_path);
		release(f);
		return rc;
	}
	fd = openat(f->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {	/* make the rename durable; best effort */
		fsync(fd);
		close(fd);
	}
	release(f);
	return 0;
}
