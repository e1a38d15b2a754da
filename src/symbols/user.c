// SPDX-License-Identifier: GPL-2.0-only
/* user.c — user-space addresses: processes, their mappings, the module
 * cache shared between processes, JIT maps and [vdso] (see symbols.h). */
#include "symbols/symbols.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "symbols/procfs.h"
#include "symbols/jitmap.h"
#include "symbols/symbols-int.h"

/* ---- the module cache ---- */

static struct kp_modent *modent_find(struct kp_symbols *s, const char *key)
{
	for (struct kp_modent *e = s->modules; e; e = e->next)
		if (strcmp(e->key, key) == 0)
			return e;
	return NULL;
}

/* A loaded module of the same file (device + inode, as the mapping says):
 * names stay available after the process that mapped it exited. */
static struct kp_modent *modent_by_inode(struct kp_symbols *s,
					 const struct kp_sym_map *map)
{
	if (!map->ino)
		return NULL;
	for (struct kp_modent *e = s->modules; e; e = e->next)
		if (e->ino == map->ino && e->maj == map->maj && e->min == map->min)
			return e;
	return NULL;
}

static struct kp_modent *modent_add(struct kp_symbols *s, const char *key,
				    struct kp_module *mod)
{
	struct kp_modent *e = calloc(1, sizeof(*e));

	if (!e) {
		kp_module__free(mod);
		return NULL;
	}
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->mod = mod;
	e->bytes = kp_module__bytes(mod);
	s->mod_bytes += e->bytes;
	e->next = s->modules;
	s->modules = e;
	s->st.modules_loaded++;
	s->st.modules_live++;
	return e;
}

static void modent_free(struct kp_symbols *s, struct kp_modent *me)
{
	struct kp_modent **pp;

	for (pp = &s->modules; *pp; pp = &(*pp)->next) {
		if (*pp == me) {
			*pp = me->next;
			break;
		}
	}
	s->mod_bytes -= me->bytes;
	kp_module__free(me->mod);
	free(me);
	s->st.modules_live--;
	s->st.modules_freed++;
}

/* Free the least recently unused modules beyond `keep`. */
static void modent_trim(struct kp_symbols *s, size_t keep)
{
	while (s->nr_idle > keep) {
		struct kp_modent *old = NULL;

		for (struct kp_modent *e = s->modules; e; e = e->next)
			if (!e->refs && (!old || e->idle_seq < old->idle_seq))
				old = e;
		if (!old)
			break;
		s->nr_idle--;
		modent_free(s, old);
	}
}

/* A module no process maps any more stays loaded (up to keep_idle of
 * them, least recently used freed first): short-lived processes map the
 * same libraries again and again, and loading libc's debug file costs
 * tens of milliseconds each time. */
