// SPDX-License-Identifier: GPL-2.0-only
/* fuzz-unwind.c — fuzz target of the DWARF unwinder, with hostile call
 * frame information as well as hostile registers and stack bytes: the
 * bytes are a sample as a saved stream could carry it together with the
 * CFI sections of the file it ran in, as a file planted by another user
 * could hold them.
 *
 * Input (little-endian, no padding):
 *   u64 base          process address of the code mapping (page-masked)
 *   u64 regs[17]      DWARF numbering, 16 = the pc
 *   u64 text_vaddr    ELF address the mapping starts at
 *   u32 text_size     length of the mapping (and of its PT_LOAD)
 *   u64 cfi_vaddr     ELF address of the CFI blob (a second PT_LOAD)
 *   u16 cfi_len       bytes of the blob that follow the header
 *   u16 hdr_off, hdr_len   .eh_frame_hdr within the blob
 *   u16 eh_off, eh_len     .eh_frame within the blob
 *   u16 dbg_len       bytes of .debug_frame after the blob
 *   u8  flags         1: a PT_GNU_EH_FRAME segment over .eh_frame_hdr,
 *                     2: an .eh_frame_hdr section, 4: an .eh_frame section
 *   then the blob, the .debug_frame bytes, and the stack copy.
 * An ELF file is made of it (in a memfd, opened by its /proc/self/fd
 * path as the unwinder opens any mapped file) and every entry point runs
 * on it: unwind, fix_leaf, reaches_entry, user_stack; a fresh unwinder
 * per input (no state between calls). fuzz/unwind-seeds.py makes the
 * seeds from the tests/unwind-data snapshots and their binaries. */
#include "fuzz.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind/unwind.h"

#define NREGS 17
#define CFI_OFF (sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr))

struct input {
	uint64_t base, regs[NREGS], text_vaddr, cfi_vaddr;
	uint32_t text_size;
	uint16_t cfi_len, hdr_off, hdr_len, eh_off, eh_len, dbg_len;
	uint8_t flags;
	const uint8_t *cfi, *dbg, *stack;
	size_t stack_len;
};

static int take(const uint8_t **p, size_t *left, void *out, size_t n)
{
	if (*left < n)
		return -1;
	memcpy(out, *p, n);
	*p += n;
	*left -= n;
	return 0;
}

static int parse(const uint8_t *p, size_t left, struct input *in)
{
	if (take(&p, &left, &in->base, 8) || take(&p, &left, in->regs, sizeof(in->regs)) ||
	    take(&p, &left, &in->text_vaddr, 8) || take(&p, &left, &in->text_size, 4) ||
	    take(&p, &left, &in->cfi_vaddr, 8) || take(&p, &left, &in->cfi_len, 2) ||
	    take(&p, &left, &in->hdr_off, 2) || take(&p, &left, &in->hdr_len, 2) ||
	    take(&p, &left, &in->eh_off, 2) || take(&p, &left, &in->eh_len, 2) ||
	    take(&p, &left, &in->dbg_len, 2) || take(&p, &left, &in->flags, 1) ||
	    left < (size_t)in->cfi_len + in->dbg_len)
		return -1;
	in->cfi = p;
	in->dbg = p + in->cfi_len;
	in->stack = in->dbg + in->dbg_len;
	in->stack_len = left - in->cfi_len - in->dbg_len;
	/* the sections lie inside the blob: the bytes are hostile, the
	 * layout of the file is the fuzzer's to choose within it */
	if (in->hdr_off > in->cfi_len)
		in->hdr_off = in->cfi_len;
	if (in->hdr_len > in->cfi_len - in->hdr_off)
		in->hdr_len = in->cfi_len - in->hdr_off;
	if (in->eh_off > in->cfi_len)
		in->eh_off = in->cfi_len;
	if (in->eh_len > in->cfi_len - in->eh_off)
		in->eh_len = in->cfi_len - in->eh_off;
	return 0;
}

static const char shstr[] = "\0.eh_frame_hdr\0.eh_frame\0.debug_frame\0.shstrtab";
enum { NM_HDR = 1, NM_EH = 15, NM_DBG = 25, NM_SHSTR = 38 };

static Elf64_Shdr section(uint32_t name, uint64_t addr, uint64_t off, uint64_t size)
{
	return (Elf64_Shdr){ .sh_name = name, .sh_type = SHT_PROGBITS, .sh_addr = addr,
			     .sh_offset = off, .sh_size = size, .sh_addralign = 1,
			     .sh_flags = addr ? SHF_ALLOC : 0 };
}

