// SPDX-License-Identifier: GPL-2.0-only
/* snapshot.c — the /proc and cgroup snapshot (see snapshot.h). */
#include "collect/snapshot.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "collect/kp_bpf.h"

#define CGROUP_MAX_DEPTH 32

struct proc_stat {
	char comm[KP_COMM_LEN];
	uint32_t ppid, flags;
	uint64_t start_ticks;
};

/* Read a small file into buf (NUL-terminated); returns length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* /proc/PID/stat: "pid (comm) state ppid ... flags(9) ... starttime(22)". */
static int parse_stat(const char *path, struct proc_stat *ps)
{
	char buf[1024], *open_p, *close_p, *f;
	unsigned long long v;
	size_t len;
	int field;

	if (read_small(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')');
	if (!open_p || !close_p || close_p < open_p)
		return -EINVAL;
	len = (size_t)(close_p - open_p - 1);
	if (len >= KP_COMM_LEN)
		len = KP_COMM_LEN - 1;
	memcpy(ps->comm, open_p + 1, len);
	ps->comm[len] = '\0';
	f = close_p + 2;	/* field 3: state */
	for (field = 3; *f && field <= 22; field++) {
		v = strtoull(f, NULL, 10);
		if (field == 4)
			ps->ppid = (uint32_t)v;
		else if (field == 9)
			ps->flags = (uint32_t)v;
		else if (field == 22)
			ps->start_ticks = v;
		f = strchr(f, ' ');
		if (!f)
			break;
		f++;
	}
	return field > 22 ? 0 : -EINVAL;
}

/* CLOCK_BOOTTIME - CLOCK_MONOTONIC: /proc start times count from boot. */
static uint64_t boot_offset_ns(void)
{
	struct timespec b, m;

	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return (uint64_t)(b.tv_sec - m.tv_sec) * 1000000000ull +
	       (uint64_t)(b.tv_nsec - m.tv_nsec);
}

void kp_snapshot__proc_info(uint32_t pid, uint32_t tid, char *comm, char *exe,
			    uint32_t *uid)
{
	char path[64];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	n = read_small(path, comm, KP_COMM_LEN);
	if (n < 0)
		n = 0;
	comm[n] = '\0';
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
	if (exe) {
		snprintf(path, sizeof(path), "/proc/%u/exe", pid);
		n = readlink(path, exe, KP_PATH_MAX - 1);
		exe[n < 0 ? 0 : n] = '\0';
	}
	snprintf(path, sizeof(path), "/proc/%u", pid);
	*uid = stat(path, &st) ? 0 : (uint32_t)st.st_uid;
}

static void emit_threads(struct kp_emit *e, uint32_t pid, uint64_t now)
{
	struct kp_record r = { .type = KP_REC_THREAD };
	struct proc_stat ps;
	char path[96];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%.16s/stat", pid, de->d_name);
		if (parse_stat(path, &ps))
			continue;
		r.thread = (struct kp_rec_thread){ .time_ns = now, .pid = pid,
			.tid = (uint32_t)strtoul(de->d_name, NULL, 10), .comm = ps.comm };
		kp_emit(e, &r);
	}
	closedir(d);
}

/* One maps line: "start-end perms offset maj:min inode   path"; -EINVAL
 * for a line that is not an executable mapping. */
static int parse_maps_line(char *line, struct kp_rec_mmap *m)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int pos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms,
		   &off, &maj, &min, &ino, &pos) < 7 || perms[2] != 'x')
		return -EINVAL;	/* not an executable mapping line */
	line[strcspn(line, "\n")] = '\0';
	m->addr = start;
	m->len = end - start;
	m->pgoff = off;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->path = pos > 0 && line[pos] ? line + pos : "//anon";
	return 0;
}

static void emit_maps(struct kp_emit *e, uint32_t pid, uint64_t now)
{
	struct kp_record r = { .type = KP_REC_MMAP };
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		memset(&r.mmap, 0, sizeof(r.mmap));
		if (parse_maps_line(line, &r.mmap))
			continue;
		r.mmap.time_ns = now;
		r.mmap.pid = r.mmap.tid = pid;
		kp_emit(e, &r);
	}
	free(line);
	fclose(f);
}

