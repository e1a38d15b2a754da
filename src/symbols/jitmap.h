/* SPDX-License-Identifier: GPL-2.0-only */
/* jitmap.h — JIT symbol maps (/tmp/perf-PID.map: "START SIZE name" per
 * line, hex, as perf reads them), read into a compact table.
 *
 * Owns: the open checks of a map file and its table: entries of 16 bytes
 * (start, size, offset of the name) sorted by address, and every name in
 * one string block (with a jitdump's source lines and the call frame
 * information of its code, jitdump.h). No allocation per line; the table never holds more
 * than the byte limit its reader is given (what is left of the budget of
 * all JIT tables, symbols.c), counting every byte it allocates.
 *
 * Trust: a file is opened only when it is a regular file owned by root or
 * by the process's owner, through O_NOFOLLOW (a symlink is refused), and
 * no larger than KP_JITMAP_MAX_BYTES; in another mount namespace, under
 * the process's root with no symlink anywhere on the path. Lines that do
 * not parse are skipped and counted; at one address the last line wins
 * (the newest code).
 *
 * Who calls it: user.c (per process, at a JIT frame's lookup), tests,
 * bench. Never reads anything but the fd it is given. Stateless and
 * thread-safe; one table is read by one thread at a time.
 */
#ifndef KP_SYMBOLS_JITMAP_H
#define KP_SYMBOLS_JITMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util/cfi-rec.h"	/* KP_JIT_EH_MAX */

#define KP_JITMAP_MAX_BYTES (256u << 20)	/* bigger files are refused */
#define KP_JITMAP_LINE_MAX 4096			/* longer lines are bad lines */

struct kp_jittab;

/* Open path for reading if it may be trusted (see above); owner: the
 * process's uid. st gets the file's identity. An fd, -EPERM for a file
 * that may not be trusted, or another -errno (-ENOENT: no map). */
int kp_jitmap__open(const char *path, uint32_t owner, struct stat *st);
/* The same for path as process pid sees it (absolute, in its mount
 * namespace: a container's /tmp), opened under /proc/PID/root with
 * openat2(RESOLVE_IN_ROOT): a symbolic link anywhere on the path is
 * refused (-EPERM), nothing outside the process's root is reached. */
int kp_jitmap__open_in_root(const char *proc_root, uint32_t pid, const char *path,
			    uint32_t owner, struct stat *st);
/* The same for a file the process has mapped, by its
 * /proc/PID/map_files/START-END link (a jitdump: the file itself, in
 * whatever mount namespace). */
int kp_jitmap__open_mapped(const char *map_file, uint32_t owner, struct stat *st);

/* Read the map at fd (not closed) into *out. The table may hold at most
 * max_bytes (entries and names together): -E2BIG when it would need more
 * (nothing kept). Bad lines are added to *bad_lines. stop (may be NULL)
 * is read atomically between chunks: non-zero abandons the read with
 * -ECANCELED. 0, -E2BIG, -ECANCELED, -ENOMEM or -EIO. */
int kp_jitmap__read(int fd, size_t max_bytes, struct kp_jittab **out,
		    uint64_t *bad_lines, const int *stop);

/* The name of the code at addr, or NULL. Never allocates. */
const char *kp_jittab__lookup(const struct kp_jittab *t, uint64_t addr);
/* The entry holding addr: 1 with *start and *size, 0 if none. */
int kp_jittab__range(const struct kp_jittab *t, uint64_t addr, uint64_t *start,
		     uint64_t *size);
/* The source line of the code at addr (jitdump debug info): 1 with *file
 * (borrowed from t) and *line, 0 if none is known. */
int kp_jittab__source(const struct kp_jittab *t, uint64_t addr, const char **file,
		      uint32_t *line);

/* Building a table (the jitdump reader, jitdump.h): entries and lines in
 * any order, then finish (sorts; at one address the entry added last
 * wins). The byte limit holds as in kp_jitmap__read. add: 0, -EINVAL (a
 * bad entry: size 0 or above 4 GiB, wrapping, no name, a NUL in it),
 * -E2BIG, -ENOMEM; add_line: file NULL is the previous line's file. */
struct kp_jittab *kp_jittab__new(size_t max_bytes);
int kp_jittab__add(struct kp_jittab *t, uint64_t start, uint64_t size,
		   const char *name, size_t len);
int kp_jittab__add_line(struct kp_jittab *t, uint64_t addr, const char *file,
			uint32_t line);
/* The call frame information (.eh_frame records) of the code loaded at
 * addr, its pointers read at eh_vaddr (a jitdump's unwinding info): at
 * most KP_JIT_EH_MAX bytes (util/cfi-rec.h), kept in the table (the later
 * record for one address wins). 0, -EINVAL (empty or too long), -E2BIG,
 * -ENOMEM. */
int kp_jittab__add_unwind(struct kp_jittab *t, uint64_t addr, uint64_t eh_vaddr,
			  const uint8_t *eh, size_t len);
void kp_jittab__finish(struct kp_jittab *t);
/* The call frame information of the code that starts at start: 1 with
 * *eh (borrowed from t), *len and *eh_vaddr, 0 if none. */
int kp_jittab__unwind(const struct kp_jittab *t, uint64_t start, const uint8_t **eh,
		      size_t *len, uint64_t *eh_vaddr);
size_t kp_jittab__count(const struct kp_jittab *t);
/* The name of entry i (address order), i < count. */
const char *kp_jittab__name(const struct kp_jittab *t, size_t i);
/* Bytes the table holds (entries + names + the table itself). */
size_t kp_jittab__bytes(const struct kp_jittab *t);
void kp_jittab__free(struct kp_jittab *t);

#endif /* KP_SYMBOLS_JITMAP_H */
