// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/elfread.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/kp_err.h"

#define KP_PLT_ENTRY 16		/* x86-64 PLT and .plt.sec entry size */

static const char *scn_name(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	return elf_strptr(elf, shstrndx, sh->sh_name);
}

/* A section by name, or NULL. */
static Elf_Scn *find_scn(Elf *elf, const char *want, GElf_Shdr *out)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, out))
			continue;
		n = scn_name(elf, shstrndx, out);
		if (n && strcmp(n, want) == 0)
			return scn;
	}
	return NULL;
}

static int build_id_from_data(Elf *elf, Elf_Data *d, uint8_t *out, uint8_t *len)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < d->d_size &&
	       (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) != 0)
			continue;
		if (nh.n_descsz == 0 || nh.n_descsz > KP_ELF_BUILD_ID_MAX)
			return -KP_EFORMAT;
		memcpy(out, (const char *)d->d_buf + desc_off, nh.n_descsz);
		*len = (uint8_t)nh.n_descsz;
		return 0;
	}
	return -KP_ENOSYM;
}

int kp_elf__build_id(Elf *elf, uint8_t *out, uint8_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t phnum, i;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && build_id_from_data(elf, d, out, len) == 0)
			return 0;
	}
	if (elf_getphdrnum(elf, &phnum) != 0)
		return -KP_ENOSYM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ELF_T_NHDR);
		if (d && d->d_buf && build_id_from_data(elf, d, out, len) == 0)
			return 0;
	}
	return -KP_ENOSYM;
}

static void read_loads(Elf *elf, struct kp_elf_info *info)
{
	size_t phnum, i;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return;
	for (i = 0; i < phnum && info->nr_loads < KP_ELF_MAX_LOADS; i++) {
		GElf_Phdr ph;
		struct kp_elf_load *l;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset + ph.p_filesz < ph.p_offset ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			continue;
		l = &info->loads[info->nr_loads++];
		l->offset = ph.p_offset;
		l->vaddr = ph.p_vaddr;
		l->filesz = ph.p_filesz;
		l->memsz = ph.p_memsz;
		l->flags = ph.p_flags;
	}
}

static void read_debuglink(Elf *elf, struct kp_elf_info *info)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, ".gnu_debuglink", &sh);
	Elf_Data *d;
	size_t n, crc_off;
	const uint8_t *p;

	if (!scn || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
		return;
	p = d->d_buf;
	n = strnlen((const char *)p, d->d_size);
	if (n == 0 || n == d->d_size || n >= sizeof(info->debuglink))
		return;		/* no terminator inside the section, or too long */
	crc_off = (n + 4) & ~(size_t)3;
	if (crc_off + 4 > d->d_size)
		return;
	memcpy(info->debuglink, p, n);
	info->debuglink[n] = '\0';
	info->debuglink_crc = (uint32_t)p[crc_off] | (uint32_t)p[crc_off + 1] << 8 |
			      (uint32_t)p[crc_off + 2] << 16 |
			      (uint32_t)p[crc_off + 3] << 24;
}

static void read_sections(Elf *elf, struct kp_elf_info *info)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;

	scn = find_scn(elf, ".symtab", &sh);
	info->has_symtab = scn && sh.sh_type == SHT_SYMTAB && sh.sh_size > 0;
	scn = find_scn(elf, ".debug_info", &sh);
	info->has_debug_info = scn && sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
	scn = find_scn(elf, ".gnu_debugdata", &sh);
	if (scn && sh.sh_type != SHT_NOBITS && (d = elf_rawdata(scn, NULL)) &&
	    d->d_buf && d->d_size) {
		info->debugdata = d->d_buf;
		info->debugdata_len = d->d_size;
	}
}

int kp_elf__info(Elf *elf, struct kp_elf_info *info)
{
	GElf_Ehdr eh;

	memset(info, 0, sizeof(*info));
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -KP_EFORMAT;
	info->type = eh.e_type;
	info->machine = eh.e_machine;
	read_loads(elf, info);
	if (kp_elf__build_id(elf, info->build_id, &info->build_id_len) != 0)
		info->build_id_len = 0;
	read_debuglink(elf, info);
	read_sections(elf, info);
	return 0;
}

int kp_elf__offset_to_vaddr(const struct kp_elf_info *info, uint64_t off,
			    uint64_t *vaddr)
{
	for (size_t i = 0; i < info->nr_loads; i++) {
		const struct kp_elf_load *l = &info->loads[i];

		if (off >= l->offset && off < l->offset + l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return 0;
		}
	}
	return -KP_ENOSYM;
}

int kp_elf__vaddr_to_offset(const struct kp_elf_info *info, uint64_t vaddr,
			    uint64_t *off)
{
	for (size_t i = 0; i < info->nr_loads; i++) {
		const struct kp_elf_load *l = &info->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = vaddr - l->vaddr + l->offset;
			return 0;
		}
	}
	return KP_ENOSYM;
}