static void emit_process(struct kp_emit *e, uint32_t pid, uint64_t now,
			 uint64_t boot_off, long hz, char *exe)
{
	struct kp_record r = { .type = KP_REC_PROCESS };
	struct proc_stat ps;
	char path[64], comm[KP_COMM_LEN];
	uint32_t uid;
	uint64_t start;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (parse_stat(path, &ps))
		return;		/* gone */
	kp_snapshot__proc_info(pid, pid, comm, exe, &uid);
	start = ps.start_ticks * (1000000000ull / (uint64_t)hz);
	r.process = (struct kp_rec_process){
		.time_ns = now, .start_ns = start > boot_off ? start - boot_off : 0,
		.pid = pid, .ppid = ps.ppid, .gpid = pid, .uid = uid,
		.flags = KP_PROC_SNAPSHOT |
			 ((ps.flags & KP_PF_KTHREAD) ? KP_PROC_KTHREAD : 0),
		.comm = ps.comm, .exe = exe,
	};
	kp_emit(e, &r);
	if (ps.flags & KP_PF_KTHREAD)
		return;
	emit_threads(e, pid, now);
	emit_maps(e, pid, now);
}

int kp_snapshot__procs(struct kp_emit *e)
{
	uint64_t now = kp_mono_ns(), boot_off = boot_offset_ns();
	long hz = sysconf(_SC_CLK_TCK);
	struct dirent *de;
	char *exe;
	DIR *d;

	if (hz <= 0)
		hz = 100;
	exe = malloc(KP_PATH_MAX);
	if (!exe)
		return -ENOMEM;
	d = opendir("/proc");
	if (!d) {
		free(exe);
		return -errno;
	}
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			emit_process(e, (uint32_t)strtoul(de->d_name, NULL, 10),
				     now, boot_off, hz, exe);
	closedir(d);
	free(exe);
	return 0;
}

/* path: absolute directory; rel_off: where the cgroup-relative part starts. */
static void walk_cgroups(struct kp_emit *e, char *path, size_t rel_off,
			 int depth, uint64_t now)
{
	struct kp_record r = { .type = KP_REC_CGROUP };
	size_t len = strlen(path);
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (stat(path, &st))
		return;
	r.cgroup = (struct kp_rec_cgroup){ .time_ns = now, .id = st.st_ino,
		.path = path[rel_off] ? path + rel_off : "/" };
	kp_emit(e, &r);
	if (depth >= CGROUP_MAX_DEPTH || !(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (len + strlen(de->d_name) + 2 >= KP_PATH_MAX)
			continue;
		path[len] = '/';
		strcpy(path + len + 1, de->d_name);
		walk_cgroups(e, path, rel_off, depth + 1, now);
		path[len] = '\0';
	}
	closedir(d);
}

/* The cgroup2 mount point from /proc/self/mounts into path; 0 or -ENOENT
 * (no cgroup2: nothing to walk). Hybrid hierarchies mount it at
 * /sys/fs/cgroup/unified. */
static int cgroup2_mount(char *path)
{
	char *line = NULL, dev[64], mnt[1024], type[64];
	size_t cap = 0;
	int ret = -ENOENT;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return -errno;
	while (ret && getline(&line, &cap, f) > 0)
		if (sscanf(line, "%63s %1023s %63s", dev, mnt, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			strcpy(path, mnt);
			ret = 0;
		}
	free(line);
	fclose(f);
	return ret;
}

int kp_snapshot__cgroups(struct kp_emit *e, const char *root)
{
	char *path = malloc(KP_PATH_MAX);
	size_t len;

	if (!path)
		return -ENOMEM;
	if (!root) {
		if (cgroup2_mount(path)) {
			free(path);
			return 0;
		}
	} else if (strlen(root) < KP_PATH_MAX) {
		strcpy(path, root);
	} else {
		free(path);
		return -ENAMETOOLONG;
	}
	len = strlen(path);
	if (len == 1)
		len = 0;	/* mounted at "/": relative paths start at once */
	walk_cgroups(e, path, len, 0, kp_mono_ns());
	free(path);
	return 0;
}
