// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/module.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>

#include "symbols/debuginfo.h"
#include "symbols/demangle.h"
#include "symbols/dwarfidx.h"
#include "symbols/dwarfsrc.h"
#include "symbols/dwcache.h"
#include "symbols/dwlines.h"
#include "symbols/fdetab.h"
#include "util/kp_err.h"
#include "util/filemap.h"

#define KP_MODULE_MAX_FRAMES 16		/* inline depth kept per address */
#define KP_NAMECACHE_MIN 256		/* slots; powers of two */
#define KP_NAMECACHE_MAX 65536
/* libdw's state grown by lookups past this is ended (dw_trim): the line
 * copies and the scope index keep what a lookup needs, so only the
 * abbreviations and DIEs of the CUs still asked about are read again.
 * The growth is measured (mallinfo2), and estimated from the copies made
 * since libdw was begun (the estimate alone where the heap cannot be
 * measured, under ASan): line tables are read by a Dwarf of their own
 * (dwlines.c), so what a CU leaves in libdw is its abbreviations and
 * DIEs, measured at about half its copy's bytes over kptop's DWARF
 * (tests/test-dwlines); the estimate takes them as much. */
#define KP_DW_TRIM_BYTES (4u << 20)
#define KP_DW_ROW_RATIO 1

struct kp_cached {
	uint64_t vaddr;
	uint32_t off;		/* into frames[] */
	uint8_t n, used;
};

struct kp_module {
	int fd, dfd;
	Elf *elf, *delf, *melf;	/* binary, debug file, MiniDebugInfo */
	void *mem, *mini;	/* bytes behind open_mem / MiniDebugInfo */
	size_t mini_len;
	Dwarf *dw;		/* begun on first use: dw_of() */
	Elf *dw_elf;		/* the ELF holding DWARF not begun yet, or NULL */
	Elf *dw_src;		/* the ELF holding DWARF (begun or not), or NULL */
	/* heap taken by libdw and libelf for DWARF: as it was first begun
	 * (sections inflated; ended with it), and by lookups since libdw's
	 * state was last begun (given back by dw_trim) */
	size_t dw_base, dw_pool;
	unsigned dw_trims;	/* libdw's state ended for its size (dw_trim) */
	size_t dw_trim_at;	/* ... past this (KP_DW_TRIM_BYTES, or the opts') */
	size_t dwl_mark;	/* the copies' bytes when libdw was last begun */
	int dw_trimmed;		/* ... since DWARF was begun: begin it again */
	int dw_looked;		/* a lookup in dw was measured (aranges read) */
	/* The persistent cache (dwcache.h): celf, the cached inflated DWARF
	 * in use (cfd its file), or dwc_store: none was cached, write it
	 * as DWARF begins. */
	struct kp_dwcache *dwc;
	Elf *celf;
	int cfd, dwc_store;
	struct kp_dw_index *dwi;	/* its scopes by CU, made on first use */
	struct kp_dw_lines *dwl;	/* its line tables by CU, likewise */
	struct kp_elf_info info;
	struct kp_symtab *syms;
	struct kp_fdetab *fdes;	/* read on first need (kp_module__start) */
	int demangle;
	/* name cache: vaddr -> frames */
	struct kp_cached *slots;
	size_t nr_slots, nr_cached;
	struct kp_sym_frame *frames;
	size_t nr_frames, cap_frames;
	char **pool;		/* demangled DWARF names, freed on flush */
	size_t nr_pool, cap_pool;
	/* release_image's verdict per image (elf, delf, celf): the Elf it
	 * was made for, and whether that is libelf's map of the file */
	Elf *mapchk[3];
	uint8_t mapok[3];
};

static void flush_cache(struct kp_module *m)
{
	memset(m->slots, 0, m->nr_slots * sizeof(*m->slots));
	m->nr_cached = 0;
	m->nr_frames = 0;
	for (size_t i = 0; i < m->nr_pool; i++)
		free(m->pool[i]);
	m->nr_pool = 0;
}

