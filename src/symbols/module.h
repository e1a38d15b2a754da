/* SPDX-License-Identifier: GPL-2.0-only */
/* module.h — one loaded binary (executable, library, vdso image): its ELF
 * facts, merged symbol table, separate debug file or MiniDebugInfo, DWARF,
 * the functions' ranges of its .eh_frame (for code nothing names), and a
 * cache of the names already made for its addresses.
 *
 * Owned by the module cache in symbols.c, shared by every process that
 * maps it. kp_module__open() takes ownership of fd (closed on failure
 * too); kp_module__open_mem() copies the bytes. Frames handed out by
 * kp_module__lookup() point into the module and stay valid until the
 * module is freed or its name cache is flushed (kp_module__lookup may
 * flush it when full: copy what you keep before the next lookup).
 *
 * DWARF whose debug sections are compressed is read from the persistent
 * cache of inflated DWARF (dwcache.h) when it has the module's build ID,
 * and written to it as it is first inflated (kp_module_opts.dwcache).
 *
 * Errors: constructors NULL with errno. Never crashes on a hostile file:
 * every read is bounded (elfread.h, debuginfo.h, fdetab.h). Not
 * thread-safe.
 */
#ifndef KP_SYMBOLS_MODULE_H
#define KP_SYMBOLS_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/elfread.h"
#include "symbols/symbols.h"

struct kp_dwcache;

struct kp_module_opts {
	const char *const *debug_dirs;	/* NULL-terminated */
	const char *proc_root;
	uint32_t pid;			/* whose root the path lives in; 0 host */
	const char *path;		/* as the process sees it (debuglink) */
	uint64_t max_file_size;
	size_t max_debugdata;		/* MiniDebugInfo decompressed cap */
	int demangle;
	/* The persistent cache of inflated DWARF (dwcache.h), borrowed: it
	 * outlives the module. NULL: none. */
	struct kp_dwcache *dwcache;
	/* libdw's state is ended once lookups grew it past this many bytes
	 * (kp_module__dwarf_trims); 0: 4 MiB. Tests set it low. */
	size_t dw_trim_bytes;
};

struct kp_module_stats {
	unsigned debug_build_id, debug_debuglink, debug_mini, debug_rejected;
};

struct kp_module;

struct kp_module *kp_module__open(int fd, const struct kp_module_opts *o,
				  struct kp_module_stats *st);
struct kp_module *kp_module__open_mem(const void *buf, size_t len,
				      const struct kp_module_opts *o,
				      struct kp_module_stats *st);
void kp_module__free(struct kp_module *m);

const struct kp_elf_info *kp_module__info(const struct kp_module *m);

/* Name the code at link-time address vaddr (see kp_symbols__user for the
 * frame order). Returns the count, 0 when unknown. */
int kp_module__lookup(struct kp_module *m, uint64_t vaddr,
		      struct kp_sym_frame *out, int max);

/* The containing function of vaddr alone, from the symbol table only:
 * DWARF is never begun here (its debug sections may have to be inflated,
 * tens of ms for libc's, and the caller, --unwind auto's judge, asks as
 * samples come, often of a frame-pointer walk's junk last frame). 1 with
 * out filled, 0 when no symbol holds vaddr. span, when not NULL: the
 * function's bytes before vaddr and from vaddr to its end, both 0 when
 * the symbol has no size. */
int kp_module__function(struct kp_module *m, uint64_t vaddr, struct kp_sym_frame *out,
			uint64_t span[2]);

/* Where the function holding vaddr starts, for code kp_module__lookup
 * leaves unnamed (a stripped file): the FDE of the file's .eh_frame that
 * covers vaddr (fdetab.h; its table read on the first call, and counted
 * in kp_module__bytes). 1 with *start its link-time address, 0 when no
 * FDE covers vaddr, -ENOMEM. */
int kp_module__start(struct kp_module *m, uint64_t vaddr, uint64_t *start);

/* The code of the function holding vaddr, for annotate: the symbol
 * table's range [*start, *end) (link-time addresses), its mangled name,
 * and its bytes, which point into the module's file image (valid while
 * the module is). 1 with everything set; 0 when no symbol with a size
 * holds vaddr or its bytes are not in the file (*why says which, one
 * line). */
int kp_module__code(struct kp_module *m, uint64_t vaddr, uint64_t *start,
		    uint64_t *end, const char **name, const uint8_t **bytes,
		    const char **why);
/* The compilation directory of the DWARF unit holding vaddr (what its
 * relative source file names are relative to), or NULL. Begins DWARF. */
const char *kp_module__comp_dir(struct kp_module *m, uint64_t vaddr);
/* 1 when m is a file with a build-id but neither DWARF of its own nor a
 * separate debug file (MiniDebugInfo has no lines): one could be
 * fetched for it (debuginfod.h). */
int kp_module__wants_debug(const struct kp_module *m);
/* Take fd (closed on failure too) as m's separate debug file, found
 * after m was opened: checked as a found one (kp_debug__check, m's
 * build-id), its symbols merged into m's table, its DWARF used from the
 * next lookup on; the names cached so far are flushed. 0, -EEXIST when
 * m has debug information already, or -errno / -KP_EBUILDID /
 * -KP_EFORMAT. */
int kp_module__add_debug(struct kp_module *m, int fd, uint64_t max_size);

size_t kp_module__nr_symbols(const struct kp_module *m);
/* Heap the module holds: its symbol table, FDE table, name cache, DWARF
 * index, and what libdw and libelf allocated for its DWARF (measured,
 * heap_in_use). */
size_t kp_module__bytes(const struct kp_module *m);
/* End its DWARF (libdw's state, the sections libelf inflated, the index,
 * the names cached from them) and give its file pages back; begun again
 * when a name needs it. The symbol table stays. Returns the bytes freed
 * (kp_module__bytes), 0 when DWARF was not begun. */
size_t kp_module__end_dwarf(struct kp_module *m);
/* Drop the file pages of the module's ELF images from kptop's RSS
 * (util/filemap.h): what DWARF lookups touched since. They are read
 * again from the page cache when touched. */
void kp_module__release_pages(struct kp_module *m);
/* 1 when the module has DWARF (begins it if not yet). */
int kp_module__has_dwarf(struct kp_module *m);
/* 1 once its DWARF was begun (a lookup needed it), else 0. */
int kp_module__dwarf_begun(const struct kp_module *m);
/* How often libdw's state was ended as lookups grew it past a bound
 * (dw_trim_bytes): the CUs' line tables and scopes are kept in kptop's compact
 * copies (dwlines.h, dwarfidx.h), names and lines stay the same, and
 * libdw is begun again at the next lookup. */
unsigned kp_module__dwarf_trims(const struct kp_module *m);

#endif /* KP_SYMBOLS_MODULE_H */
