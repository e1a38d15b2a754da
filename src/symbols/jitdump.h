/* SPDX-License-Identifier: GPL-2.0-only */
/* jitdump.h — jitdump files (jit-PID.dump: Node --perf-prof, Python 3.13
 * -X perf_jit, Java agents, .NET, LuaJIT, wasmtime), as perf's
 * tools/perf/util/jitdump.h documents them, read into a JIT table
 * (jitmap.h).
 *
 * Records: code load names its code (at one address the later record
 * wins, as in a perf map); code move gives a loaded code's name to its
 * new address (found by its code index); debug info gives source lines
 * (an entry's file "\xff" is the previous entry's); unwinding info gives
 * the next code load its .eh_frame (kp_jittab__unwind: the data less its
 * .eh_frame_hdr, at most KP_JIT_EH_MAX bytes, laid out after the code
 * as perf's reader does: at the code's address plus its size rounded up
 * to 8; a record that is all header gives none; a code move drops it);
 * close is skipped (the code bytes are not
 * kept); unknown record types are skipped by their size.
 *
 * Hostile input: the header must be a little-endian jitdump's (magic
 * "JiTD", version 1, a size of at least 40 bytes): else -EPROTO, nothing
 * kept. Every record's size is checked against the file and its own
 * fields (a name or file name must end inside its record, debug entries
 * must fit); a record that does not is skipped and counted in
 * *bad_records, and one of more than KP_JITDUMP_REC_MAX bytes too. A
 * truncated last record (a runtime still writing) ends the read. Code
 * moves are resolved for at most KP_JITDUMP_MAX_INDEX code indexes.
 * The table holds at most max_bytes (-E2BIG, nothing kept), as a perf
 * map's; files are opened with the same checks (kp_jitmap__open*).
 *
 * Who calls it: jitworker.c and jitcache.c (a process's dump), the fuzz
 * target, tests. Reads only the fd it is given (pread: its offset is not
 * moved). Stateless, thread-safe.
 */
#ifndef KP_SYMBOLS_JITDUMP_H
#define KP_SYMBOLS_JITDUMP_H

#include <stddef.h>
#include <stdint.h>

#define KP_JITDUMP_REC_MAX (16u << 20)	/* bigger records are skipped */
#define KP_JITDUMP_MAX_INDEX (1u << 20)	/* code indexes kept for moves */

struct kp_jittab;

/* Read the jitdump at fd into *out. stop (may be NULL) is read between
 * records: non-zero abandons the read with -ECANCELED. 0, -EPROTO (not a
 * jitdump), -E2BIG, -ECANCELED, -ENOMEM or -EIO. */
int kp_jitdump__read(int fd, size_t max_bytes, struct kp_jittab **out,
		     uint64_t *bad_records, const int *stop);

/* 1 if the file name (no directory) is a jitdump's: jit-PID.dump. */
int kp_jitdump__is_name(const char *base);

#endif /* KP_SYMBOLS_JITDUMP_H */