static void modent_unref(struct kp_symbols *s, struct kp_modent *me)
{
	if (!me || --me->refs)
		return;
	me->idle_seq = ++s->idle_clock;
	s->nr_idle++;
	modent_trim(s, s->keep_idle);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The symbols' bytes: the modules' and the JIT tables'. */
static size_t held_bytes(const struct kp_symbols *s)
{
	return s->mod_bytes + (size_t)s->st.jit_bytes;
}

/* Over the byte budget (max_bytes, for the modules and the JIT tables
 * together): free unused modules, least recently unused first, then end
 * the DWARF of modules in use, least recently looked up first, down to
 * 3/4 of it (not again at the next lookup). The DWARF of a module
 * looked up less than dwarf_keep_ns ago stays, over the budget if need
 * be: begun again costs tens of ms for libc's, and a working set bigger
 * than the budget would otherwise be read again at every lookup. Symbol tables stay: a
 * name needs them. Called before a lookup: the names of the last one
 * may be freed (symbols.h). */
static void modent_budget(struct kp_symbols *s)
{
	size_t want = s->max_bytes - s->max_bytes / 4;
	uint64_t now;

	if (!s->max_bytes || held_bytes(s) <= s->max_bytes)
		return;
	while (held_bytes(s) > want && s->nr_idle) {
		size_t before = s->nr_idle;

		modent_trim(s, s->nr_idle - 1);
		if (s->nr_idle == before)
			break;
	}
	now = mono_ns();
	while (held_bytes(s) > want) {
		struct kp_modent *old = NULL;

		for (struct kp_modent *e = s->modules; e; e = e->next)
			if (e->dw_ns && e->dw_ns + s->dwarf_keep_ns <= now &&
			    (!old || e->use_seq < old->use_seq))
				old = e;
		if (!old)
			break;
		kp_module__end_dwarf(old->mod);
		old->dw_ns = 0;
		s->mod_bytes -= old->bytes;
		old->bytes = kp_module__bytes(old->mod);
		s->mod_bytes += old->bytes;
		s->st.dwarf_ended++;
	}
}

static void modent_ref(struct kp_symbols *s, struct kp_modent *me)
{
	if (me->refs++ == 0 && me->idle_seq) {
		me->idle_seq = 0;
		s->nr_idle--;
	}
}

static void module_opts(struct kp_symbols *s, const struct kp_sym_map *map,
			struct kp_module_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->debug_dirs = (const char *const *)s->debug_dirs;
	o->proc_root = s->proc_root;
	o->pid = map->pid;
	o->path = map->path;
	o->max_file_size = s->max_file_size;
	o->max_debugdata = KP_MINIDEBUG_MAX;
	o->demangle = s->demangle;
	o->dwcache = s->dwcache;
}

static void add_module_stats(struct kp_symbols *s, const struct kp_module_stats *ms)
{
	s->st.debug_build_id += ms->debug_build_id;
	s->st.debug_debuglink += ms->debug_debuglink;
	s->st.debug_mini += ms->debug_mini;
	s->st.debug_rejected += ms->debug_rejected;
}

static int build_id_ok(const struct kp_module *m, const struct kp_sym_map *map)
{
	const struct kp_elf_info *i = kp_module__info(m);

	return !map->build_id_len || (i->build_id_len == map->build_id_len &&
		memcmp(i->build_id, map->build_id, i->build_id_len) == 0);
}

/* A loaded module of the file fd was opened on (its device, inode,
 * modification time and size, as when that module was read), whatever
 * the key it was loaded under: a build-id (an mmap event) or the file's
 * identity (the /proc maps of a process seen at start). One module for
 * one file: libc's DWARF twice was 13 MB more. */
static struct kp_modent *modent_by_file(struct kp_symbols *s, const struct stat *st)
{
	for (struct kp_modent *e = s->modules; e; e = e->next)
		if (e->ino == (uint64_t)st->st_ino && e->maj == major(st->st_dev) &&
		    e->min == minor(st->st_dev) && e->size == (int64_t)st->st_size &&
		    e->mtime_s == (int64_t)st->st_mtim.tv_sec &&
		    e->mtime_ns == (long)st->st_mtim.tv_nsec)
			return e;
	return NULL;
}

/* The module of a file mapping: from the cache, or opened now. */
static struct kp_modent *file_module(struct kp_symbols *s,
				     const struct kp_sym_map *map)
{
	struct kp_module_stats ms = { 0 };
	struct kp_module_opts o;
	struct kp_modent *e;
	struct kp_module *m;
	struct stat st;
	char key[96];
	int fd;

	/* The kernel read the build-id from the mapped file: a module with
	 * that build-id names it, without opening anything. */
	if (map->build_id_len) {
		int n = snprintf(key, sizeof(key), "b:");

		for (unsigned i = 0; i < map->build_id_len && i < 20; i++)
			n += snprintf(key + n, sizeof(key) - (size_t)n, "%02x",
				      map->build_id[i]);
		if ((e = modent_find(s, key)) != NULL)
			return e;
	}
	fd = kp_symbols__open_map(s, map, &st, NULL, 0);
	if (fd < 0) {
		/* gone (process exited, file replaced): a module already
		 * loaded from that very inode still names it */
		if ((e = modent_by_inode(s, map)) != NULL && build_id_ok(e->mod, map))
			return e;
		goto out_fail;
	}
	if (!map->build_id_len) {
		snprintf(key, sizeof(key), "f:%" PRIx64 ":%" PRIu64 ":%lld.%ld:%lld",
			 (uint64_t)st.st_dev, (uint64_t)st.st_ino,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_size);
	}
	if ((e = modent_find(s, key)) != NULL ||
	    ((e = modent_by_file(s, &st)) != NULL && build_id_ok(e->mod, map))) {
		close(fd);
		return e;
	}
	if ((uint64_t)st.st_size > s->max_file_size) {
		close(fd);
		goto out_fail;
	}
	module_opts(s, map, &o);
	m = kp_module__open(fd, &o, &ms);
	add_module_stats(s, &ms);
	if (!m)
		goto out_fail;
	if (!build_id_ok(m, map)) {
		kp_module__free(m);
		s->st.debug_rejected++;
		goto out_fail;
	}
	kp_remote__ask(s, m);	/* no debug information here: a server's? */
	if ((e = modent_add(s, key, m)) != NULL) {
		e->maj = major(st.st_dev);
		e->min = minor(st.st_dev);
		e->ino = (uint64_t)st.st_ino;
		e->size = (int64_t)st.st_size;
		e->mtime_s = (int64_t)st.st_mtim.tv_sec;
		e->mtime_ns = (long)st.st_mtim.tv_nsec;
	}
	return e;
out_fail:
	s->st.module_open_failed++;
	return NULL;
}

/* len bytes at addr of process pid (0: kptop itself), from its memory
 * (/proc/PID/mem, under the proc root): 0, or -errno (-ESRCH: the process
 * is gone; -EFAULT: not all of it mapped). */
static int read_mem(const struct kp_symbols *s, uint32_t pid, uint64_t addr,
		    void *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%u/mem", s->proc_root,
		 pid ? pid : (uint32_t)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = pread(fd, buf, len, (off_t)addr);
	rc = n == (ssize_t)len ? 0 : n < 0 && errno == ESRCH ? -ESRCH : -EFAULT;
	close(fd);
	return rc;
}

/* Our own vdso image into buf when it is len bytes long once rounded to
 * pages (its mapping's length): 0, else -ENOENT. Every 64-bit process on
 * this kernel maps the same image (as the unwinder assumes), so this is
 * the image of a process that exited before its code was named. A 32-bit
 * process's vdso of the same length would get ours: not told apart. */
static int own_vdso(void *buf, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOENT;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size < sizeof(*eh) || (size + page - 1) / page * page != len)
		return -ENOENT;
	memcpy(buf, eh, len);
	return 0;
}