void kp_module__free(struct kp_module *m)
{
	if (!m)
		return;
	if (m->slots)
		flush_cache(m);
	free(m->slots);
	free(m->frames);
	free(m->pool);
	kp_symtab__free(m->syms);
	kp_fdetab__free(m->fdes);
	kp_dw_index__free(m->dwi);
	kp_dw_lines__free(m->dwl);
	if (m->dw)
		dwarf_end(m->dw);
	elf_end(m->melf);
	elf_end(m->delf);
	elf_end(m->elf);
	elf_end(m->celf);
	free(m->mini);
	free(m->mem);
	if (m->cfd >= 0)
		close(m->cfd);
	if (m->dfd >= 0)
		close(m->dfd);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

static void load_minidebug(struct kp_module *m, const struct kp_module_opts *o,
			   struct kp_module_stats *st)
{
	if (!m->info.debugdata ||
	    kp_debug__unxz(m->info.debugdata, m->info.debugdata_len,
			   o->max_debugdata, &m->mini, &m->mini_len) != 0)
		return;
	m->melf = elf_memory(m->mini, m->mini_len);
	if (!m->melf || elf_kind(m->melf) != ELF_K_ELF) {
		elf_end(m->melf);
		m->melf = NULL;
		return;
	}
	st->debug_mini++;
}

/* DWARF from the persistent cache when the file it comes from has it
 * compressed: the cached inflated copy if there is one, else one is
 * written as DWARF begins (dw_of). */
static void use_cache(struct kp_module *m)
{
	const struct kp_elf_info *i = &m->info;

	m->dwc_store = 0;
	if (!m->dwc || !m->dw_src || m->dw_src == m->celf || !i->build_id_len ||
	    !kp_dwcache__worth(m->dw_src))
		return;
	m->celf = kp_dwcache__open(m->dwc, i->build_id, i->build_id_len, &m->cfd);
	if (!m->celf) {
		m->cfd = -1;
		m->dwc_store = 1;
		return;
	}
	m->dw_src = m->dw_elf = m->celf;
}

static void load_debug(struct kp_module *m, const struct kp_module_opts *o,
		       struct kp_module_stats *st)
{
	struct kp_debug_query q = {
		.debug_dirs = o->debug_dirs, .proc_root = o->proc_root,
		.pid = o->pid, .bin_path = o->path, .bin = &m->info,
		.max_size = o->max_file_size,
	};
	struct kp_debug_result r = { .fd = -1 };

	if (!m->info.has_debug_info && kp_debug__find(&q, &r) == 0) {
		m->dfd = r.fd;
		m->delf = elf_begin(r.fd, ELF_C_READ_MMAP, NULL);
		if (r.via == KP_DEBUG_VIA_BUILD_ID)
			st->debug_build_id++;
		else
			st->debug_debuglink++;
	} else if (!m->info.has_debug_info) {
		st->debug_rejected += r.rejected;
	}
	if (!m->delf && !m->info.has_symtab)
		load_minidebug(m, o, st);
	/* DWARF is begun when a name needs it (dw_of): libdw inflates
	 * compressed debug sections whole as it begins, which costs more
	 * than the rest of the module, and a function name alone never
	 * uses them (kp_module__function). */
	m->dw_src = m->delf ? m->delf : m->info.has_debug_info ? m->elf : NULL;
	m->dw_elf = m->dw_src;
	use_cache(m);
}

/* The heap in use, all arenas: libdw and libelf allocate behind our back,
 * so what DWARF costs a module is measured, as the growth of this over
 * the calls into libdw (another thread's allocations meanwhile blur it,
 * which is small next to a line table or an inflated section). */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* The bytes of the index and the line copies (they count themselves). */
static size_t own_bytes(const struct kp_module *m)
{
	return kp_dw_index__bytes(m->dwi) + kp_dw_lines__bytes(m->dwl);
}

static void dw_charge(struct kp_module *m, size_t *to, size_t heap0, size_t own0)
{
	size_t heap = heap_in_use(), own = own_bytes(m) - own0;

	if (heap > heap0 + own)
		*to += heap - heap0 - own;
}

static Dwarf *dw_of(struct kp_module *m)
{
	if (m->dw_elf) {	/* begun once, whether it works or not */
		size_t heap0 = heap_in_use();

		m->dw = dwarf_begin_elf(m->dw_elf, DWARF_C_READ, NULL);
		dw_charge(m, m->dw_trimmed ? &m->dw_pool : &m->dw_base, heap0,
			  own_bytes(m));
		if (m->dw && m->dwc_store)	/* inflated now: keep them */
			(void)kp_dwcache__store(m->dwc, m->dw_elf, m->info.build_id,
						m->info.build_id_len);
		m->dwc_store = 0;
		m->dw_elf = NULL;
	}
	return m->dw;
}

/* Give the file pages of the ELF images back (they are read again from
 * the page cache when touched): the symbol table is a copy, and DWARF
 * touches what it reads. Only libelf's own mappings of a file: never
 * memory (open_mem) that a discard would zero. */
static void release_image(struct kp_module *m, int i, Elf *e, int fd)
{
	size_t len = 0;
	char *p;

	if (!e || fd < 0 || !(p = elf_rawfile(e, &len)) || !len ||
	    ((uintptr_t)p & ((uintptr_t)sysconf(_SC_PAGESIZE) - 1)))
		return;
	if (m->mapchk[i] != e) {	/* once per image: /proc/self/maps */
		m->mapchk[i] = e;
		m->mapok[i] = (uint8_t)kp_filemap__is_file(p, len);
	}
	if (m->mapok[i])
		kp_filemap__release(p, len);
}

static void release_pages(struct kp_module *m)
{
	release_image(m, 0, m->elf, m->fd);
	release_image(m, 1, m->delf, m->dfd);
	release_image(m, 2, m->celf, m->cfd);
}

void kp_module__release_pages(struct kp_module *m)
{
	release_pages(m);
}

/* A fresh Elf of fd for *e: what libelf inflated for DWARF is freed
 * with the old one. On failure *e is NULL (no DWARF from it any more). */
static void reopen(struct kp_module *m, Elf **e, int fd)
{
	for (int i = 0; i < 3; i++)
		if (m->mapchk[i] == *e)
			m->mapchk[i] = NULL;	/* judged anew */
	elf_end(*e);
	*e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
}

size_t kp_module__end_dwarf(struct kp_module *m)
{
	size_t was = kp_module__bytes(m);

	if (!kp_module__dwarf_begun(m))
		return 0;
	flush_cache(m);		/* its names point into the DWARF */
	kp_dw_index__free(m->dwi);
	m->dwi = NULL;
	kp_dw_lines__free(m->dwl);
	m->dwl = NULL;
	if (m->dw)
		dwarf_end(m->dw);
	m->dw = NULL;
	m->dw_base = m->dw_pool = 0;
	m->dwl_mark = 0;
	m->dw_trimmed = 0;
	m->dw_looked = 0;
	if (m->dw_src && m->dw_src == m->celf && m->cfd >= 0) {
		reopen(m, &m->celf, m->cfd);
		m->dw_src = m->celf;
	} else if (m->dw_src && m->dw_src == m->delf && m->dfd >= 0) {
		reopen(m, &m->delf, m->dfd);
		m->dw_src = m->delf;
	} else if (m->dw_src && m->dw_src == m->elf && m->fd >= 0) {
		reopen(m, &m->elf, m->fd);
		m->dw_src = m->elf;
	}
	m->dw_elf = m->dw_src;
	release_pages(m);
	return was - kp_module__bytes(m);
}

static int load_symbols(struct kp_module *m)
{
	int n = 0, r;

	if (!(m->syms = kp_symtab__new()))
		return -ENOMEM;
	r = kp_elf__add_symbols(m->elf, m->syms, KP_ELF_SYMTAB | KP_ELF_DYNSYM | KP_ELF_PLT);
	n += r > 0 ? r : 0;
	if (m->delf) {
		r = kp_elf__add_symbols(m->delf, m->syms, KP_ELF_SYMTAB);
		n += r > 0 ? r : 0;
	}
	if (m->melf) {
		r = kp_elf__add_symbols(m->melf, m->syms, KP_ELF_SYMTAB);
		n += r > 0 ? r : 0;
	}
	return kp_symtab__finish(m->syms);
}

static struct kp_module *module_init(struct kp_module *m,
				     const struct kp_module_opts *o,
				     struct kp_module_stats *st)
{
	int err = -KP_EFORMAT;

	if (!m->elf || kp_elf__info(m->elf, &m->info) != 0 || !m->info.nr_loads)
		goto out_err;
	m->demangle = o->demangle;
	m->dwc = o->dwcache;
	m->dw_trim_at = o->dw_trim_bytes ? o->dw_trim_bytes : KP_DW_TRIM_BYTES;
	load_debug(m, o, st);
	err = load_symbols(m);
	if (err)
		goto out_err;
	m->info.debugdata = NULL;	/* consumed (load_minidebug) */
	release_pages(m);
	m->nr_slots = KP_NAMECACHE_MIN;
	m->slots = calloc(m->nr_slots, sizeof(*m->slots));
	if (!m->slots) {
		err = -ENOMEM;
		goto out_err;
	}
	return m;
out_err:
	kp_module__free(m);
	errno = err == -KP_EFORMAT ? ENOEXEC : -err;
	return NULL;
}

struct kp_module *kp_module__open(int fd, const struct kp_module_opts *o,
				  struct kp_module_stats *st)
{
	struct kp_module *m = calloc(1, sizeof(*m));

	if (!m) {
		close(fd);
		return NULL;
	}
	m->fd = fd;
	m->dfd = m->cfd = -1;
	m->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	return module_init(m, o, st);
}

struct kp_module *kp_module__open_mem(const void *buf, size_t len,
				      const struct kp_module_opts *o,
				      struct kp_module_stats *st)
{
	struct kp_module *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->fd = m->dfd = m->cfd = -1;
	m->mem = malloc(len ? len : 1);
	if (!m->mem) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(m->mem, buf, len);
	m->elf = elf_memory(m->mem, len);
	return module_init(m, o, st);
}

int kp_module__wants_debug(const struct kp_module *m)
{
	return m->fd >= 0 && !m->delf && !m->info.has_debug_info &&
	       m->info.build_id_len > 0;
}

/* m's debug ELF is fd's for now: its symbols join the table, or nothing
 * changes. */
static int merge_debug(struct kp_module *m, int fd)
{
	struct kp_symtab *old = m->syms;
	int err;

	m->delf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!m->delf)
		return -KP_EFORMAT;
	m->syms = NULL;
	err = load_symbols(m);
	if (err) {
		kp_symtab__free(m->syms);
		m->syms = old;
		elf_end(m->delf);
		m->delf = NULL;
		m->mapchk[1] = NULL;
		return err;
	}
	kp_symtab__free(old);
	return 0;
}

