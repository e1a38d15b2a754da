// SPDX-License-Identifier: GPL-2.0-only
/* unwind-cfi.c — the unwinder's module cache: for each file mapped into a
 * sampled process, its CFI (.eh_frame via dwarf_getcfi_elf, .debug_frame of
 * the file or of its /usr/lib/debug/.build-id debug file via dwarf_getcfi),
 * its PT_LOAD segments (to turn a file offset into an ELF address) and the
 * address ranges of the process entry functions. Loaded once per file
 * (key: device + inode, or the path when the inode is 0), never evicted;
 * files that cannot be read are remembered as such until they show up
 * under another path. Each CFI section is checked (cfi-scan.h) before
 * libdw is given it; a refused one is as if absent, and a file with no
 * other CFI is hostile: never retried. */
#include "unwind/unwind-int.h"
#include "unwind/cfi-scan.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>

#include "util/kp_err.h"
#include "util/filemap.h"

#define UW_BUCKETS 256
#define UW_MAX_LOADS 16
#define UW_MAX_ENTRY 16
#define UW_BUILD_ID_MAX 64
#define UW_MAX_MODULES 256	/* cached modules, the least recently used go */
#define UW_FRAME_SLOTS 64	/* frame states kept per module, by address */
#define UW_DEBUG_DIR "/usr/lib/debug/.build-id"
#define UW_FP_MIN_FDES 4	/* fewer FDEs: keeps_fp does not judge */
/* libdw makes a frame state as large as the highest register number its
 * CFI names (16 bytes each, up to 2 GiB) and clears it at every lookup:
 * x86-64's CFI names registers below 130, a few KiB. The check at load
 * (cfi-scan.h) refuses CFI naming more than UW_CFI_MAX_REG; should a
 * frame state still be larger than this, its module is hostile and is
 * not used again. */
#define UW_FRAME_MAX_BYTES (64u << 10)
/* The file pages the modules' images touched are given back after a
 * load (its CFI check reads the whole .eh_frame, its entry ranges the
 * symbol table) and every this many lookups (tens of seconds of
 * unwinding): lookups touch a few pages of .eh_frame_hdr and .eh_frame,
 * minor faults from the page cache, and without this a big library's
 * images stay in kptop's RSS (libLLVM: 10 MB). */
#define UW_RELEASE_EVERY (1u << 16)
/* A module's bytes besides those counted one by one (its frame states,
 * the DWARF of a .debug_frame): its struct and path, and libelf's and
 * libdw's state of its file (section tables, the CIEs and FDEs looked
 * up), estimated. */
#define UW_MODULE_BYTES 4096

struct uw_load {
	uint64_t offset, vaddr, filesz;
};

struct uw_range {
	uint64_t lo, hi;
	bool start_main;	/* __libc_start_main (exported, in .dynsym) */
};

struct uw_file {
	int fd;
	void *image;		/* in-memory ELF (the vdso), ours to free */
	Elf *elf;
	Dwarf *dw;		/* NULL when the file has no DWARF */
	bool mapped;		/* elf is libelf's read-only map of the file */
};

