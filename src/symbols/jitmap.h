/* jitmap.h — JIT symbol maps (/tmp/perf-PID.map: "START SIZE name" per
 * line, hex, as perf reads them).
 *
 * The file is read only when it is a regular file owned by root or by the
 * process's owner, opened with O_NOFOLLOW (a symlink is refused), and no
 * larger than a cap. Lines that do not parse are skipped and counted.
 * Returns a finished kp_symtab (absolute addresses) the caller frees.
 * Stateless, thread-safe.
 */
#ifndef KP_SYMBOLS_JITMAP_H
#define KP_SYMBOLS_JITMAP_H

#include <stdint.h>
#include <sys/types.h>

#include "symbols/symtab.h"

#define KP_JITMAP_MAX_BYTES (256u << 20)

struct kp_jitmap_result {
	uint64_t bad_lines;
	int refused;		/* 1: the file exists but may not be trusted */
	off_t size;		/* bytes read, to notice the file growing */
};

/* path: the map file; owner: the process's uid. NULL with errno (ENOENT,
 * EPERM for a refused file, ENOMEM). */
struct kp_symtab *kp_jitmap__load(const char *path, uint32_t owner,
				  struct kp_jitmap_result *r);

#endif /* KP_SYMBOLS_JITMAP_H */