int kp_module__add_debug(struct kp_module *m, int fd, uint64_t max_size)
{
	int err = kp_module__wants_debug(m) ? 0 : -EEXIST;

	if (!err)
		err = kp_debug__check(fd, &m->info, max_size);
	if (!err)
		err = merge_debug(m, fd);
	if (err) {
		close(fd);
		return err;
	}
	m->dfd = fd;
	flush_cache(m);		/* names from .dynsym alone, made before */
	m->dw_src = m->dw_elf = m->delf;
	use_cache(m);
	release_pages(m);
	return 0;
}

const struct kp_elf_info *kp_module__info(const struct kp_module *m)
{
	return &m->info;
}

size_t kp_module__nr_symbols(const struct kp_module *m)
{
	return kp_symtab__count(m->syms);
}

size_t kp_module__bytes(const struct kp_module *m)
{
	return sizeof(*m) + kp_symtab__bytes(m->syms) + m->mini_len +
	       kp_fdetab__bytes(m->fdes) +
	       own_bytes(m) + m->dw_base + m->dw_pool +
	       m->nr_slots * sizeof(*m->slots) +
	       m->cap_frames * sizeof(*m->frames);
}

int kp_module__has_dwarf(struct kp_module *m)
{
	return dw_of(m) != NULL;
}

