// SPDX-License-Identifier: GPL-2.0-only
/* symbols-probe — helper of the root tests tests/symbols-*.sh: name one
 * function of a running process through kp_symbols.
 *   symbols-probe PID MATCH REF VADDR EXPECTED
 * finds the executable mapping of PID whose path contains MATCH, turns the
 * link-time address VADDR (nm of REF, a copy of the mapped binary) into
 * the process's address, and checks that it is named EXPECTED. Prints the
 * safe path kp_symbols__safe_path gives. Exit 0 if named right, 1 if not. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elfread.h"
#include "symbols/symbols.h"

static int find_map(unsigned pid, const char *match, struct kp_sym_map *m,
		    char *path, size_t len)
{
	unsigned long long lo, hi, off, ino;
	char line[4400], perms[8], p[4096], file[64];
	unsigned maj, min;
	FILE *f;
	int found = 0;

	snprintf(file, sizeof(file), "/proc/%u/maps", pid);
	if (!(f = fopen(file, "r")))
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		int n;

		p[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms,
			   &off, &maj, &min, &ino, &n) < 7 || !strchr(perms, 'x'))
			continue;
		snprintf(p, sizeof(p), "%s", line + n);
		p[strcspn(p, "\n")] = '\0';
		if (!strstr(p, match))
			continue;
		memset(m, 0, sizeof(*m));
		m->pid = pid;
		m->start = lo;
		m->end = hi;
		m->pgoff = off;
		m->maj = maj;
		m->min = min;
		m->ino = ino;
		snprintf(path, len, "%s", p);
		m->path = path;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

/* The process address of link-time vaddr, through REF's PT_LOADs. */
static int runtime_addr(const char *ref, const struct kp_sym_map *m,
			uint64_t vaddr, uint64_t *addr)
{
	struct kp_elf_info info;
	int fd = open(ref, O_RDONLY), ok = -1;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && kp_elf__info(elf, &info) == 0) {
		for (size_t i = 0; i < info.nr_loads; i++) {
			const struct kp_elf_load *l = &info.loads[i];

			if (vaddr >= l->vaddr && vaddr < l->vaddr + l->filesz) {
				*addr = m->start + (vaddr - l->vaddr + l->offset) - m->pgoff;
				ok = 0;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	struct kp_sym_frame f[8];
	struct kp_symbols *s;
	struct kp_sym_map m;
	char path[4096], safe[4200];
	uint64_t addr;
	int n;

	if (argc != 6) {
		fprintf(stderr, "usage: symbols-probe PID MATCH REF VADDR EXPECTED\n");
		return 2;
	}
	if (find_map((unsigned)atoi(argv[1]), argv[2], &m, path, sizeof(path)) ||
	    runtime_addr(argv[3], &m, strtoull(argv[4], NULL, 16), &addr)) {
		fprintf(stderr, "symbols-probe: no mapping of %s in %s\n", argv[2], argv[1]);
		return 1;
	}
	s = kp_symbols__new(NULL, NULL);
	if (!s)
		return 1;
	n = kp_symbols__user(s, &m, addr, f, 8);
	if (kp_symbols__safe_path(s, &m, safe, sizeof(safe)) == 0)
		printf("safe path: %s\n", safe);
	printf("%s at %#llx (%s): %s\n", m.path, (unsigned long long)addr,
	       kp_symbols__module_name(s, &m, addr), n > 0 ? f[n - 1].name : "(unknown)");
	n = n > 0 && strcmp(f[n - 1].name, argv[5]) == 0;
	kp_symbols__free(s);
	return n ? 0 : 1;
}
