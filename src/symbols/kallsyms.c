// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/kallsyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symtab.h"

#define KP_KALLSYMS_MAX_LINES (16u << 20)
/* Paravirt halts kept (pv_native_safe_halt, xen_safe_halt, PVM's
 * pvm_safe_halt and pvm_safe_halt_hc, TDX's tdx_safe_halt: a guest
 * kernel has at most a few); one more idle range is the cpuidle
 * section, and the BPF side takes four. */
#define KP_KALLSYMS_HALTS 3

struct kp_kmod {
	uint64_t lo, hi;	/* [lo, hi] symbol addresses */
	char name[64];		/* "[modname]" */
};

struct kp_kallsyms {
	struct kp_symtab *syms;
	struct kp_kmod *mods;
	size_t nr_mods, cap_mods;
	int restricted;
	uint64_t idle_lo, idle_hi;	/* __cpuidle_text_start, _end */
	uint64_t pv_halt[KP_KALLSYMS_HALTS];	/* *safe_halt* functions */
	size_t nr_pv_halt;
};

void kp_kallsyms__free(struct kp_kallsyms *k)
{
	if (!k)
		return;
	kp_symtab__free(k->syms);
	free(k->mods);
	free(k);
}

static int note_module(struct kp_kallsyms *k, const char *mod, uint64_t addr)
{
	struct kp_kmod *m = k->nr_mods ? &k->mods[k->nr_mods - 1] : NULL;
	size_t len = strcspn(mod, "]");

	if (m && strncmp(m->name + 1, mod, len) == 0 && m->name[len + 1] == ']') {
		if (addr < m->lo)
			m->lo = addr;
		if (addr > m->hi)
			m->hi = addr;
		return 0;
	}
	if (k->nr_mods == k->cap_mods) {
		size_t cap = k->cap_mods ? k->cap_mods * 2 : 64;
		struct kp_kmod *n = realloc(k->mods, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		k->mods = n;
		k->cap_mods = cap;
	}
	m = &k->mods[k->nr_mods++];
	m->lo = m->hi = addr;
	snprintf(m->name, sizeof(m->name), "[%.*s]", (int)(len < 60 ? len : 60), mod);
	return 0;
}

/* "ffffffff81000000 T _stext" or "ffffffffc0a01000 t name\t[mod]" */
static int parse_line(struct kp_kallsyms *k, char *line, size_t *zero, size_t *all)
{
	char *end, *name, *tab;
	unsigned long long addr = strtoull(line, &end, 16);
	char type;
	int err;

	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return 0;
	type = end[1];
	name = end + 3;
	name[strcspn(name, "\n")] = '\0';
	tab = strchr(name, '\t');
	if (tab)
		*tab++ = '\0';
	(*all)++;
	if (!addr) {
		(*zero)++;
		return 0;
	}
	if (!tab && strcmp(name, "__cpuidle_text_start") == 0)
		k->idle_lo = addr;
	else if (!tab && strcmp(name, "__cpuidle_text_end") == 0)
		k->idle_hi = addr;
	else if (!tab && (type == 't' || type == 'T') && strstr(name, "safe_halt") &&
		 strncmp(name, "__pfx_", 6) != 0 && k->nr_pv_halt < KP_KALLSYMS_HALTS)
		k->pv_halt[k->nr_pv_halt++] = addr;
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	err = kp_symtab__add(k->syms, addr, 0, 0, name,
			     type == 't' ? KP_SYM_RANK_LOCAL :
			     (type == 'T' ? KP_SYM_RANK_GLOBAL : KP_SYM_RANK_WEAK));
	if (err || !tab || tab[0] != '[')
		return err == -EINVAL ? 0 : err;
	return note_module(k, tab + 1, addr);
}

struct kp_kallsyms *kp_kallsyms__load(const char *path)
{
	struct kp_kallsyms *k = calloc(1, sizeof(*k));
	size_t zero = 0, all = 0, lines = 0;
	char line[1024];
	FILE *f = NULL;
	int err = -ENOMEM;

	if (!k || !(k->syms = kp_symtab__new()))
		goto out_err;
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		goto out_err;
	}
	setvbuf(f, NULL, _IOFBF, 1u << 20);	/* fewer reads of /proc/kallsyms */
	while (fgets(line, sizeof(line), f) && lines++ < KP_KALLSYMS_MAX_LINES) {
		err = parse_line(k, line, &zero, &all);
		if (err && err != -E2BIG)
			goto out_err;
	}
	fclose(f);
	f = NULL;
	k->restricted = all > 0 && zero == all;
	kp_symtab__finish(k->syms);
	return k;
out_err:
	if (f)
		fclose(f);
	kp_kallsyms__free(k);
	errno = -err;
	return NULL;
}

const char *kp_kallsyms__lookup(const struct kp_kallsyms *k, uint64_t addr)
{
	const struct kp_sym *s = kp_symtab__lookup(k->syms, addr);

	return s ? kp_symtab__name(k->syms, s) : NULL;
}

const char *kp_kallsyms__module(const struct kp_kallsyms *k, uint64_t addr)
{
	const struct kp_sym *s = kp_symtab__lookup(k->syms, addr);

	for (size_t i = 0; s && i < k->nr_mods; i++)
		if (s->start >= k->mods[i].lo && s->start <= k->mods[i].hi)
			return k->mods[i].name;
	return "[kernel]";
}

int kp_kallsyms__restricted(const struct kp_kallsyms *k)
{
	return k->restricted;
}

size_t kp_kallsyms__idle_text(const struct kp_kallsyms *k, uint64_t (*r)[2],
			      size_t max)
{
	int section = k->idle_lo && k->idle_hi > k->idle_lo;
	size_t n = 0;

	if (n < max && section) {
		r[n][0] = k->idle_lo;
		r[n++][1] = k->idle_hi;
	}
	for (size_t i = 0; i < k->nr_pv_halt && n < max; i++) {
		uint64_t a = k->pv_halt[i];
		const struct kp_sym *s = kp_symtab__lookup(k->syms, a);

		if (section && a >= k->idle_lo && a < k->idle_hi)
			continue;	/* acpi_safe_halt: in the section already */
		/* the function's end is where the next symbol starts */
		if (s && s->start == a && s->end > s->start) {
			r[n][0] = s->start;
			r[n++][1] = s->end;
		}
	}
	return n;
}

size_t kp_kallsyms__count(const struct kp_kallsyms *k)
{
	return kp_symtab__count(k->syms);
}
