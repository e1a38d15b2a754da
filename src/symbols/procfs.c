// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/openat2.h>

static int same_file(const struct kp_proc_file *f, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return 0;
	if (!f->ino && !f->maj && !f->min)
		return 1;	/* nothing to compare with */
	if (f->ino && (uint64_t)st->st_ino != f->ino)
		return 0;
	if ((f->maj || f->min) && (major(st->st_dev) != f->maj ||
				    minor(st->st_dev) != f->min))
		return 0;
	return 1;
}

int kp_procfs__reopen_regular(int pfd)
{
	char self[64];
	struct stat st;
	int fd;

	if (fstat(pfd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(pfd);
		return -EINVAL;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		fd = -errno;
	close(pfd);
	return fd;
}

static int open_checked(const char *path, const struct kp_proc_file *f,
			struct stat *st)
{
	int pfd = open(path, O_PATH | O_CLOEXEC), fd;

	if (pfd < 0)
		return -errno;
	fd = kp_procfs__reopen_regular(pfd);
	if (fd < 0)
		return fd;
	if (fstat(fd, st) != 0 || !same_file(f, st)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

void kp_procfs__strip_deleted(const char *path, char *buf, size_t len)
{
	static const char suffix[] = " (deleted)";
	size_t n = strlen(path), s = sizeof(suffix) - 1;

	snprintf(buf, len, "%s", path);
	if (n > s && n < len && strcmp(path + n - s, suffix) == 0)
		buf[n - s] = '\0';
}

static int open_root_checked(const struct kp_proc_file *f, struct stat *st)
{
	char clean[4096];
	int fd;

	kp_procfs__strip_deleted(f->path, clean, sizeof(clean));
	fd = kp_procfs__open_in_root(f->proc_root, f->pid, clean);
	if (fd < 0)
		return fd;
	if (fstat(fd, st) != 0 || !same_file(f, st)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int kp_procfs__open_mapped(const struct kp_proc_file *f, struct stat *st,
			 char *safe_path, size_t safe_len)
{
	char mf[128];
	int fd;

	if (!f->path || f->path[0] != '/')
		return -ENOENT;
	if (f->pid) {
		snprintf(mf, sizeof(mf), "%s/%u/map_files/%llx-%llx",
			 f->proc_root, f->pid, (unsigned long long)f->start,
			 (unsigned long long)f->end);
		fd = open_checked(mf, f, st);
		if (fd >= 0) {
			if (safe_path)
				snprintf(safe_path, safe_len, "%s", mf);
			return fd;
		}
	}
	fd = open_root_checked(f, st);
	if (fd >= 0 && safe_path) {
		char clean[4096];

		kp_procfs__strip_deleted(f->path, clean, sizeof(clean));
		if (f->pid)
			snprintf(safe_path, safe_len, "%s/%u/root%s",
				 f->proc_root, f->pid, clean);
		else
			snprintf(safe_path, safe_len, "%s", clean);
	}
	return fd;
}

int kp_procfs__open_in_root(const char *proc_root, uint32_t pid, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char root[128];
	int dfd, fd;

	if (!path || path[0] != '/')
		return -ENOENT;
	if (!pid) {
		fd = open(path, (int)how.flags);
		if (fd < 0)
			return -errno;
	} else {
		snprintf(root, sizeof(root), "%s/%u/root", proc_root, pid);
		dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return -errno;
		fd = (int)syscall(SYS_openat2, dfd, path + 1, &how, sizeof(how));
		if (fd < 0)
			fd = -errno;
		close(dfd);
		if (fd < 0)
			return fd;
	}
	return kp_procfs__reopen_regular(fd);
}

int kp_procfs__uid(const char *proc_root, uint32_t pid, uint32_t *uid)
{
	char p[128];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%u", proc_root, pid);
	if (stat(p, &st) != 0)
		return -errno;
	*uid = st.st_uid;
	return 0;
}

int kp_procfs__nspid(const char *proc_root, uint32_t pid, uint32_t *nspid)
{
	char p[128], line[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%u/status", proc_root, pid);
	if (!(f = fopen(p, "re")))
		return -errno;
	*nspid = pid;
	while (fgets(line, sizeof(line), f)) {
		char *last, *end;
		unsigned long v;

		if (strncmp(line, "NSpid:", 6))
			continue;
		line[strcspn(line, "\n")] = '\0';
		last = strrchr(line, '\t');
		last = last ? last + 1 : line + 6;
		v = strtoul(last, &end, 10);
		if (end != last && !*end && v && v <= UINT32_MAX)
			*nspid = (uint32_t)v;
		break;
	}
	fclose(f);
	return 0;
}

int kp_procfs__same_mntns(const char *proc_root, uint32_t pid)
{
	char p[128];
	struct stat a, b;

	snprintf(p, sizeof(p), "%s/%u/ns/mnt", proc_root, pid);
	if (stat(p, &a) != 0)
		return -errno;
	if (stat("/proc/self/ns/mnt", &b) != 0)
		return -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