unsigned kp_module__dwarf_trims(const struct kp_module *m)
{
	return m->dw_trims;
}

int kp_module__dwarf_begun(const struct kp_module *m)
{
	return m->dw != NULL || m->dw_trimmed;
}

/* ---- naming one address ---- */

static const char *pool_keep(struct kp_module *m, char *str)
{
	if (!str)
		return NULL;
	if (m->nr_pool == m->cap_pool) {
		size_t cap = m->cap_pool ? m->cap_pool * 2 : 64;
		char **p = realloc(m->pool, cap * sizeof(*p));

		if (!p) {
			free(str);
			return NULL;
		}
		m->pool = p;
		m->cap_pool = cap;
	}
	m->pool[m->nr_pool++] = str;
	return str;
}

/* Name and mangled name of a DWARF frame. */
static void dw_names(struct kp_module *m, const struct kp_dw_frame *d,
		     struct kp_sym_frame *f)
{
	const char *dem = NULL;

	f->mangled = NULL;
	f->name = d->name;
	if (d->linkage && kp_is_mangled(d->linkage)) {
		f->mangled = d->linkage;
		if (m->demangle)
			dem = pool_keep(m, kp_demangle(d->linkage));
		f->name = dem ? dem : (m->demangle ? d->name : d->linkage);
		if (!f->name)
			f->name = d->linkage;
	}
}

