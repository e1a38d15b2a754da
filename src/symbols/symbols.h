/* SPDX-License-Identifier: GPL-2.0-only */
/* symbols.h — a truthful name for every frame: user addresses through the
 * binaries processes map (ELF symbols, separate debug files, MiniDebugInfo,
 * DWARF lines and inlined frames, demangled C++/Rust, debug files fetched
 * from debuginfod servers), [vdso], JIT maps
 * (/tmp/perf-PID.map) and the kernel (/proc/kallsyms).
 *
 * Owns: a cache of modules shared by every process that maps them (key:
 * build-id, else device + inode + mtime: one module per file), loaded
 * once, kept when no process uses them any more (kp_symbols__process_gone)
 * up to a count, least recently used freed first, and within a byte
 * bound with the JIT tables (max_bytes: past it unused modules go, then
 * the DWARF of the least recently used); per-process
 * mapping tables; JIT tables (one per map file, shared by the processes
 * whose map it is, all together within a byte budget); the kernel
 * symbol table; when asked for (opts.dwarf_cache), the persistent cache
 * of inflated DWARF on disk (dwcache.h).
 *
 * Who calls it: src/pump/resolve.c (the model's resolver), tests, bench, fuzz.
 * It never includes model, collect or curses.
 *
 * Lifetime of results: strings in kp_sym_frame (and module names) are
 * borrowed: valid until the next call on the same kp_symbols (copy what you
 * keep; resolve.c interns them). A frame nothing can name gives 0 frames:
 * the caller shows module+0xoffset, or, where the file's .eh_frame says
 * where its function starts (kp_symbols__user_start), one row for that
 * function. Never a wrong name: an address outside every symbol's range
 * is unknown, not its neighbour's.
 *
 * Safety: kptop runs as root and reads files users can plant. Mapped files
 * are opened through /proc/PID/map_files or /proc/PID/root with a
 * device/inode check (procfs.h), never the new file at an old path; every
 * size/offset/string of ELF and DWARF is checked; files over a size cap
 * are refused.
 *
 * Errors: 0 / counts or -errno (util/kp_err.h); constructor NULL with errno
 * and a message in err. Not thread-safe: one thread uses one kp_symbols
 * (which may read JIT maps in a thread of its own: jit_wait_ms, and fetch
 * debug files in another: debuginfod).
 */
#ifndef KP_SYMBOLS_SYMBOLS_H
#define KP_SYMBOLS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "util/kp_err.h"

struct kp_symbols_opts {
	/* Debug file roots, NULL-terminated; NULL: {"/usr/lib/debug", NULL}. */
	const char *const *debug_dirs;
	int no_demangle;		/* 1: names stay mangled */
	const char *kallsyms;		/* NULL: "/proc/kallsyms" */
	const char *proc_root;		/* NULL: "/proc" */
	const char *jit_dir;		/* NULL: "/tmp" (perf-PID.map) */
	/* Bytes all JIT tables together may hold (0: 128 MiB); a map that
	 * would need more is refused (jit_refused). */
	uint64_t jit_budget;
	/* 0: a JIT map is read by the lookup that needs it; N: by a thread
	 * of kp_symbols' own, the lookup waiting for it at most N ms (code
	 * looked up meanwhile stays unnamed): for the live view. */
	unsigned jit_wait_ms;
	uint64_t max_file_size;		/* 0: 1 GiB; bigger files are refused */
	/* Modules no process maps any more stay loaded for the next
	 * process that maps them, least recently used freed first:
	 * 0: keep 64; N: keep N - 1 (1: free them at once). */
	unsigned keep_idle_modules;
	/* Bytes the modules (symbol tables, name caches, and DWARF: libdw's
	 * state and the sections libelf inflated, as measured on the heap)
	 * and the JIT tables may hold together, 0: no bound. Past it,
	 * unused modules are freed and then the DWARF of modules in use is
	 * ended, least recently used first (begun again when a name needs
	 * it; never that of a module looked up in the last dwarf_keep_ms). */
	uint64_t max_bytes;
	/* 0: 2 s; N: N - 1 ms (1: DWARF may be ended at once). */
	unsigned dwarf_keep_ms;
	/* 1: the debug file of a module that has none (no DWARF, nothing
	 * under debug_dirs) is fetched by build-id from the servers in
	 * $DEBUGINFOD_URLS, by a thread of its own (debuginfod.h): lookups
	 * never wait for it, and name the module from its own symbols
	 * until the file has come. The caller set $DEBUGINFOD_CACHE_PATH
	 * to a checked directory first (kp_debuginfod__cache_dir), before
	 * any thread started. */
	int debuginfod;
	/* A signal whose handler does nothing (0: none): it ends a stopping
	 * fetcher's wait at once (kp_debuginfod__new). */
	int debuginfod_signal;
	/* 1: keep the DWARF of modules whose debug sections are compressed,
	 * inflated, in a persistent cache by build-id (dwcache.h), so that
	 * it is inflated once, not at every start: in dwarf_cache_dir
	 * (NULL: kptop's, /var/cache/kptop/dwarf for root), within
	 * dwarf_cache_max bytes (0: 256 MiB). A directory that cannot be
	 * used (a link, another user's, open to others) only leaves the
	 * cache off: kp_symbols__cache_status says why. */
	int dwarf_cache;
	const char *dwarf_cache_dir;
	uint64_t dwarf_cache_max;
};

