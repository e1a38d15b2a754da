// SPDX-License-Identifier: GPL-2.0-only
/* unwind-jitcfi.c — the call frame information of JIT code (unwind-int.h:
 * uw_jitcfi): the .eh_frame records a runtime gave for its code (a
 * jitdump's unwinding info), handed to libdw as the .eh_frame section of
 * an ELF image made in memory, at the address its pointers are read at,
 * so that dwarf_cfi_addrframe takes the code's run-time pcs as they are.
 *
 * The records are checked first (cfi-scan.h, as a file's are): a refused
 * one is remembered as such. Kept in a small direct-mapped cache by
 * process and code address; an entry holds a copy of its records and is
 * used only for the same bytes at the same address (code reused for other
 * code is made again). */
#include "unwind/unwind-int.h"
#include "unwind/cfi-scan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <libelf.h>

#define UW_JITCFI_SLOTS 64u	/* a power of two */

struct uw_jitcfi_ent {
	uint32_t pid;
	uint64_t start, eh_vaddr;
	uint8_t *image;		/* the ELF image; its .eh_frame holds the records */
	size_t size, eh_off, eh_len;
	Elf *elf;
	Dwarf_CFI *cfi;		/* NULL: refused */
};

struct uw_jitcfi {
	struct uw_jitcfi_ent ent[UW_JITCFI_SLOTS];
	uint64_t refused;
	size_t bytes;
};

struct uw_jitcfi *uw_jitcfi__new(void)
{
	return calloc(1, sizeof(struct uw_jitcfi));
}

static void ent_clear(struct uw_jitcfi *c, struct uw_jitcfi_ent *e)
{
	if (e->cfi)
		dwarf_cfi_end(e->cfi);
	if (e->elf)
		elf_end(e->elf);
	c->bytes -= e->image ? e->size : 0;
	free(e->image);
	memset(e, 0, sizeof(*e));
}

void uw_jitcfi__free(struct uw_jitcfi *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < UW_JITCFI_SLOTS; i++)
		ent_clear(c, &c->ent[i]);
	free(c);
}

static const char uw_shstr[] = "\0.eh_frame\0.shstrtab";	/* names at 1, 11 */

/* An ELF64 image: header, the records (8-aligned), the section names and
 * three section headers (none, .eh_frame at eh_vaddr, .shstrtab). */
static uint8_t *make_image(const uint8_t *eh, size_t len, uint64_t eh_vaddr,
			   size_t *size, size_t *eh_off)
{
	size_t names = sizeof(Elf64_Ehdr) + ((len + 7) & ~(size_t)7);
	size_t shoff = (names + sizeof(uw_shstr) + 7) & ~(size_t)7;
	uint8_t *img = calloc(1, shoff + 3 * sizeof(Elf64_Shdr));
	Elf64_Ehdr *h = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh;

	if (!img)
		return NULL;
	memcpy(h->e_ident, ELFMAG, SELFMAG);
	h->e_ident[EI_CLASS] = ELFCLASS64;
	h->e_ident[EI_DATA] = ELFDATA2LSB;
	h->e_ident[EI_VERSION] = EV_CURRENT;
	h->e_type = ET_DYN;
	h->e_machine = EM_X86_64;
	h->e_version = EV_CURRENT;
	h->e_ehsize = sizeof(*h);
	h->e_shoff = shoff;
	h->e_shentsize = sizeof(Elf64_Shdr);
	h->e_shnum = 3;
	h->e_shstrndx = 2;
	memcpy(img + sizeof(*h), eh, len);
	memcpy(img + names, uw_shstr, sizeof(uw_shstr));
	sh = (Elf64_Shdr *)(img + shoff);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_addr = eh_vaddr, .sh_offset = sizeof(*h), .sh_size = len,
			      .sh_addralign = 8 };
	sh[2] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_STRTAB, .sh_offset = names,
			      .sh_size = sizeof(uw_shstr), .sh_addralign = 1 };
	*size = shoff + 3 * sizeof(Elf64_Shdr);
	*eh_off = sizeof(*h);
	return img;
}

/* The entry for these records, made now if need be (refused: cfi NULL). */
static int ent_make(struct uw_jitcfi *c, struct uw_jitcfi_ent *e, uint32_t pid,
		    uint64_t start, const uint8_t *eh, size_t len, uint64_t eh_vaddr)
{
	struct kp_cfi_sec sec = { .data = eh, .size = len, .eh = true, .addr_size = 8 };

	ent_clear(c, e);
	e->pid = pid;
	e->start = start;
	e->eh_vaddr = eh_vaddr;
	e->image = make_image(eh, len, eh_vaddr, &e->size, &e->eh_off);
	if (!e->image)
		return -ENOMEM;
	e->eh_len = len;
	c->bytes += e->size;
	if (uw_cfi_scan_all(&sec)) {
		c->refused++;
		return 0;	/* kept, refused: not scanned again */
	}
	e->elf = elf_memory((char *)e->image, e->size);
	e->cfi = e->elf ? dwarf_getcfi_elf(e->elf) : NULL;
	if (!e->cfi)
		c->refused++;
	return 0;
}

int uw_jitcfi__frame(struct uw_jitcfi *c, uint32_t pid, uint64_t start,
		     const uint8_t *eh, size_t len, uint64_t eh_vaddr, uint64_t pc,
		     Dwarf_Frame **frame)
{
	uint64_t h = (start ^ (uint64_t)pid * 0x9E3779B97F4A7C15ull) * 0xC2B2AE3D27D4EB4Full;
	struct uw_jitcfi_ent *e = &c->ent[(h >> 40) & (UW_JITCFI_SLOTS - 1)];
	int err;

	*frame = NULL;
	if (!eh || !len || len > KP_JIT_EH_MAX)
		return KP_ENOCFI;
	if (!e->image || e->pid != pid || e->start != start || e->eh_vaddr != eh_vaddr ||
	    e->eh_len != len || memcmp(e->image + e->eh_off, eh, len)) {
		if ((err = ent_make(c, e, pid, start, eh, len, eh_vaddr)))
			return err;
	}
	if (!e->cfi || dwarf_cfi_addrframe(e->cfi, pc, frame) != 0) {
		*frame = NULL;
		return KP_ENOCFI;
	}
	return 0;
}

void uw_jitcfi__stats(const struct uw_jitcfi *c, uint64_t *refused, size_t *bytes)
{
	*refused = c->refused;
	*bytes = c->bytes;
}