static void sym_names(struct kp_module *m, const struct kp_sym *sym,
		      struct kp_sym_frame *f)
{
	const char *raw = kp_symtab__name(m->syms, sym);
	const char *dem = m->demangle ? kp_symtab__demangled(m->syms, sym) : NULL;

	f->name = dem ? dem : raw;
	f->mangled = kp_is_mangled(raw) ? raw : NULL;
}

/* End libdw's state, keeping the index and the line copies; begun again
 * at the next lookup. Names may point into an alternate debug file that
 * libdw opened (dwz's), which ends with it: the names cached from such a
 * module go too. The sections libelf inflated stay with its Elf. */
static void dw_trim(struct kp_module *m)
{
	if (dwarf_getalt(m->dw))
		flush_cache(m);
	dwarf_end(m->dw);
	m->dw = NULL;
	m->dw_elf = m->dw_src;
	m->dw_pool = 0;
	m->dw_trimmed = 1;
	m->dw_trims++;
	m->dwl_mark = kp_dw_lines__bytes(m->dwl);
	m->dw_looked = 0;
}

/* What lookups added to libdw's state since it was begun: measured, or
 * estimated from the line copies made meanwhile, whichever is more. */
static size_t dw_grown(const struct kp_module *m)
{
	size_t est = (kp_dw_lines__bytes(m->dwl) - m->dwl_mark) * KP_DW_ROW_RATIO;

	return est > m->dw_pool ? est : m->dw_pool;
}

/* Compute the frames of vaddr into out[0..max): DWARF's named inlined
 * frames, innermost first, then the containing function, named by the
 * symbol table when it has a symbol there (what nm says), else by DWARF.
 * The function frame keeps DWARF's location (the line, or the call site
 * of the outermost inlined frame). */
static int compute(struct kp_module *m, uint64_t vaddr,
		   struct kp_sym_frame *out, int max)
{
	struct kp_dw_frame dw[KP_MODULE_MAX_FRAMES];
	const struct kp_sym *sym = kp_symtab__lookup(m->syms, vaddr);
	struct kp_sym_frame fn = { 0 };
	int nd = 0, n = 0, i;