/* [vdso]: the image the process has mapped, read from its memory, or
 * ours once the process is gone. */
static struct kp_modent *vdso_module(struct kp_symbols *s,
				     const struct kp_sym_map *map)
{
	size_t len = map->end - map->start;
	struct kp_module_stats ms = { 0 };
	struct kp_module_opts o;
	struct kp_modent *e = NULL;
	struct kp_module *m;
	char key[96];
	void *buf;
	int rc;

	if (map->end <= map->start || len > KP_VDSO_MAX || !(buf = malloc(len)))
		return NULL;
	rc = read_mem(s, map->pid, map->start, buf, len);
	if (rc == -ESRCH)
		rc = own_vdso(buf, len);
	if (rc)
		goto out;
	snprintf(key, sizeof(key), "vdso:%zx:%lx", len,
		 crc32(crc32(0L, Z_NULL, 0), buf, (uInt)len));
	if ((e = modent_find(s, key)) != NULL)
		goto out;
	module_opts(s, map, &o);
	o.pid = 0;
	o.path = NULL;
	m = kp_module__open_mem(buf, len, &o, &ms);
	if (m)
		e = modent_add(s, key, m);
out:
	free(buf);
	if (!e)
		s->st.module_open_failed++;
	return e;
}

/* ---- processes and their mappings ---- */

