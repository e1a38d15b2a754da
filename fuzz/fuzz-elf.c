// SPDX-License-Identifier: GPL-2.0-only
/* fuzz-elf.c — fuzz target of the symbols layer: the bytes are an ELF
 * image opened with elf_memory (kp_module__open_mem): program headers,
 * notes, .gnu_debuglink, .symtab/.dynsym/PLT, MiniDebugInfo (xz, capped)
 * and DWARF, then lookups at the start, middle and end of every PT_LOAD,
 * by name and by the FDE of .eh_frame that holds the address (which
 * must start at or before it, in an executable PT_LOAD).
 * The same bytes are also read as a run of ELF notes (kp_buildid__notes,
 * what /sys/kernel/notes holds). No files are read: no debug dirs, no
 * path. */
#include "fuzz.h"

#include <string.h>

#include "symbols/buildid.h"
#include "symbols/module.h"

#define FUZZ_MINIDEBUG_CAP (4u << 20)

/* Is a in an executable PT_LOAD of info? */
static int in_code(const struct kp_elf_info *info, uint64_t a)
{
	for (size_t i = 0; i < info->nr_loads; i++) {
		const struct kp_elf_load *l = &info->loads[i];

		if ((l->flags & PF_X) && a >= l->vaddr && a - l->vaddr < l->memsz)
			return 1;
	}
	return 0;
}

static void probe_start(struct kp_module *m, uint64_t at)
{
	uint64_t start;

	if (kp_module__start(m, at, &start) == 1 &&
	    (start > at || !in_code(kp_module__info(m), start)))
		__builtin_trap();
}

static void probe_loads(struct kp_module *m)
{
	const struct kp_elf_info *info = kp_module__info(m);
	struct kp_sym_frame f[8];

	for (size_t i = 0; i < info->nr_loads; i++) {
		const struct kp_elf_load *l = &info->loads[i];
		uint64_t at[4] = { l->vaddr, l->vaddr + l->memsz / 2,
				   l->vaddr + l->memsz - 1, l->vaddr + 1 };

		for (int j = 0; j < 4; j++) {
			int n = kp_module__lookup(m, at[j], f, 8);

			for (int k = 0; k < n; k++)	/* touch every string */
				if (!f[k].name || strlen(f[k].name) == (size_t)-1 ||
				    (f[k].file && strlen(f[k].file) == (size_t)-1))
					__builtin_trap();
			probe_start(m, at[j]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const no_dirs[] = { NULL };
	struct kp_module_opts o = {
		.debug_dirs = no_dirs, .proc_root = "/proc",
		.max_file_size = 1u << 30, .max_debugdata = FUZZ_MINIDEBUG_CAP,
		.demangle = 1,
	};
	struct kp_module_stats st = { 0 };
	struct kp_module *m;
	uint8_t id[KP_BUILDID_MAX], len = 0;

	if (!kp_buildid__notes(data, size, id, &len) && (!len || len > KP_BUILDID_MAX))
		__builtin_trap();	/* found: a length in bounds */
	elf_version(EV_CURRENT);
	m = kp_module__open_mem(data, size, &o, &st);
	if (!m)
		return 0;
	probe_loads(m);
	kp_module__free(m);
	return 0;
}