	if (dw_of(m) && !m->dwi) {
		m->dwi = kp_dw_index__new();	/* NULL: libdw's walks */
		m->dwl = kp_dw_lines__new();	/* NULL: libdw's tables */
	}
	if (m->dw) {
		/* measured only where libdw reads something new (the first
		 * lookup, a CU not indexed yet): mallinfo2 walks every free
		 * chunk of the heap, half of kptop's CPU under a churn if
		 * done at every lookup */
		int fresh = !m->dw_looked || kp_dwarf__new_cu(m->dw, m->dwi, vaddr);
		size_t heap0 = fresh ? heap_in_use() : 0;
		size_t own0 = own_bytes(m);

		nd = kp_dwarf__frames(m->dw, m->dwi, m->dwl, vaddr, dw,
				      max < KP_MODULE_MAX_FRAMES ? max : KP_MODULE_MAX_FRAMES);
		if (fresh)
			dw_charge(m, &m->dw_pool, heap0, own0);
		m->dw_looked = 1;
		if (m->dwl && m->dwi && dw_grown(m) > m->dw_trim_at)
			dw_trim(m);
	}
	for (i = 0; i < nd && dw[i].inlined && n < max - 1; i++) {
		memset(&out[n], 0, sizeof(out[n]));
		dw_names(m, &dw[i], &out[n]);
		out[n].file = dw[i].file;
		out[n].line = dw[i].line;
		out[n].start_line = dw[i].decl_line & 0x7fffffffu;
		out[n].inlined = 1;
		if (out[n].name)	/* an unnamed inlined frame is left out */
			n++;
	}
	if (i < nd && !dw[i].inlined) {
		dw_names(m, &dw[i], &fn);
		fn.file = dw[i].file;
		fn.line = dw[i].line;
		fn.start_line = dw[i].decl_line & 0x7fffffffu;
	}
	if (sym)
		sym_names(m, sym, &fn);
	if (!fn.name)
		return n;	/* a containing function nobody can name */
	out[n++] = fn;
	return n;
}

static struct kp_cached *slot_in(struct kp_cached *slots, size_t nr,
				  uint64_t vaddr)
{
	size_t mask = nr - 1;
	size_t i = (size_t)((vaddr * 0x9E3779B97F4A7C15ull) >> 32) & mask;

	while (slots[i].used && slots[i].vaddr != vaddr)
		i = (i + 1) & mask;
	return &slots[i];
}

static struct kp_cached *slot_of(struct kp_module *m, uint64_t vaddr)
{
	return slot_in(m->slots, m->nr_slots, vaddr);
}

/* Room for one more entry: grow the table (up to the max), else flush. */
static void cache_make_room(struct kp_module *m)
{
	size_t nr = m->nr_slots * 2;
	struct kp_cached *n;

	if ((m->nr_cached + 1) * 2 <= m->nr_slots)
		return;
	if (nr > KP_NAMECACHE_MAX || !(n = calloc(nr, sizeof(*n)))) {
		flush_cache(m);
		return;
	}
	for (size_t i = 0; i < m->nr_slots; i++)
		if (m->slots[i].used)
			*slot_in(n, nr, m->slots[i].vaddr) = m->slots[i];
	free(m->slots);
	m->slots = n;
	m->nr_slots = nr;
}