static struct kp_sym_proc **proc_slot(struct kp_symbols *s, uint32_t pid,
				  uint64_t start)
{
	struct kp_sym_proc **pp = &s->procs[pid % KP_PROC_BUCKETS];

	while (*pp && ((*pp)->pid != pid || (*pp)->start != start))
		pp = &(*pp)->next;
	return pp;
}

static struct kp_sym_proc *proc_get(struct kp_symbols *s, uint32_t pid,
				uint64_t start)
{
	struct kp_sym_proc **pp = proc_slot(s, pid, start);

	if (!*pp) {
		*pp = calloc(1, sizeof(**pp));
		if (!*pp)
			return NULL;
		(*pp)->pid = pid;
		(*pp)->start = start;
	}
	return *pp;
}

static void proc_free(struct kp_symbols *s, struct kp_sym_proc *p)
{
	for (size_t i = 0; i < p->nr; i++)
		modent_unref(s, p->maps[i].me);
	kp_jit__drop(s, p);
	free(p->maps);
	free(p);
}

void kp_symbols__drop_proc(struct kp_symbols *s, uint32_t pid, uint64_t start)
{
	struct kp_sym_proc **pp = proc_slot(s, pid, start), *p = *pp;

	if (!p)
		return;
	*pp = p->next;
	proc_free(s, p);
}

void kp_symbols__drop_procs(struct kp_symbols *s)
{
	for (size_t b = 0; b < KP_PROC_BUCKETS; b++) {
		while (s->procs[b]) {
			struct kp_sym_proc *p = s->procs[b];

			s->procs[b] = p->next;
			proc_free(s, p);
		}
	}
	/* the unused modules kept for reuse (and any nobody holds) */
	while (s->modules) {
		struct kp_modent *e = s->modules;

		s->modules = e->next;
		kp_module__free(e->mod);
		free(e);
	}
	s->nr_idle = 0;
}

static enum kp_map_kind map_kind(const char *path)
{
	if (!path || !*path || strncmp(path, "//anon", 6) == 0)
		return MAP_ANON;
	if (strcmp(path, "[vdso]") == 0)
		return MAP_VDSO;
	if (path[0] == '[')
		return MAP_ANON;	/* [heap], [stack], [anon:...]: JIT code */
	return path[0] == '/' ? MAP_FILE : MAP_NONE;
}

static int pmap_same(const struct kp_pmap *pm, const struct kp_sym_map *map)
{
	return pm->start == map->start && pm->end == map->end &&
	       pm->pgoff == map->pgoff && pm->ino == map->ino &&
	       pm->maj == map->maj && pm->min == map->min;
}

static struct kp_pmap *pmap_get(struct kp_symbols *s, struct kp_sym_proc *p,
				const struct kp_sym_map *map)
{
	struct kp_pmap *pm;

	if (p->last < p->nr && pmap_same(&p->maps[p->last], map))
		return &p->maps[p->last];
	for (size_t i = 0; i < p->nr; i++) {
		if (pmap_same(&p->maps[i], map)) {
			p->last = i;
			return &p->maps[i];
		}
	}
	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct kp_pmap *n = realloc(p->maps, cap * sizeof(*n));

		if (!n)
			return NULL;
		p->maps = n;
		p->cap = cap;
	}
	pm = &p->maps[p->nr];
	memset(pm, 0, sizeof(*pm));
	pm->start = map->start;
	pm->end = map->end;
	pm->pgoff = map->pgoff;
	pm->ino = map->ino;
	pm->maj = map->maj;
	pm->min = map->min;
	pm->kind = map_kind(map->path);
	if (pm->kind == MAP_FILE)
		pm->me = file_module(s, map);
	else if (pm->kind == MAP_VDSO)
		pm->me = vdso_module(s, map);
	if (pm->me)
		modent_ref(s, pm->me);
	p->last = p->nr++;
	return pm;
}