/* The ELF image of in: headers, blob, .debug_frame, names, sections. */
static uint8_t *make_elf(const struct input *in, size_t *size)
{
	size_t dbg_off = CFI_OFF + in->cfi_len, str_off = dbg_off + in->dbg_len;
	size_t sh_off = (str_off + sizeof(shstr) + 7) & ~(size_t)7;
	Elf64_Shdr sh[5] = { { 0 } };
	Elf64_Phdr ph[3] = {
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
		  .p_vaddr = in->text_vaddr, .p_filesz = in->text_size,
		  .p_memsz = in->text_size, .p_align = 0x1000 },
		{ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = CFI_OFF,
		  .p_vaddr = in->cfi_vaddr, .p_filesz = in->cfi_len,
		  .p_memsz = in->cfi_len, .p_align = 1 },
		{ .p_type = PT_GNU_EH_FRAME, .p_flags = PF_R,
		  .p_offset = CFI_OFF + in->hdr_off, .p_vaddr = in->cfi_vaddr + in->hdr_off,
		  .p_filesz = in->hdr_len, .p_memsz = in->hdr_len, .p_align = 4 },
	};
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
			     EV_CURRENT },
		.e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_phoff = sizeof(Elf64_Ehdr), .e_shoff = sh_off,
		.e_ehsize = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr),
		.e_phnum = (in->flags & 1) ? 3 : 2, .e_shentsize = sizeof(Elf64_Shdr),
	};
	int n = 1;
	uint8_t *img;

	if (in->flags & 2)
		sh[n++] = section(NM_HDR, in->cfi_vaddr + in->hdr_off, CFI_OFF + in->hdr_off,
				  in->hdr_len);
	if (in->flags & 4)
		sh[n++] = section(NM_EH, in->cfi_vaddr + in->eh_off, CFI_OFF + in->eh_off,
				  in->eh_len);
	if (in->dbg_len)
		sh[n++] = section(NM_DBG, 0, dbg_off, in->dbg_len);
	sh[n] = section(NM_SHSTR, 0, str_off, sizeof(shstr));
	sh[n].sh_type = SHT_STRTAB;
	eh.e_shstrndx = (uint16_t)n;
	eh.e_shnum = (uint16_t)(n + 1);
	*size = sh_off + (size_t)(n + 1) * sizeof(Elf64_Shdr);
	if (!(img = calloc(1, *size)))
		return NULL;
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + eh.e_phoff, ph, sizeof(ph));
	memcpy(img + CFI_OFF, in->cfi, in->cfi_len);
	memcpy(img + dbg_off, in->dbg, in->dbg_len);
	memcpy(img + str_off, shstr, sizeof(shstr));
	memcpy(img + sh_off, sh, (size_t)(n + 1) * sizeof(Elf64_Shdr));
	return img;
}

/* A memfd holding in's ELF image; its path into path. -1 on failure. */
static int elf_file(const struct input *in, char *path, size_t len)
{
	size_t size;
	uint8_t *img = make_elf(in, &size);
	int fd = img ? memfd_create("fuzz-unwind", MFD_CLOEXEC) : -1;

	if (fd >= 0 && write(fd, img, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	free(img);
	if (fd >= 0)
		snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static void run(struct kp_unwinder *u, const struct kp_unwind_map *map,
		const uint64_t *regs, const uint8_t *stack, size_t len)
{
	uint64_t pcs[64], fp[65];
	enum kp_ustack_how how;
	int trunc, want, n, nfp = 0;

	n = kp_unwinder__unwind(u, 1, map, 1, regs, NREGS, stack, len, pcs, 64, &trunc);
	if (n > 64)
		__builtin_trap();
	if (n > 0 && kp_unwinder__reaches_entry(u, 1, map, 1, pcs, n) > 1)
		__builtin_trap();
	/* a frame-pointer stack made of the pc and the first stack words */
	fp[nfp++] = regs[16];
	for (size_t off = 0; off + 8 <= len && nfp < 8; off += 8, nfp++)
		memcpy(&fp[nfp], stack + off, 8);
	n = kp_unwinder__fix_leaf(u, 1, map, 1, regs, NREGS, stack, len, fp, nfp, 64);
	if (n < nfp || n > nfp + 1)
		__builtin_trap();
	n = kp_unwinder__user_stack(u, 1, map, 1, regs, NREGS, stack, len, fp, nfp,
				    pcs, 64, &trunc, &how, &want);
	if (n < 0 || n > 64)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct input in;
	struct kp_unwind_map map = { .pgoff = 0, .path = path };
	struct kp_unwinder *u;
	int fd;

	if (parse(data, size, &in) || (fd = elf_file(&in, path, sizeof(path))) < 0)
		return 0;
	map.start = in.base & 0x7ffffffff000ull;
	map.end = map.start + in.text_size;
	u = kp_unwinder__new(NULL);
	if (u)
		run(u, &map, in.regs, in.stack, in.stack_len);
	kp_unwinder__free(u);
	close(fd);
	return 0;
}