/* A mapping of a process, as in an MMAP record. */
struct kp_sym_map {
	uint32_t pid;			/* 0: a file on the host, no process */
	uint64_t proc_start;		/* process identity with pid */
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;			/* 0: no identity to check */
	const uint8_t *build_id;	/* may be NULL */
	uint8_t build_id_len;
	const char *path;		/* "/usr/lib/...", "[vdso]", "//anon", "" */
};

struct kp_sym_frame {
	const char *name;	/* demangled (or plain) function name */
	const char *mangled;	/* mangled name, or NULL if not mangled */
	const char *file;	/* source file, or NULL */
	uint32_t line;		/* 0 if unknown */
	/* the function's first line (DW_AT_decl_line), 0 if unknown; a
	 * bit-field with inlined so that the name cache's frames stay 32
	 * bytes */
	uint32_t start_line : 31;
	uint32_t inlined : 1;	/* 1: inlined into the next frame */
};

struct kp_symbols_stats {
	uint64_t lookups, named, unnamed;	/* user + kernel lookups */
	uint64_t modules_loaded, modules_live, modules_freed;
	uint64_t modules_idle;			/* live but mapped by no process */
	uint64_t module_open_failed;		/* unreadable/refused files */
	uint64_t debug_build_id, debug_debuglink, debug_mini;
	uint64_t debug_rejected;		/* build-id or CRC mismatch */
	uint64_t jit_maps;			/* processes given a JIT table */
	uint64_t jit_bad_lines;			/* lines skipped in JIT maps */
	uint64_t jit_refused;			/* untrusted or over budget */
	uint64_t jit_reads, jit_shared;		/* maps read; tables shared */
	uint64_t jit_bytes, jit_read_ns;	/* held now; time reading */
	uint64_t kernel_symbols;
	uint64_t dwarf_begun;			/* modules whose DWARF was read */
	uint64_t dwarf_ended;			/* ended for the byte budget */
	uint64_t dwarf_trimmed;			/* libdw's state ended, copies kept */
	uint64_t held;				/* holds not yet released */
	/* debuginfod (opts.debuginfod): fetches asked for and not ended
	 * yet; ended with a debug file (added to its modules); ended
	 * without one (no server has it, a server is down or slow past
	 * its timeout, or the file was refused). */
	uint64_t debuginfod_pending, debuginfod_done, debuginfod_failed;
	int debuginfod;				/* 1: fetching is on */
	int kernel_restricted;			/* kallsyms addresses hidden */
	uint64_t bytes;				/* memory held by modules */
	/* the persistent DWARF cache (opts.dwarf_cache): inflated DWARF
	 * read from it, written to it, its files refused or writes failed */
	uint64_t dwcache_hits, dwcache_stored, dwcache_failed;
};