/* ---- JIT maps (jitcache.c) ---- */

static int jit_lookup(struct kp_symbols *s, struct kp_sym_proc *p, uint64_t addr,
		      struct kp_sym_frame *out)
{
	const char *file;
	uint32_t line;
	const char *name = kp_jit__lookup(s, p, addr, &file, &line);

	if (!name)
		return 0;
	/* a runtime's name taken apart (jitname.h); the parts stay valid
	 * until the next lookup. A jitdump's line for addr comes first. */
	kp_jitname__parse(name, &s->jitname);
	memset(out, 0, sizeof(*out));
	out->name = s->jitname.fn;
	out->file = file ? file : s->jitname.file[0] ? s->jitname.file : NULL;
	out->line = file ? line : s->jitname.line;
	return 1;
}

/* ---- lookups ---- */

/* Every KP_SYMS_RELEASE_NS, the file pages the modules looked up since
 * touched (DWARF lines and scopes, the symbol table) leave kptop's RSS
 * (kp_module__release_pages): a debug file's .debug_line and
 * .debug_info would otherwise stay resident as far as names were made
 * from them, outside the memory budget. */
#define KP_SYMS_RELEASE_NS 10000000000ull

static void release_pages(struct kp_symbols *s)
{
	if (s->clock_ns < s->released_ns + KP_SYMS_RELEASE_NS)
		return;
	for (struct kp_modent *e = s->modules; e; e = e->next)
		if (e->use_seq > s->released_seq)
			kp_module__release_pages(e->mod);
	s->released_ns = s->clock_ns;
	s->released_seq = s->use_clock;
}

/* Count the module's bytes again (a lookup may have grown them). */
static void modent_recount(struct kp_symbols *s, struct kp_modent *me)
{
	s->mod_bytes -= me->bytes;
	me->bytes = kp_module__bytes(me->mod);
	s->mod_bytes += me->bytes;
}

/* The code at file offset off of module m. fn_only: the containing
 * function alone (kp_module__function, with its span). */
static int module_lookup(struct kp_symbols *s, struct kp_modent *me, uint64_t off,
			 struct kp_sym_frame *out, int max, int fn_only,
			 uint64_t *span)
{
	struct kp_module *m = me->mod;
	uint64_t vaddr;
	int n;

	if (kp_elf__offset_to_vaddr(kp_module__info(m), off, &vaddr) != 0)
		return 0;
	if (fn_only)
		return kp_module__function(m, vaddr, out, span);
	me->use_seq = ++s->use_clock;
	n = kp_module__lookup(m, vaddr, out, max);
	if ((s->use_clock & 63) == 1 || !s->clock_ns)
		s->clock_ns = mono_ns();	/* coarse: once every 64 lookups */
	release_pages(s);
	if (kp_module__dwarf_begun(m))
		me->dw_ns = s->clock_ns;
	modent_recount(s, me);
	return n;
}

/* Where the function holding file offset off of module me starts, by
 * its FDE: 1 with *start a file offset, 0 none, or -ENOMEM. */
static int module_start(struct kp_symbols *s, struct kp_modent *me, uint64_t off,
			uint64_t *start)
{
	const struct kp_elf_info *info = kp_module__info(me->mod);
	uint64_t vaddr, at;
	int n;

	if (kp_elf__offset_to_vaddr(info, off, &vaddr) != 0)
		return 0;
	n = kp_module__start(me->mod, vaddr, &at);
	modent_recount(s, me);	/* its FDE table may be new */
	if (n <= 0)
		return n;
	return kp_elf__vaddr_to_offset(info, at, start) == 0;
}

