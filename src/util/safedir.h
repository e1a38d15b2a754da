/* SPDX-License-Identifier: GPL-2.0-only */
/* safedir.h — a private directory that a library writes into by path
 * (libdebuginfod's cache): kptop runs as root, and a library that opens
 * PATH/x by name follows whatever another user can put there.
 *
 * Owns: the checks on such a directory, and its making where missing.
 * Who calls it: symbols/debuginfod.c (the cache directory), tests.
 *
 * The rules, on the directory's real path (symbolic links resolved once,
 * that path handed back for the library to use):
 *  - every directory from / down to it belongs to root or to kptop's
 *    effective uid, and none is writable by group or others unless it
 *    is sticky (/tmp; then the next one must be ours): nobody else can
 *    rename, replace or plant anything on the way, now or later;
 *  - the directory itself belongs to kptop's effective uid, is mode 0700
 *    (no access for group or others: the files it holds come to root),
 *    and is empty or holds the file marker (libdebuginfod's
 *    "cache_clean_interval_s"): libdebuginfod deletes the files in its
 *    cache left unused for a week, so another directory is refused;
 *  - missing directories at the end of the path are made, mode 0700.
 *
 * Errors: a negative errno and a one-line message "PATH: WHAT; refusing
 * to use it as WHAT-FOR (WHAT TO DO)" in err. Never exits or prints;
 * removes nothing; changes no mode. Thread-safe (no state).
 */
#ifndef KP_UTIL_SAFEDIR_H
#define KP_UTIL_SAFEDIR_H

#include <stddef.h>

#include "util/kp_err.h"

/* Check (and make) directory path for use as what (for messages, "the
 * debuginfod cache"); its real path in real[0..len). 0 or -errno. */
int kp_safedir__private(const char *path, const char *marker, const char *what,
			char *real, size_t len, struct kp_err *err);

#endif /* KP_UTIL_SAFEDIR_H */
