/* SPDX-License-Identifier: GPL-2.0-only */
/* procfs.h — opening the files of another process safely: the exact file
 * it has mapped, and paths inside its root (containers, chroots).
 *
 * kptop runs as root and the paths come from processes any user runs, so:
 * a mapped file is opened through /proc/PID/map_files/START-END (the very
 * file mapped, even deleted or replaced) or else through /proc/PID/root
 * with openat2(RESOLVE_IN_ROOT) (symlinks and ".." never leave the
 * process's root); either way its device and inode must match the
 * mapping's, or the open is refused (-ESTALE). pid 0 means "no process":
 * the path is opened on the host, still with the device/inode check when
 * the mapping has an inode.
 *
 * Returns file descriptors the caller closes, or -errno. Stateless,
 * thread-safe.
 */
#ifndef KP_SYMBOLS_PROCFS_H
#define KP_SYMBOLS_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct kp_proc_file {
	const char *proc_root;		/* "/proc" or a test override */
	uint32_t pid;			/* 0: the host, no process */
	uint64_t start, end;		/* the mapping, for map_files */
	uint32_t maj, min;
	uint64_t ino;			/* 0: no identity check possible */
	const char *path;		/* as the process sees it */
};

/* Open the mapped file read-only. On success *st is its stat and, when
 * safe_path is not NULL, a path that opens the same file is written there
 * (the map_files link, or the path under /proc/PID/root). */
int kp_procfs__open_mapped(const struct kp_proc_file *f, struct stat *st,
			 char *safe_path, size_t safe_len);

/* Turn an O_PATH descriptor of a regular file into a readable one (pfd
 * is closed either way). A device, FIFO or socket is never opened for
 * reading (no side effects): -EINVAL. */
int kp_procfs__reopen_regular(int pfd);

/* Open path (absolute, as seen by pid) inside the process's root, never
 * following anything out of it. pid 0: on the host. O_RDONLY|O_CLOEXEC,
 * regular files only (-EINVAL otherwise). */
int kp_procfs__open_in_root(const char *proc_root, uint32_t pid, const char *path);

/* The mapping path without a " (deleted)" suffix, into buf. */
void kp_procfs__strip_deleted(const char *path, char *buf, size_t len);

/* Owner uid of the process (from /proc/PID), or -errno. */
int kp_procfs__uid(const char *proc_root, uint32_t pid, uint32_t *uid);

/* The process's pid in its own (innermost) pid namespace, from the NSpid
 * line of /proc/PID/status (pid itself without that line), or -errno. */
int kp_procfs__nspid(const char *proc_root, uint32_t pid, uint32_t *nspid);

/* 1 if the process's mount namespace is the caller's own, 0 if not (its
 * files are then found under /proc/PID/root), or -errno. */
int kp_procfs__same_mntns(const char *proc_root, uint32_t pid);

#endif /* KP_SYMBOLS_PROCFS_H */