/* A lookup's answer n, counted in the stats. */
static int counted(struct kp_symbols *s, int n)
{
	s->st.lookups++;
	if (n > 0)
		s->st.named++;
	else
		s->st.unnamed++;
	return n;
}

/* The process of map and its entry for map (module opened on first
 * sight); NULL without memory. */
static struct kp_pmap *pmap_of(struct kp_symbols *s, const struct kp_sym_map *map,
			       struct kp_sym_proc **proc)
{
	struct kp_sym_proc *p = proc_get(s, map->pid, map->proc_start);

	*proc = p;
	return p ? pmap_get(s, p, map) : NULL;
}

static int user_lookup(struct kp_symbols *s, const struct kp_sym_map *map,
		       uint64_t addr, struct kp_sym_frame *out, int max,
		       int fn_only, uint64_t *span)
{
	struct kp_sym_proc *p;
	struct kp_pmap *pm;

	if (max <= 0 || addr < map->start || addr >= map->end)
		return counted(s, 0);
	kp_remote__poll(s);
	modent_budget(s);
	if (!(pm = pmap_of(s, map, &p))) {
		s->st.lookups++;
		return -ENOMEM;
	}
	if (pm->me)
		return counted(s, module_lookup(s, pm->me, addr - map->start + map->pgoff,
						out, max, fn_only, span));
	if (pm->kind == MAP_ANON)
		return counted(s, jit_lookup(s, p, addr, out));
	return counted(s, 0);
}

int kp_symbols__user(struct kp_symbols *s, const struct kp_sym_map *map,
		     uint64_t addr, struct kp_sym_frame *out, int max)
{
	return user_lookup(s, map, addr, out, max, 0, NULL);
}

int kp_symbols__user_function(struct kp_symbols *s, const struct kp_sym_map *map,
			      uint64_t addr, struct kp_sym_frame *out, uint64_t span[2])
{
	if (span)
		span[0] = span[1] = 0;
	return user_lookup(s, map, addr, out, 1, 1, span);
}

int kp_symbols__user_start(struct kp_symbols *s, const struct kp_sym_map *map,
			   uint64_t addr, uint64_t *off)
{
	struct kp_sym_proc *p;
	struct kp_pmap *pm;

	if (addr < map->start || addr >= map->end)
		return 0;
	modent_budget(s);
	if (!(pm = pmap_of(s, map, &p)))
		return -ENOMEM;
	return pm->me ? module_start(s, pm->me, addr - map->start + map->pgoff, off) : 0;
}

/* ---- code, for annotate ---- */

/* JIT code: the perf map's or jitdump's entry holding addr, its bytes
 * read now from the process's memory; its link-time address is its
 * address. */
static int jit_code(struct kp_symbols *s, struct kp_sym_proc *p,
		    const struct kp_sym_map *map, uint64_t addr,
		    struct kp_sym_code *out, const char **why)
{
	uint64_t start, size;
	const char *name = kp_jit__range(s, p, addr, &start, &size);
	int rc;

	*why = "JIT code without an entry in a perf map or jitdump";
	if (!name || start < map->start || start >= map->end)
		return 0;
	*why = "the JIT function is larger than 64 KiB";
	if (size > KP_JIT_CODE_MAX || size > map->end - start)
		return 0;
	if (!s->jit_code && !(s->jit_code = malloc(KP_JIT_CODE_MAX)))
		return -ENOMEM;
	rc = read_mem(s, map->pid, start, s->jit_code, (size_t)size);
	if (rc) {
		*why = rc == -ESRCH ? "the process has exited: its JIT code is gone"
				    : "the JIT code could not be read from the process";
		return 0;
	}
	out->start = start - map->start + map->pgoff;
	out->vaddr = start;
	out->name = name;
	out->bytes = s->jit_code;
	out->len = (size_t)size;
	if (!kp_jittab__unwind(p->jit->tab, start, &out->eh_frame, &out->eh_len,
			       &out->eh_vaddr))
		out->eh_frame = NULL;
	return 1;
}

