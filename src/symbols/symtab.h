/* SPDX-License-Identifier: GPL-2.0-only */
/* symtab.h — a sorted table of named address ranges: the lookup structure
 * behind ELF modules, /proc/kallsyms and JIT maps.
 *
 * Owns: its entries and a copy of every name (one string arena), and the
 * demangled names it makes on first lookup. Names are copied in, so the
 * source (an Elf, a file buffer) may go away after kp_symtab__add().
 *
 * Use: add entries in any order, call kp_symtab__finish() once (sorts,
 * drops duplicates, gives zero-sized entries the room up to the next one
 * within their limit), then look up with a binary search. Lookups after
 * finish never allocate except for the first demangling of an entry.
 *
 * Errors: 0 or -errno; constructors NULL with errno. Not thread-safe.
 * Never: reads files (callers feed it); never includes model or collect.
 */
#ifndef KP_SYMBOLS_SYMTAB_H
#define KP_SYMBOLS_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

/* Ranking of aliases at one address: the highest wins. */
enum kp_sym_rank {
	KP_SYM_RANK_PLT = 1,	/* synthesized name@plt */
	KP_SYM_RANK_LOCAL = 2,
	KP_SYM_RANK_WEAK = 3,
	KP_SYM_RANK_GLOBAL = 4,
};

#define KP_SYMTAB_NAME_MAX 8192	/* longer names are refused */

/* One entry, 24 bytes (a kernel's 120,000 symbols take 2.9 MB): a
 * zero-sized entry's limit is kept in end until kp_symtab__finish, and
 * demangled names in a table of their own. */
struct kp_sym {
	uint64_t start, end;	/* [start, end) once finished */
	uint32_t name;		/* offset in the arena */
	uint8_t rank;
	uint8_t flags;		/* KP_SYM_OPEN, KP_SYM_DEMANGLED (symtab.c) */
	uint16_t pad;
};

struct kp_symtab;

struct kp_symtab *kp_symtab__new(void);
void kp_symtab__free(struct kp_symtab *t);

/* Add [start, start+size). size 0: the entry reaches the next entry but
 * not past limit (0: no limit). name is copied; longer than
 * KP_SYMTAB_NAME_MAX or empty: -EINVAL. Refuses more than max_entries
 * (kp_symtab__set_max) with -E2BIG. */
int kp_symtab__add(struct kp_symtab *t, uint64_t start, uint64_t size,
		   uint64_t limit, const char *name, enum kp_sym_rank rank);
void kp_symtab__set_max(struct kp_symtab *t, size_t max_entries);

/* Sort and settle; call once after the last add. */
int kp_symtab__finish(struct kp_symtab *t);

/* The entry containing addr, or NULL. */
const struct kp_sym *kp_symtab__lookup(const struct kp_symtab *t, uint64_t addr);
const char *kp_symtab__name(const struct kp_symtab *t, const struct kp_sym *s);
/* The demangled name of s (made and kept on first use), or NULL when the
 * name is not a mangled C++/Rust name or demangling is off. */
const char *kp_symtab__demangled(struct kp_symtab *t, const struct kp_sym *s);

size_t kp_symtab__count(const struct kp_symtab *t);
/* Bytes held (entries + names + demangled names), for stats. */
size_t kp_symtab__bytes(const struct kp_symtab *t);
/* Entry i in address order (i < count), for tests and SYMTAB dumps. */
const struct kp_sym *kp_symtab__at(const struct kp_symtab *t, size_t i);

#endif /* KP_SYMBOLS_SYMTAB_H */
