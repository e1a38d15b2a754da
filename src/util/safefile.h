/* SPDX-License-Identifier: GPL-2.0-only */
/* safefile.h — writing a file where another user may have planted
 * something: kptop runs as root and may be told to write into /tmp.
 *
 * Owns: the checks on an output path and the new file that a report or a
 * stream is written to before it takes the path's name. Every file kptop
 * writes goes through here: -o (kptop.c), -w and the live view's w key
 * (pump-save.c), the push spool's profiles (push/spool.c), and any
 * cache file to come. Standard output
 * (-o -) is the caller's business.
 *
 * The rules, checked when the file is opened (so a bad path is refused
 * before sampling) and again just before it is put in place:
 *  - The last component is never followed: a symbolic link there, even a
 *    dangling one, is refused.
 *  - A symbolic link in the directory part is followed as the kernel's
 *    fs.protected_symlinks would, whatever that sysctl says: refused when
 *    it sits in a sticky world-writable directory (/tmp) and belongs to
 *    neither kptop's effective uid nor that directory's owner. The walk
 *    holds each directory open, so nothing can be swapped in behind it.
 *  - What already has the name must be a regular file owned by kptop's
 *    effective uid, or nothing: a FIFO, a device, a socket, a directory
 *    or another user's file is refused, and never opened or truncated.
 *  - The data goes to a new file, NAME.tmpXXXXXX in the same directory,
 *    created with O_CREAT|O_EXCL|O_NOFOLLOW and mode 0600 (the umask may
 *    take more away, never add: a profile names every process on the
 *    machine). Commit syncs it and renames it over the name; where the
 *    name was free, with RENAME_NOREPLACE, so a file planted meanwhile is
 *    refused too. An existing file is replaced, never written into: its
 *    inode, owner, mode and other hard links are left as they were.
 *  - When the checks fail at commit, the new file is kept and the message
 *    names it: collected data is never lost silently.
 *
 * Errors: a negative errno and a one-line message "PATH: WHAT; refusing
 * to ... (WHAT TO DO)" in err. Never exits, prints, follows a refused
 * link, or removes anything but its own new file.
 */
#ifndef KP_UTIL_SAFEFILE_H
#define KP_UTIL_SAFEFILE_H

#include <stdio.h>

#include "util/kp_err.h"

struct kp_safefile;

/* Check path and create its new file. NULL (errno set, err filled) when
 * the path is refused or the file cannot be created. */
struct kp_safefile *kp_safefile__open(const char *path, struct kp_err *err);

/* The checks of kp_safefile__open alone, creating nothing: 0 when path
 * may be written now (for a file opened later, such as -w's). */
int kp_safefile__check(const char *path, struct kp_err *err);

/* The stream to write to until commit or abort; buffered, owned by f. */
FILE *kp_safefile__stream(const struct kp_safefile *f);

/* Flush, sync, check the path again and rename the file into place; frees
 * f in every case. On a write error the new file is removed; on a refusal
 * it is kept and err names it. */
int kp_safefile__commit(struct kp_safefile *f, struct kp_err *err);

/* Close and remove the new file; frees f. NULL is a no-op. */
void kp_safefile__abort(struct kp_safefile *f);

#endif /* KP_UTIL_SAFEFILE_H */