struct kp_symbols;

struct kp_symbols *kp_symbols__new(const struct kp_symbols_opts *opts,
				   struct kp_err *err);
void kp_symbols__free(struct kp_symbols *s);

/* Name the user address addr inside map. Fills out[0..max): inlined frames
 * innermost first, the containing function last. Returns the count (0:
 * unknown) or -errno. */
int kp_symbols__user(struct kp_symbols *s, const struct kp_sym_map *map,
		     uint64_t addr, struct kp_sym_frame *out, int max);
/* Only the containing function of addr, cheaply: from the symbol table
 * alone, never from DWARF, which a module begins only when a full name
 * needs it (its debug sections may have to be inflated). 1 with out
 * filled, 0 when no symbol holds addr, or -errno. span, when not NULL:
 * the function's bytes before addr and from addr to its end (0 and 0
 * when not known: a symbol without a size, JIT code). */
int kp_symbols__user_function(struct kp_symbols *s, const struct kp_sym_map *map,
			      uint64_t addr, struct kp_sym_frame *out, uint64_t span[2]);

/* Where the function holding user address addr of map starts, for code
 * kp_symbols__user leaves unnamed (a stripped file, no debug file): the
 * start of the FDE of the file's .eh_frame that covers addr, as a file
 * offset (as kp_symbols__held_user's offsets). A function, not a name:
 * the caller shows it (kptop: "module @0xSTART"). 1 with *off set, 0
 * when no FDE covers addr, or -errno. */
int kp_symbols__user_start(struct kp_symbols *s, const struct kp_sym_map *map,
			   uint64_t addr, uint64_t *off);

/* The code of the function holding user address addr of map, for
 * annotate: from the module's file (found as names are: by build-id when
 * it was replaced or deleted), or the [vdso] image; JIT code (a perf
 * map's or jitdump's entry, at most 64 KiB) read now from the process's
 * memory, its vaddr its run-time address, with the call frame
 * information its jitdump gave. Its bytes and name are
 * borrowed like frames (until the next call). */
struct kp_sym_code {
	uint64_t start;		/* file offset of the first byte */
	uint64_t vaddr;		/* its link-time address */
	const char *name;	/* as the module spells it (mangled) */
	const uint8_t *bytes;
	size_t len;
	/* the directory relative source file names of its DWARF are in,
	 * or NULL */
	const char *comp_dir;
	/* JIT code whose jitdump gave its call frame information: those
	 * .eh_frame records (eh_len bytes), their pointers read at
	 * eh_vaddr; else NULL */
	const uint8_t *eh_frame;
	size_t eh_len;
	uint64_t eh_vaddr;
};
/* 1 with out filled; 0 with *why a one-line reason (JIT code without an
 * entry or of a process gone, a file that cannot be opened, no sized
 * symbol); -errno. */
int kp_symbols__code(struct kp_symbols *s, const struct kp_sym_map *map,
		     uint64_t addr, struct kp_sym_code *out, const char **why);

/* Hold the module of file mapping map (opened if need be) so that its
 * code can be named later, after the process exited or remapped it:
 * kp_symbols__held_user(h, off) names file offset off as
 * kp_symbols__user names the address at that offset. NULL: nothing to
 * hold (anonymous or JIT code, a file that cannot be opened): name now.
 * Every hold is released once (kp_symbols__release), before
 * kp_symbols__free. Cheap: no symbol is read. */
struct kp_sym_held;
struct kp_sym_held *kp_symbols__hold(struct kp_symbols *s,
				     const struct kp_sym_map *map);
int kp_symbols__held_user(struct kp_symbols *s, struct kp_sym_held *h,
			  uint64_t off, struct kp_sym_frame *out, int max);
/* kp_symbols__user_start for file offset off of a held module. */
int kp_symbols__held_start(struct kp_symbols *s, struct kp_sym_held *h,
			   uint64_t off, uint64_t *start);
void kp_symbols__release(struct kp_symbols *s, struct kp_sym_held *h);

/* Name the kernel address addr: 1 with out filled, 0 unknown (or
 * addresses hidden: see kp_symbols__kernel_status). */