struct uw_module {
	struct uw_module *next;
	uint64_t used;		/* the cache's clock at its last lookup */
	uint32_t maj, min;
	uint64_t ino;
	char *path;
	bool ok;
	bool hostile;		/* CFI naming absurd registers: never retried */
	uint64_t retry_at;	/* not read: no retry before the cache's clock is there */
	uint64_t retry_gap;	/* ... and the wait after the next failure */
	uint8_t build_id_len;	/* the key when non-zero (checked on load) */
	uint8_t build_id[UW_BUILD_ID_MAX];
	size_t bytes;		/* its estimate, in the cache's total */
	size_t *total;		/* the cache's */
	bool debug_opened;	/* the debug file is opened on first need */
	bool debug_tried;	/* ... and its .debug_frame read */
	bool entry_read;	/* entry ranges are read on first need */
	bool entry_dynsym;	/* ... from .dynsym only (no local symbols) */
	const char *debug_dir;	/* the cache's */
	uint64_t *refused;	/* the cache's count of refused CFI sections */
	uint64_t *hostile_seen;	/* the cache's count of modules found hostile late */
	struct uw_file file, debug;
	Dwarf_CFI *eh;		/* .eh_frame, ours to end */
	struct uw_cfi_fp fp;	/* its FDEs, and those keeping rbp */
	Dwarf_CFI *dbg_frame;	/* .debug_frame (owned by its Dwarf) */
	/* the frame states looked up, by ELF address (direct-mapped, made
	 * at the first lookup; without memory for it, one kept in one) */
	struct uw_fslot {
		uint64_t a;
		Dwarf_Frame *f;
		struct uw_rule rule;	/* f compiled, on first use */
	} *fslots, one;
	int nr_loads, nr_entry;
	struct uw_load loads[UW_MAX_LOADS];
	struct uw_range entry[UW_MAX_ENTRY];
};

struct uw_cache {
	struct uw_module *buckets[UW_BUCKETS];
	uint64_t loads, evicted, clock, refused, hostile_seen;
	uint64_t released;	/* clock at the last release of file pages */
	size_t nr, max;
	size_t bytes, max_bytes;	/* the modules' estimate; its bound (0: none) */
	kp_unwind_path_fn *path_fn;
	void *path_ctx;
	char debug_dir[512];
};

static const char *const entry_names[] = {
	"_start", "__libc_start_main", "__libc_start_call_main",
	"start_thread", "__clone", "clone",
	/* the dynamic loader's own start, before the program's _start */
	"_dl_start", "_dl_sysdep_start",
};

struct uw_cache *uw_cache__new(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOTSUP;
		return NULL;
	}
	struct uw_cache *c = calloc(1, sizeof(struct uw_cache));

	if (c) {
		uw_cache__set_debug_dir(c, UW_DEBUG_DIR);
		c->max = UW_MAX_MODULES;
	}
	return c;
}

int uw_cache__set_debug_dir(struct uw_cache *c, const char *dir)
{
	if (strlen(dir) >= sizeof(c->debug_dir))
		return -ENAMETOOLONG;
	strcpy(c->debug_dir, dir);
	return 0;
}

void uw_cache__set_path_fn(struct uw_cache *c, kp_unwind_path_fn *fn, void *ctx)
{
	c->path_fn = fn;
	c->path_ctx = ctx;
}

/* map's path, asked of the path function when the map came without. */
static const char *map_path(struct uw_cache *c, const struct kp_unwind_map *map)
{
	const char *p = map->path;

	if (!p && c->path_fn)
		p = c->path_fn(c->path_ctx, map);
	return p ? p : "";
}

uint64_t uw_cache__loads(const struct uw_cache *c)
{
	return c->loads;
}

uint64_t uw_cache__evicted(const struct uw_cache *c)
{
	return c->evicted;
}

uint64_t uw_cache__epoch(const struct uw_cache *c)
{
	return c->loads + c->evicted + c->refused + c->hostile_seen;
}

uint64_t uw_cache__refused(const struct uw_cache *c)
{
	return c->refused;
}

void uw_cache__set_max(struct uw_cache *c, size_t max)
{
	c->max = max ? max : 1;
}

void uw_cache__set_max_bytes(struct uw_cache *c, size_t bytes)
{
	c->max_bytes = bytes;
}

size_t uw_cache__bytes(const struct uw_cache *c)
{
	return c->bytes;
}

/* A module's estimate moves by delta, and the cache's total with it. */
static void account(struct uw_module *m, ssize_t delta)
{
	m->bytes += (size_t)delta;
	*m->total += (size_t)delta;
}

/* What a new (or reloaded) module counts before its first lookup. */
static void account_base(struct uw_module *m)
{
	account(m, (ssize_t)(sizeof(*m) + strlen(m->path) + 1 + UW_MODULE_BYTES));
}

