/* SPDX-License-Identifier: GPL-2.0-only */
/* elfread.h — what kptop needs from one ELF file: its load segments,
 * build-id, .gnu_debuglink, MiniDebugInfo section, and its function
 * symbols (.symtab, .dynsym and PLT entries as name@plt).
 *
 * The Elf handle is the caller's (libelf, opened with ELF_C_READ_MMAP or
 * elf_memory); nothing here keeps a pointer into it after returning except
 * the debugdata pointer in kp_elf_info, which lives as long as the Elf.
 * Every offset, size, count and string read from the file is checked
 * against the file's bounds before use: a hostile file gives -KP_EFORMAT
 * or fewer symbols, never a crash. Stateless and thread-safe.
 */
#ifndef KP_SYMBOLS_ELFREAD_H
#define KP_SYMBOLS_ELFREAD_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "symbols/symtab.h"

#define KP_ELF_MAX_LOADS 16
#define KP_ELF_BUILD_ID_MAX 20
#define KP_ELF_DEBUGLINK_MAX 256

struct kp_elf_load {
	uint64_t offset, vaddr, filesz, memsz;
	uint32_t flags;			/* PF_X ... */
};

struct kp_elf_info {
	int type;			/* ET_EXEC, ET_DYN, ... */
	int machine;
	size_t nr_loads;
	struct kp_elf_load loads[KP_ELF_MAX_LOADS];
	uint8_t build_id[KP_ELF_BUILD_ID_MAX];
	uint8_t build_id_len;		/* 0: none */
	char debuglink[KP_ELF_DEBUGLINK_MAX];	/* "" if none */
	uint32_t debuglink_crc;
	int has_symtab;			/* a non-empty .symtab */
	int has_debug_info;		/* .debug_info with bytes in the file */
	const void *debugdata;		/* .gnu_debugdata bytes, or NULL */
	size_t debugdata_len;
};

/* Read the headers and notes of elf into *info. -KP_EFORMAT if it is not
 * a usable ELF file. */
int kp_elf__info(Elf *elf, struct kp_elf_info *info);

/* Map a file offset to the link-time virtual address through the PT_LOAD
 * that holds it. 0 or -KP_ENOSYM when no segment covers off. */
int kp_elf__offset_to_vaddr(const struct kp_elf_info *info, uint64_t off,
			    uint64_t *vaddr);
/* The reverse: the file offset of link-time address vaddr, through the
 * PT_LOAD whose file bytes hold it. 0 or KP_ENOSYM. */
int kp_elf__vaddr_to_offset(const struct kp_elf_info *info, uint64_t vaddr,
			    uint64_t *off);

/* Add the function symbols of elf to t: KP_ELF_SYMTAB (.symtab),
 * KP_ELF_DYNSYM (.dynsym), KP_ELF_PLT (name@plt for x86-64 PLT entries).
 * Returns the number added or -errno. */
#define KP_ELF_SYMTAB 1u
#define KP_ELF_DYNSYM 2u
#define KP_ELF_PLT 4u
int kp_elf__add_symbols(Elf *elf, struct kp_symtab *t, unsigned what);

/* Read a build-id out of elf (notes), 0 or -KP_ENOSYM when none. */
int kp_elf__build_id(Elf *elf, uint8_t *out, uint8_t *len);

#endif /* KP_SYMBOLS_ELFREAD_H */
