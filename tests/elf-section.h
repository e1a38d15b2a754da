/* SPDX-License-Identifier: GPL-2.0-only */
/* elf-section.h — the tests' lookup of a section by name in an open ELF
 * image (test-symbols, test-dwlines): its header, the last one of that
 * name; all zero when there is none. Include after cmocka.h and gelf.h.
 */
#ifndef KP_TESTS_ELF_SECTION_H
#define KP_TESTS_ELF_SECTION_H

#include <string.h>

static inline GElf_Shdr elf_section(Elf *elf, const char *name)
{
	GElf_Shdr found = { 0 };
	Elf_Scn *scn = NULL;
	size_t shstr;

	assert_int_equal(elf_getshdrstrndx(elf, &shstr), 0);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstr, sh.sh_name)) &&
		    strcmp(n, name) == 0)
			found = sh;
	}
	return found;
}

#endif /* KP_TESTS_ELF_SECTION_H */