static int cache_put(struct kp_module *m, uint64_t vaddr,
		     const struct kp_sym_frame *f, int n)
{
	struct kp_cached *c;

	if (m->nr_frames + (size_t)n > m->cap_frames) {
		size_t cap = m->cap_frames ? m->cap_frames * 2 : 1024;
		struct kp_sym_frame *nf;

		while (cap < m->nr_frames + (size_t)n)
			cap *= 2;
		nf = realloc(m->frames, cap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		m->frames = nf;
		m->cap_frames = cap;
	}
	c = slot_of(m, vaddr);
	c->vaddr = vaddr;
	c->used = 1;
	c->n = (uint8_t)n;
	c->off = (uint32_t)m->nr_frames;
	if (n > 0)
		memcpy(&m->frames[m->nr_frames], f, (size_t)n * sizeof(*f));
	m->nr_frames += (size_t)n;
	m->nr_cached++;
	return 0;
}

int kp_module__lookup(struct kp_module *m, uint64_t vaddr,
		      struct kp_sym_frame *out, int max)
{
	struct kp_sym_frame tmp[KP_MODULE_MAX_FRAMES];
	struct kp_cached *c;
	int n;

	if (max <= 0)
		return 0;
	c = slot_of(m, vaddr);
	if (c->used) {
		n = c->n < max ? c->n : max;
		if (n > 0)
			memcpy(out, &m->frames[c->off], (size_t)n * sizeof(*out));
		return n;
	}
	cache_make_room(m);
	n = compute(m, vaddr, tmp, KP_MODULE_MAX_FRAMES);
	cache_put(m, vaddr, tmp, n);	/* a failed put only costs speed */
	n = n < max ? n : max;
	memcpy(out, tmp, (size_t)n * sizeof(*out));
	return n;
}

int kp_module__function(struct kp_module *m, uint64_t vaddr, struct kp_sym_frame *out,
			uint64_t span[2])
{
	const struct kp_sym *sym = kp_symtab__lookup(m->syms, vaddr);

	memset(out, 0, sizeof(*out));
	if (span)
		span[0] = span[1] = 0;
	if (!sym)
		return 0;
	if (span && sym->end > sym->start && vaddr >= sym->start && vaddr < sym->end) {
		span[0] = vaddr - sym->start;
		span[1] = sym->end - vaddr;
	}
	sym_names(m, sym, out);
	return out->name != NULL;
}

int kp_module__start(struct kp_module *m, uint64_t vaddr, uint64_t *start)
{
	if (!m->fdes && !(m->fdes = kp_fdetab__new(m->elf, &m->info)))
		return -ENOMEM;
	return kp_fdetab__lookup(m->fdes, vaddr, start);
}

const char *kp_module__comp_dir(struct kp_module *m, uint64_t vaddr)
{
	Dwarf *dw = dw_of(m);
	Dwarf_Attribute a;
	Dwarf_Die cu;

	if (!dw || !dwarf_addrdie(dw, vaddr, &cu))
		return NULL;
	return dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
}

/* Is [off, off + len) file bytes of one PT_LOAD? */
static int in_load(const struct kp_elf_info *info, uint64_t off, uint64_t len)
{
	for (size_t i = 0; i < info->nr_loads; i++) {
		const struct kp_elf_load *l = &info->loads[i];

		if (off >= l->offset && off - l->offset <= l->filesz &&
		    len <= l->filesz - (off - l->offset))
			return 1;
	}
	return 0;
}

int kp_module__code(struct kp_module *m, uint64_t vaddr, uint64_t *start,
		    uint64_t *end, const char **name, const uint8_t **bytes,
		    const char **why)
{
	const struct kp_sym *sym = kp_symtab__lookup(m->syms, vaddr);
	const uint8_t *img;
	uint64_t off;
	size_t size = 0;

	if (!sym || sym->end <= sym->start) {
		*why = "no symbol with a size holds this code";
		return 0;
	}
	img = (const uint8_t *)elf_rawfile(m->elf, &size);
	if (!img || kp_elf__vaddr_to_offset(&m->info, sym->start, &off) != 0 ||
	    !in_load(&m->info, off, sym->end - sym->start) || off > size ||
	    sym->end - sym->start > size - off) {
		*why = "the function's bytes are not in the file";
		return 0;
	}
	*start = sym->start;
	*end = sym->end;
	*name = kp_symtab__name(m->syms, sym);
	*bytes = img + off;
	return 1;
}