int kp_symbols__kernel(struct kp_symbols *s, uint64_t addr,
		       struct kp_sym_frame *out);

/* Display name of a module: map != NULL: basename of the mapped file
 * ("libc.so.6", "[vdso]", "[jit]", "[anon]"); map == NULL: "[kernel]" or
 * "[modname]" for the kernel address addr. Never NULL. */
const char *kp_symbols__module_name(struct kp_symbols *s,
				    const struct kp_sym_map *map, uint64_t addr);

/* NULL when kernel names are available, else why not (one line, for the
 * header: e.g. kptr_restrict hides the addresses). Loads kallsyms. */
const char *kp_symbols__kernel_status(struct kp_symbols *s);

/* The kernel text where an idle CPU halts ([lo, hi) ranges, up to max;
 * see kp_kallsyms__idle_text). Reads kallsyms if not yet read. Returns
 * the count, 0 when kallsyms cannot be read or names none of it. */
size_t kp_symbols__idle_text(struct kp_symbols *s, uint64_t (*r)[2], size_t max);

/* The process (pid, start) exited: drop its mappings and JIT table; free
 * modules nobody maps any more. Names already handed out were copied by
 * the caller. */
void kp_symbols__process_gone(struct kp_symbols *s, uint32_t pid,
			      uint64_t proc_start);

/* A path that opens exactly the file map refers to (device/inode checked):
 * /proc/PID/map_files/START-END, or the path under /proc/PID/root, or,
 * when the process is gone, the host's file at that path if it is the
 * mapped one (device/inode; with only a build-id, the caller must check
 * it). Written into buf. 0 or -errno (-ESTALE: the file at that path is
 * another one). */
int kp_symbols__safe_path(struct kp_symbols *s, const struct kp_sym_map *map,
			  char *buf, size_t len);

/* NULL when the persistent DWARF cache is on or was not asked for, else
 * why it is off (one line naming the directory and what to do). */
const char *kp_symbols__cache_status(const struct kp_symbols *s);

/* 1 when debug files are fetched (opts.debuginfod), else 0. */
int kp_symbols__fetching(const struct kp_symbols *s);

/* The first sample in the code of file mapping map: with debuginfod on,
 * when the file has no debug information here (its ELF headers read,
 * the debug dirs looked in), its debug file is fetched now, in the
 * background, for the lookups to come (a batch run names frames after
 * sampling). Never waits for the network. */
void kp_symbols__prefetch(struct kp_symbols *s, const struct kp_sym_map *map);

/* How many debug files came to modules after they were opened (fetched
 * from a debuginfod server), the fetches that ended taken first: when
 * it grows, addresses named before may have better names now (a
 * function, a source line). Cheap; never waits for a fetch. */
uint64_t kp_symbols__debug_epoch(struct kp_symbols *s);
/* How many JIT tables (perf maps, jitdumps) were read, first or again:
 * when it grows, JIT code named "+0xoffset" before may be named now (a
 * runtime may write a code load well after the code ran, as V8 buffers
 * its jitdump). */
uint64_t kp_symbols__jit_epoch(const struct kp_symbols *s);
/* Look again at the JIT file of every process that has one, each at
 * most once a second (a stat; read again when it grew or was replaced):
 * a lookup that finds a name never looks, and code a runtime put where
 * other code was is found by the old entry. before (may be NULL) is
 * called for a process whose file changed, before it is read, while
 * lookups still give the old names (it may look up). The epoch grows
 * when one is read. Cheap when nothing is due: call it often. */
void kp_symbols__jit_poll(struct kp_symbols *s,
			  void (*before)(void *ctx, uint32_t pid, uint64_t start),
			  void *ctx);
/* The epoch at which held module h got its debug file (0: it did not
 * after it was opened): its addresses named before may be better now. */
uint64_t kp_symbols__held_epoch(struct kp_symbols *s, struct kp_sym_held *h);

void kp_symbols__stats(const struct kp_symbols *s, struct kp_symbols_stats *out);

#endif /* KP_SYMBOLS_SYMBOLS_H */