static void file_close(struct uw_file *f)
{
	if (f->dw)
		dwarf_end(f->dw);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->image);
	f->image = NULL;
	f->fd = -1;
}

/* The frame states kept: they point into the CFI, which goes with them. */
static void frames_drop(struct uw_module *m)
{
	for (size_t i = 0; m->fslots && i < UW_FRAME_SLOTS; i++) {
		account(m, -(ssize_t)malloc_usable_size(m->fslots[i].f));
		free(m->fslots[i].f);
	}
	if (m->fslots)
		account(m, -(ssize_t)(UW_FRAME_SLOTS * sizeof(*m->fslots)));
	free(m->fslots);
	account(m, -(ssize_t)malloc_usable_size(m->one.f));
	free(m->one.f);
	m->fslots = NULL;
	m->one = (struct uw_fslot){ 0 };
}

static void module_free(struct uw_module *m)
{
	frames_drop(m);
	*m->total -= m->bytes;
	if (m->eh)
		dwarf_cfi_end(m->eh);
	file_close(&m->debug);
	file_close(&m->file);
	free(m->path);
	free(m);
}

void uw_cache__free(struct uw_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < UW_BUCKETS; i++) {
		while (c->buckets[i]) {
			struct uw_module *m = c->buckets[i];

			c->buckets[i] = m->next;
			module_free(m);
		}
	}
	free(c);
}

static int file_open(struct uw_file *f, const char *path)
{
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		file_close(f);
		return KP_EFORMAT;
	}
	/* The image is mapped (or, where it cannot be, read whole): the
	 * descriptor is not needed any more, so cached modules hold none. */
	size_t len = 0;
	char *p = elf_rawfile(f->elf, &len);

	if (p) {
		close(f->fd);
		f->fd = -1;
		f->mapped = kp_filemap__is_file(p, len);
	}
	return 0;
}

/* f's file pages out of kptop's RSS (filemap.h): only libelf's own map
 * of the file, never an image read into memory. */
static void file_release(struct uw_file *f)
{
	size_t len = 0;
	char *p;

	if (f->elf && f->mapped && (p = elf_rawfile(f->elf, &len)))
		kp_filemap__release(p, len);
}

static void read_loads(struct uw_module *m)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(m->file.elf, &n))
		return;
	for (size_t i = 0; i < n && m->nr_loads < UW_MAX_LOADS; i++) {
		if (!gelf_getphdr(m->file.elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		m->loads[m->nr_loads++] = (struct uw_load){
			.offset = ph.p_offset, .vaddr = ph.p_vaddr, .filesz = ph.p_filesz,
		};
	}
}

static bool is_entry_name(const char *name)
{
	for (size_t i = 0; i < sizeof(entry_names) / sizeof(entry_names[0]); i++) {
		size_t l = strlen(entry_names[i]);

		if (strncmp(name, entry_names[i], l) == 0 &&
		    (name[l] == '\0' || name[l] == '_' || name[l] == '3' || name[l] == '@'))
			return true;
	}
	return false;
}

/* Collect the entry functions from the symbol table of type `type`;
 * returns 1 if the file had such a table. */
static int read_entry(struct uw_module *m, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *data;
	int found = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		found = 1;
		if (!(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !is_entry_name(name) || m->nr_entry >= UW_MAX_ENTRY)
				continue;
			m->entry[m->nr_entry++] = (struct uw_range){
				sym.st_value, sym.st_value + (sym.st_size ? sym.st_size : 1),
				strncmp(name, "__libc_start_main", 17) == 0,
			};
		}
	}
	return found;
}

static void open_debug(struct uw_module *m)
{
	const unsigned char *id;
	char path[512 + 2 * UW_BUILD_ID_MAX + 16];
	ssize_t len = dwelf_elf_gnu_build_id(m->file.elf, (const void **)&id);
	int o;

	if (len < 2 || len > UW_BUILD_ID_MAX)
		return;
	o = snprintf(path, sizeof(path), "%s/%02x/", m->debug_dir, id[0]);
	for (ssize_t i = 1; i < len; i++)
		o += snprintf(path + o, sizeof(path) - (size_t)o, "%02x", id[i]);
	snprintf(path + o, sizeof(path) - (size_t)o, ".debug");
	if (file_open(&m->debug, path))
		m->debug.fd = -1;
}