/* Where a section of index ndx sits, as a limit for zero-sized symbols. */
static uint64_t section_end(Elf *elf, size_t ndx, int *exec)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	GElf_Shdr sh;

	*exec = 0;
	if (!scn || !gelf_getshdr(scn, &sh))
		return 0;
	*exec = (sh.sh_flags & SHF_EXECINSTR) != 0;
	return sh.sh_addr + sh.sh_size;
}

static enum kp_sym_rank sym_rank(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL: return KP_SYM_RANK_GLOBAL;
	case STB_WEAK: return KP_SYM_RANK_WEAK;
	default: return KP_SYM_RANK_LOCAL;
	}
}

static int add_one_sym(Elf *elf, size_t strndx, const GElf_Sym *s,
		       struct kp_symtab *t)
{
	int type = GELF_ST_TYPE(s->st_info), exec;
	const char *name, *at;
	char buf[KP_SYMTAB_NAME_MAX];
	uint64_t limit;

	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE ||
	    s->st_value == 0)
		return 0;
	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return 0;
	limit = section_end(elf, s->st_shndx, &exec);
	if (!exec)
		return 0;	/* data labels and NOTYPE outside code */
	if (type == STT_NOTYPE && s->st_size == 0 &&
	    GELF_ST_BIND(s->st_info) == STB_LOCAL)
		return 0;	/* local labels ($x, .L...) would misname code */
	name = elf_strptr(elf, strndx, s->st_name);
	if (!name || !*name)
		return 0;
	at = strchr(name, '@');	/* "memcpy@@GLIBC_2.14": the version goes */
	if (at && at != name && (size_t)(at - name) < sizeof(buf)) {
		memcpy(buf, name, (size_t)(at - name));
		buf[at - name] = '\0';
		name = buf;
	}
	return kp_symtab__add(t, s->st_value, s->st_size, limit, name,
			      sym_rank(s)) == 0;
}

static int add_symscn(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		      struct kp_symtab *t)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n, i;
	int added = 0;

	if (!d || !d->d_buf || !sh->sh_entsize)
		return 0;
	n = d->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	for (i = 1; i < n; i++) {
		GElf_Sym s;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		added += add_one_sym(elf, sh->sh_link, &s, t);
	}
	return added;
}

/* x86-64: .rela.plt entry i names PLT slot i (of .plt.sec if present,
 * else of .plt after its 16-byte header). */
static int add_plt(Elf *elf, struct kp_symtab *t)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn, *pscn, *dscn;
	Elf_Data *rd, *dd;
	uint64_t base, end;
	size_t n, i;
	int added = 0;

	rscn = find_scn(elf, ".rela.plt", &rsh);
	if (!rscn || rsh.sh_type != SHT_RELA)
		return 0;
	pscn = find_scn(elf, ".plt.sec", &psh);
	base = psh.sh_addr;
	if (!pscn) {
		pscn = find_scn(elf, ".plt", &psh);
		base = psh.sh_addr + KP_PLT_ENTRY;
	}
	if (!pscn || !(dscn = elf_getscn(elf, rsh.sh_link)) ||
	    !gelf_getshdr(dscn, &dsh) || !(rd = elf_getdata(rscn, NULL)) ||
	    !(dd = elf_getdata(dscn, NULL)) || !rd->d_buf || !dd->d_buf)
		return 0;
	end = psh.sh_addr + psh.sh_size;
	n = rd->d_size / gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	for (i = 0; i < n && base + (i + 1) * KP_PLT_ENTRY <= end; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name;
		char buf[KP_SYMTAB_NAME_MAX];

		if (!gelf_getrela(rd, (int)i, &r) || !GELF_R_SYM(r.r_info) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		name = elf_strptr(elf, dsh.sh_link, s.st_name);
		if (!name || !*name ||
		    (size_t)snprintf(buf, sizeof(buf), "%s@plt", name) >= sizeof(buf))
			continue;
		added += kp_symtab__add(t, base + i * KP_PLT_ENTRY, KP_PLT_ENTRY,
					0, buf, KP_SYM_RANK_PLT) == 0;
	}
	return added;
}

int kp_elf__add_symbols(Elf *elf, struct kp_symtab *t, unsigned what)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int added = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -KP_EFORMAT;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if ((sh.sh_type == SHT_SYMTAB && (what & KP_ELF_SYMTAB)) ||
		    (sh.sh_type == SHT_DYNSYM && (what & KP_ELF_DYNSYM)))
			added += add_symscn(elf, scn, &sh, t);
	}
	if ((what & KP_ELF_PLT) && eh.e_machine == EM_X86_64)
		added += add_plt(elf, t);
	return added;
}