int kp_symbols__code(struct kp_symbols *s, const struct kp_sym_map *map,
		     uint64_t addr, struct kp_sym_code *out, const char **why)
{
	struct kp_sym_proc *p;
	struct kp_pmap *pm;
	uint64_t vaddr, start, end, off;
	int n;

	memset(out, 0, sizeof(*out));
	*why = "the address is outside its mapping";
	if (addr < map->start || addr >= map->end)
		return 0;
	modent_budget(s);
	if (!(pm = pmap_of(s, map, &p)))
		return -ENOMEM;
	if (!pm->me && pm->kind == MAP_ANON && map->pid)
		return jit_code(s, p, map, addr, out, why);
	if (!pm->me) {
		*why = pm->kind == MAP_ANON ? "anonymous code of no process"
					    : "the module's file cannot be read";
		return 0;
	}
	off = addr - map->start + map->pgoff;
	*why = "the address is in no loaded segment";
	if (kp_elf__offset_to_vaddr(kp_module__info(pm->me->mod), off, &vaddr) != 0)
		return 0;
	n = kp_module__code(pm->me->mod, vaddr, &start, &end, &out->name,
			    &out->bytes, why);
	if (n <= 0)
		return n;
	if (kp_elf__vaddr_to_offset(kp_module__info(pm->me->mod), start, &out->start))
		return 0;
	out->vaddr = start;
	out->len = (size_t)(end - start);
	out->comp_dir = kp_module__comp_dir(pm->me->mod, start);
	pm->me->use_seq = ++s->use_clock;
	return 1;
}

/* ---- held modules: names for later ---- */

struct kp_sym_held *kp_symbols__hold(struct kp_symbols *s,
				     const struct kp_sym_map *map)
{
	struct kp_sym_proc *p;
	struct kp_pmap *pm = pmap_of(s, map, &p);

	if (!pm || !pm->me)
		return NULL;	/* anonymous (JIT) code, or nothing to open */
	modent_ref(s, pm->me);
	s->st.held++;
	return (struct kp_sym_held *)pm->me;
}

int kp_symbols__held_user(struct kp_symbols *s, struct kp_sym_held *h,
			  uint64_t off, struct kp_sym_frame *out, int max)
{
	if (max <= 0)
		return counted(s, 0);
	kp_remote__poll(s);
	modent_budget(s);
	return counted(s, module_lookup(s, (struct kp_modent *)h, off, out, max, 0, NULL));
}

int kp_symbols__held_start(struct kp_symbols *s, struct kp_sym_held *h,
			   uint64_t off, uint64_t *start)
{
	modent_budget(s);
	return module_start(s, (struct kp_modent *)h, off, start);
}

void kp_symbols__release(struct kp_symbols *s, struct kp_sym_held *h)
{
	if (!h)
		return;
	s->st.held--;
	modent_unref(s, (struct kp_modent *)h);
}

const char *kp_symbols__user_module_name(struct kp_symbols *s,
					 const struct kp_sym_map *map)
{
	const char *base;

	switch (map_kind(map->path)) {
	case MAP_VDSO:
		return "[vdso]";
	case MAP_ANON: {
		/* the model names a module when its mapping comes, before any
		 * lookup: the process's JIT file is read now (if it has one) */
		struct kp_sym_proc *p = map->pid ? proc_get(s, map->pid, map->proc_start) :
				       *proc_slot(s, map->pid, map->proc_start);

		if (p)
			kp_jit__refresh(s, p);
		return p && p->jit ? kp_jitname__module(p->jit->runtime) : "[anon]";
	}
	default:
		break;
	}
	base = strrchr(map->path, '/');
	kp_procfs__strip_deleted(base ? base + 1 : map->path, s->namebuf,
			       sizeof(s->namebuf));
	return s->namebuf;
}