/* The bytes of elf's .debug_* sections, as libdw holds them (a
 * compressed section inflated): what beginning its DWARF costs. */
static size_t debug_bytes(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, sum = 0;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strncmp(n, ".debug_", 7))
			continue;
		sum += (sh.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &ch) ?
		       ch.ch_size : sh.sh_size;
	}
	return sum;
}

/* Whether elf has a section called name (.debug_frame). */
static bool has_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(n, name) == 0)
			return sh.sh_type != SHT_NOBITS;
	}
	return false;
}

/* The debug file is opened on first need (for its symbols: the entry
 * ranges). Its DWARF is read only for a .debug_frame, and only when a pc
 * has no .eh_frame entry: dwarf_begin_elf inflates every compressed
 * debug section at once, about 50 ms (and 150 under load) for libc's. */
static void module_need_debug_elf(struct uw_module *m)
{
	if (m->debug_opened)
		return;
	m->debug_opened = true;
	open_debug(m);
}

/* A refused CFI section is counted once per module load. */
static bool cfi_refuse(struct uw_module *m, int scan)
{
	if (scan)
		(*m->refused)++;
	return scan != 0;
}

/* f's .debug_frame (f's DWARF is begun when it has one), NULL if none
 * or refused. */
static Dwarf_CFI *debug_frame(struct uw_module *m, struct uw_file *f)
{
	if (!has_section(f->elf, ".debug_frame"))
		return NULL;
	if (!f->dw && (f->dw = dwarf_begin_elf(f->elf, DWARF_C_READ, NULL)))
		account(m, (ssize_t)debug_bytes(f->elf));
	if (!f->dw || cfi_refuse(m, uw_cfi_scan_elf_debug(f->elf)))
		return NULL;
	return dwarf_getcfi(f->dw);
}

static void module_need_debug(struct uw_module *m)
{
	if (m->debug_tried)
		return;
	m->debug_tried = true;
	if ((m->dbg_frame = debug_frame(m, &m->file)))
		return;
	module_need_debug_elf(m);
	if (m->debug.elf)
		m->dbg_frame = debug_frame(m, &m->debug);
}

static void module_need_entry(struct uw_module *m)
{
	if (m->entry_read)
		return;
	m->entry_read = true;
	module_need_debug_elf(m);
	if (!read_entry(m, m->file.elf, SHT_SYMTAB) &&
	    !(m->debug.elf && read_entry(m, m->debug.elf, SHT_SYMTAB)))
		m->entry_dynsym = read_entry(m, m->file.elf, SHT_DYNSYM);
}

/* The vdso has no file: every process on this kernel maps the same
 * image, so read ours (live profiling only; a stream replayed on another
 * kernel gets this kernel's vdso). */
static int vdso_open(struct uw_file *f)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOENT;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size < sizeof(*eh) || size > (1u << 20) || !(f->image = malloc(size)))
		return -ENOMEM;
	memcpy(f->image, eh, size);
	f->elf = elf_memory(f->image, size);
	if (!f->elf) {
		file_close(f);
		return KP_EFORMAT;
	}
	return 0;
}

static void module_load(struct uw_module *m)
{
	uint64_t refused = *m->refused;

	if (m->path[0] == '/' ? file_open(&m->file, m->path) :
	    strcmp(m->path, "[vdso]") ? -ENOENT : vdso_open(&m->file))
		return;
	read_loads(m);
	if (!cfi_refuse(m, uw_cfi_scan_elf_eh_fp(m->file.elf, &m->fp)))
		m->eh = dwarf_getcfi_elf(m->file.elf);
	else
		m->fp = (struct uw_cfi_fp){ 0 };
	if (!m->eh && !m->dbg_frame)
		module_need_debug(m);
	m->ok = m->eh || m->dbg_frame;
	m->hostile = !m->ok && *m->refused != refused;
	/* A file without any CFI (a Go binary, assembly) is still a module:
	 * its entry symbols, and the frame-pointer fallback for its code. */
	m->ok = !m->hostile;
	file_release(&m->file);
	file_release(&m->debug);
}

