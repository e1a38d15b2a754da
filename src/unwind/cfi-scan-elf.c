// SPDX-License-Identifier: GPL-2.0-only
/* cfi-scan-elf.c — which bytes of an ELF file libdw reads as its CFI
 * (contract: cfi-scan.h): the same choice of sections or segment as
 * dwarf_getcfi_elf and dwarf_getcfi (elfutils 0.188), then the checks of
 * cfi-scan.c over them. */
#include "unwind/cfi-scan.h"

#include <string.h>
#include <gelf.h>

#include "util/kp_err.h"

static bool elf_sec(Elf *elf, bool eh, struct kp_cfi_sec *s)
{
	const unsigned char *id = (const unsigned char *)elf_getident(elf, NULL);

	if (!id || id[EI_DATA] != ELFDATA2LSB)
		return false;
	*s = (struct kp_cfi_sec){ .eh = eh, .addr_size = id[EI_CLASS] == ELFCLASS32 ? 4 : 8 };
	return true;
}

/* .eh_frame at sh (with its .eh_frame_hdr section hdr, or NULL). */
static int scan_sections(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, Elf_Scn *hdr_scn,
			 struct uw_cfi_fp *cnt)
{
	Elf_Data *d = elf_rawdata(scn, NULL), *hd;
	struct kp_cfi_sec s;
	struct kp_cfi_hdr h;
	GElf_Shdr hsh;

	if (!d || !d->d_buf)
		return 0;	/* libdw gives no CFI */
	if (!elf_sec(elf, true, &s))
		return KP_EFORMAT;
	s.data = d->d_buf;
	s.size = d->d_size;
	hd = hdr_scn && gelf_getshdr(hdr_scn, &hsh) ? elf_rawdata(hdr_scn, NULL) : NULL;
	if (!hd || !hd->d_buf)
		return uw_cfi_scan_all_fp(&s, cnt);
	if (kp_cfi__parse_hdr(hd->d_buf, hd->d_size, hsh.sh_addr, s.addr_size, &h))
		return KP_EFORMAT;
	/* with a search table, libdw reads only the FDEs it points to */
	if (!h.count || h.eh_frame_ptr != sh->sh_addr)
		return uw_cfi_scan_all_fp(&s, cnt);
	return uw_cfi_scan_table_fp(&s, sh->sh_addr, &h, hsh.sh_addr, cnt);
}

/* As libdw's getcfi_shdr: 1 when it would look at the segments. */
static int scan_shdr(Elf *elf, struct uw_cfi_fp *cnt)
{
	Elf_Scn *scn = NULL, *eh_scn = NULL, *hdr_scn = NULL;
	GElf_Shdr sh, eh_sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	if (shstrndx == 0)
		return 1;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		if (!strcmp(name, ".eh_frame_hdr"))
			hdr_scn = scn;
		else if (!strcmp(name, ".eh_frame"))
			eh_scn = scn, eh_sh = sh;
		else
			continue;
		if (eh_scn && hdr_scn)
			return scan_sections(elf, eh_scn, &eh_sh, hdr_scn, cnt);
	}
	return eh_scn ? scan_sections(elf, eh_scn, &eh_sh, NULL, cnt) : 1;
}

/* As libdw's getcfi_phdr: the first PT_GNU_EH_FRAME, its .eh_frame from
 * eh_frame_ptr to the end of the file. */
static int scan_phdr(Elf *elf, struct uw_cfi_fp *cnt)
{
	size_t n, fsize;
	const uint8_t *raw = (const uint8_t *)elf_rawfile(elf, &fsize);
	struct kp_cfi_sec s;
	struct kp_cfi_hdr h;
	GElf_Phdr ph;
	uint64_t off;

	if (elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return 0;
		if (ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (!raw)
			return KP_EFORMAT;	/* not mapped: not checked */
		if (ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset)
			return 0;	/* libdw cannot read it either */
		if (!elf_sec(elf, true, &s) ||
		    kp_cfi__parse_hdr(raw + ph.p_offset, ph.p_filesz, ph.p_vaddr, s.addr_size, &h))
			return KP_EFORMAT;
		off = h.eh_frame_ptr - ph.p_vaddr + ph.p_offset;
		if (off > fsize)
			return 0;
		s.data = raw + off;
		s.size = fsize - off;
		return h.count ? uw_cfi_scan_table_fp(&s, h.eh_frame_ptr, &h, ph.p_vaddr, cnt)
			       : uw_cfi_scan_all_fp(&s, cnt);
	}
	return 0;
}

int uw_cfi_scan_elf_eh(Elf *elf)
{
	return uw_cfi_scan_elf_eh_fp(elf, NULL);
}

int uw_cfi_scan_elf_eh_fp(Elf *elf, struct uw_cfi_fp *cnt)
{
	GElf_Ehdr eh;
	int ret;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return 0;
	ret = scan_shdr(elf, cnt);
	return ret == 1 ? scan_phdr(elf, cnt) : ret;
}

int uw_cfi_scan_elf_debug(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	struct kp_cfi_sec s;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    (strcmp(name, ".debug_frame") && strcmp(name, ".zdebug_frame") &&
		     strcmp(name, ".debug_frame.dwo")) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_COMPRESSED) || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;	/* not one libdw reads */
		if (!elf_sec(elf, false, &s))
			return KP_EFORMAT;
		s.data = d->d_buf;
		s.size = d->d_size;
		if (uw_cfi_scan_all(&s))
			return KP_EFORMAT;
	}
	return 0;
}