static void release_all(struct uw_cache *c)
{
	c->released = c->clock;
	for (int i = 0; i < UW_BUCKETS; i++)
		for (struct uw_module *m = c->buckets[i]; m; m = m->next) {
			file_release(&m->file);
			file_release(&m->debug);
		}
}

static bool has_build_id(const struct kp_unwind_map *map)
{
	return map->build_id && map->build_id_len && map->build_id_len <= UW_BUILD_ID_MAX;
}

/* Key: the build-id, else device + inode, else the path. */
static unsigned hash_key(const struct kp_unwind_map *map, const char *path)
{
	uint64_t h = 1469598103934665603ull;

	if (has_build_id(map)) {
		for (unsigned i = 0; i < map->build_id_len; i++)
			h = (h ^ map->build_id[i]) * 1099511628211ull;
	} else if (map->ino) {
		h = (h ^ map->ino) * 1099511628211ull;
		h = (h ^ ((uint64_t)map->maj << 32 | map->min)) * 1099511628211ull;
	} else {
		for (const char *p = path; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
	}
	return (unsigned)(h % UW_BUCKETS);
}

static bool same_key(const struct uw_module *m, const struct kp_unwind_map *map,
		     const char *path)
{
	if (has_build_id(map))
		return m->build_id_len == map->build_id_len &&
		       memcmp(m->build_id, map->build_id, m->build_id_len) == 0;
	if (m->build_id_len)
		return false;
	if (map->ino)
		return m->ino == map->ino && m->maj == map->maj && m->min == map->min;
	return !m->ino && strcmp(m->path, path) == 0;
}

static void set_key(struct uw_module *m, const struct kp_unwind_map *map)
{
	m->maj = map->maj, m->min = map->min, m->ino = map->ino;
	if (has_build_id(map)) {
		m->build_id_len = map->build_id_len;
		memcpy(m->build_id, map->build_id, map->build_id_len);
	}
}

/* A file keyed by build-id must have that build-id: a path is only
 * trusted to name the file the key says. */
static void check_build_id(struct uw_module *m)
{
	const void *id;
	ssize_t len;

	if (!m->ok || !m->build_id_len || !m->file.elf)
		return;
	len = dwelf_elf_gnu_build_id(m->file.elf, &id);
	if (len != m->build_id_len || memcmp(id, m->build_id, (size_t)len) != 0)
		m->ok = false;
}

/* After a failed retry of m (the first one comes at once), wait
 * UW_RETRY_MIN lookups of the cache before the next, twice as many after
 * each further failure, up to UW_RETRY_MAX: a file that stays
 * unreadable, or keeps a build-id other than its key's, is not read
 * again at every sample of every process that maps it. */
#define UW_RETRY_MIN 16
#define UW_RETRY_MAX 65536
static void retry_later(struct uw_cache *c, struct uw_module *m, uint64_t gap)
{
	if (m->ok)
		return;
	gap = gap ? 2 * gap : UW_RETRY_MIN;
	m->retry_gap = gap < UW_RETRY_MAX ? gap : UW_RETRY_MAX;
	m->retry_at = c->clock + m->retry_gap;
}

/* A module that could not be read is tried again when the same file
 * (device + inode) shows up under another path: a path such as
 * /proc/PID/map_files/... dies with its process, the file does not. */
static struct uw_module *module_retry(struct uw_cache *c, struct uw_module *m,
				      const struct kp_unwind_map *map)
{
	const char *path;
	struct uw_module *next = m->next;
	const char *dir = m->debug_dir;
	char *p;

	uint64_t gap = m->retry_gap;

	if (m->ok)
		return m;
	if (m->hostile || c->clock < m->retry_at)
		return NULL;
	path = map_path(c, map);
	if (!strcmp(m->path, path) || !(p = strdup(path)))
		return NULL;
	frames_drop(m);
	if (m->eh)
		dwarf_cfi_end(m->eh);
	file_close(&m->debug);
	file_close(&m->file);
	free(m->path);
	c->bytes -= m->bytes;
	*m = (struct uw_module){ .next = next, .path = p, .debug_dir = dir,
				 .refused = &c->refused, .hostile_seen = &c->hostile_seen,
				 .total = &c->bytes,
				 .used = c->clock };
	set_key(m, map);
	m->file.fd = m->debug.fd = -1;
	account_base(m);
	module_load(m);
	check_build_id(m);
	c->loads++;
	retry_later(c, m, gap);
	return m->ok ? m : NULL;
}

/* Free the least recently looked-up module. Only uw_cache__module
 * evicts, before it adds one: a module returned by an earlier lookup is
 * not used past the next (the unwinder frees each frame first). */
static void evict_lru(struct uw_cache *c)
{
	struct uw_module **victim = NULL;

	for (int i = 0; i < UW_BUCKETS; i++)
		for (struct uw_module **pp = &c->buckets[i]; *pp; pp = &(*pp)->next)
			if (!victim || (*pp)->used < (*victim)->used)
				victim = pp;
	if (victim) {
		struct uw_module *m = *victim;

		*victim = m->next;
		module_free(m);
		c->nr--;
		c->evicted++;
	}
}

struct uw_module *uw_cache__module(struct uw_cache *c, const struct kp_unwind_map *map)
{
	/* the path is part of the key only for a file with no build-id,
	 * device or inode */
	bool by_path = !has_build_id(map) && !map->ino;
	const char *key_path = by_path ? map_path(c, map) : "";
	unsigned h = hash_key(map, key_path);
	struct uw_module *m;

	if (c->clock - c->released >= UW_RELEASE_EVERY)
		release_all(c);
	for (m = c->buckets[h]; m; m = m->next)
		if (same_key(m, map, key_path)) {
			m->used = ++c->clock;
			return module_retry(c, m, map);
		}
	while (c->nr > 0 && (c->nr >= c->max || (c->max_bytes && c->bytes > c->max_bytes)))
		evict_lru(c);
	if (!(m = calloc(1, sizeof(*m))))
		return NULL;
	m->used = ++c->clock;
	m->file.fd = m->debug.fd = -1;
	set_key(m, map);
	m->debug_dir = c->debug_dir;
	m->refused = &c->refused;
	m->hostile_seen = &c->hostile_seen;
	m->total = &c->bytes;
	if (!(m->path = strdup(by_path ? key_path : map_path(c, map)))) {
		free(m);
		return NULL;
	}
	account_base(m);
	module_load(m);
	check_build_id(m);
	c->loads++;
	m->next = c->buckets[h];
	c->buckets[h] = m;
	c->nr++;
	/* A path from the path function may have died between its check
	 * and the open (/proc/PID/map_files/... of a process that just
	 * exited): asked again at once, it may give the host's file. */
	return m->ok ? m : module_retry(c, m, map);
}

/* The ELF address of process address pc in map; 0 when outside the
 * file's loaded segments. */
static uint64_t elf_addr(const struct uw_module *m, const struct kp_unwind_map *map,
			 uint64_t pc)
{
	uint64_t off = pc - map->start + map->pgoff;

	for (int i = 0; i < m->nr_loads; i++) {
		const struct uw_load *l = &m->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz)
			return off - l->offset + l->vaddr;
	}
	return 0;
}

/* dwarf_cfi_addrframe, and the check of the frame state's size: a
 * hostile module is marked so (every later lookup of it fails) and its
 * frame dropped. 0 or -1. */
static int module_addrframe(struct uw_module *m, Dwarf_CFI *cfi, uint64_t a,
			    Dwarf_Frame **frame)
{
	if (m->hostile || dwarf_cfi_addrframe(cfi, a, frame))
		return -1;
	if (malloc_usable_size(*frame) > UW_FRAME_MAX_BYTES) {
		free(*frame);
		*frame = NULL;
		if (!m->hostile)
			(*m->hostile_seen)++;
		m->hostile = true;
		m->ok = false;
		return -1;
	}
	return 0;
}

/* Where the frame state of address a is kept: its slot. */
static struct uw_fslot *frame_slot(struct uw_module *m, uint64_t a)
{
	if (!m->fslots && (m->fslots = calloc(UW_FRAME_SLOTS, sizeof(*m->fslots))))
		account(m, (ssize_t)(UW_FRAME_SLOTS * sizeof(*m->fslots)));
	if (!m->fslots)
		return &m->one;
	return &m->fslots[(a * 0x9E3779B97F4A7C15ull) >> 56 & (UW_FRAME_SLOTS - 1)];
}

int uw_module__frame(struct uw_module *m, const struct kp_unwind_map *map,
		     uint64_t pc, bool debug_frame, Dwarf_Frame **frame,
		     struct uw_rule **rule)
{
	uint64_t a = elf_addr(m, map, pc);
	struct uw_fslot *s;

	*frame = NULL;
	if (!a)
		return KP_ENOCFI;
	s = frame_slot(m, a);
	if (s->f && s->a == a && !m->hostile)
		goto out;
	if (!(m->eh && module_addrframe(m, m->eh, a, frame) == 0)) {
		if (!debug_frame && !m->dbg_frame)
			return KP_ENOCFI;
		if (!m->debug_tried)
			module_need_debug(m);
		if (!m->dbg_frame || module_addrframe(m, m->dbg_frame, a, frame))
			return KP_ENOCFI;
	}
	account(m, (ssize_t)malloc_usable_size(*frame) - (ssize_t)malloc_usable_size(s->f));
	free(s->f);
	s->a = a;
	s->f = *frame;
	s->rule.state = UW_RULE_UNTRIED;
out:
	*frame = s->f;
	if (rule) {
		if (s->rule.state == UW_RULE_UNTRIED)
			uw_rule__compile(s->f, &s->rule);
		*rule = &s->rule;
	}
	return 0;
}

int uw_module__keeps_fp(const struct uw_module *m)
{
	if (!m->eh || m->fp.fdes < UW_FP_MIN_FDES)
		return -1;
	return m->fp.fp * 2 >= m->fp.fdes;
}

/* Without local symbols (libc without its debug file) the function that
 * calls main, __libc_start_call_main, has no name: glibc (2.34 and later)
 * places it right before __libc_start_main, so accept a pc whose CFI
 * range (FDE) ends less than 64 bytes before __libc_start_main starts. */
static int just_before_start_main(struct uw_module *m, uint64_t a)
{
	Dwarf_Frame *frame;
	Dwarf_Addr lo, hi;
	int ret = 0;

	if (!m->eh || module_addrframe(m, m->eh, a, &frame))
		return 0;
	if (dwarf_frame_info(frame, &lo, &hi, NULL) >= 0) {
		for (int i = 0; i < m->nr_entry; i++)
			if (m->entry[i].start_main && hi <= m->entry[i].lo &&
			    m->entry[i].lo - hi < 64)
				ret = 1;
	}
	free(frame);
	return ret;
}

int uw_module__in_entry(struct uw_module *m, const struct kp_unwind_map *map,
			uint64_t pc)
{
	uint64_t a = elf_addr(m, map, pc);

	module_need_entry(m);
	for (int i = 0; a && i < m->nr_entry; i++)
		if (a >= m->entry[i].lo && a < m->entry[i].hi)
			return 1;
	return a && m->entry_dynsym && just_before_start_main(m, a);
}
