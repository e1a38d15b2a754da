// SPDX-License-Identifier: GPL-2.0-only
/* intern.c — modules, functions and frames, interned once each.
 *
 * A code address becomes a pc key (module, offset): user pcs through the
 * process's mappings (file offset, so every process mapping the same file
 * shares it), kernel pcs by address. A pc key is named once, when it is
 * first seen: by the resolver, unless a SYMTAB of its module names it
 * otherwise (then by that name), else "module @0xSTART" where the
 * resolver knows where its function starts (stripped code, by its FDE),
 * else "module+0xoffset". Each name becomes a frame; functions are
 * interned by (module, name).
 */
#include "model/intern.h"
#include "model/model-util.h"
#include "model/proc-int.h"
#include "model/mem.h"
#include "model/annot.h"
#include "model/model-int.h"	/* struct kp_model */
#include "util/mappath.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KP_MAX_INLINE 8
#define KP_KERNEL_KEY 0xfffffffeu

static uint32_t add_module(struct kp_model *m, const struct kp_model_module *mod,
			   uint32_t hash);

int kp_intern__init(struct kp_model *m)
{
	struct kp_model_module mod = { .symtab = -1, .proc = KP_NONE };
	struct kp_frame fr = { .pck = KP_NONE };
	uint32_t fn;

	mod.name = mod.path = kp_strpool__intern(&m->strs, "[unknown]");
	if (!mod.name || add_module(m, &mod, 1) != KP_MOD_UNKNOWN)
		return -ENOMEM;
	mod.name = mod.path = kp_strpool__intern(&m->strs, "[other]");
	if (!mod.name || add_module(m, &mod, 2) != KP_MOD_OTHER)
		return -ENOMEM;
	mod.name = mod.path = kp_strpool__intern(&m->strs, "[off-cpu]");
	if (!mod.name || add_module(m, &mod, 3) != KP_MOD_OFFCPU)
		return -ENOMEM;
	if (kp_grow(&m->in.frames, &m->in.cap_frames, 2, sizeof(*m->in.frames)))
		return -ENOMEM;
	fn = kp_intern__fn(m, KP_MOD_OTHER, "[root]");
	if (fn == KP_NONE)
		return -ENOMEM;
	fr.fn = fn;
	m->in.frames[KP_FRAME_ROOT] = fr;
	fn = kp_intern__fn(m, KP_MOD_OTHER, "[other]");
	if (fn == KP_NONE)
		return -ENOMEM;
	fr.fn = fn;
	m->in.frames[KP_FRAME_OTHER] = fr;
	m->in.nr_frames = 2;
	return 0;
}

static void release_held(struct kp_model *m);

void kp_intern__fini(struct kp_model *m)
{
	size_t i;

	release_held(m);
	free(m->in.late);
	free(m->in.held);
	for (i = 0; i < m->in.nr_symtabs; i++)
		free(m->in.symtabs[i].syms);
	free(m->in.symtabs);
	free(m->in.mods);
	free(m->in.fns);
	free(m->in.pcks);
	free(m->in.frames);
	free(m->in.refs);
	kp_htab__fini(&m->in.mod_tab);
	kp_htab__fini(&m->in.fn_tab);
	kp_htab__fini(&m->in.pck_tab);
	kp_htab__fini(&m->in.line_tab);
}

void kp_intern__bytes(const struct kp_intern *in, struct kp_mem *a)
{
	size_t i, b, u;

	KP_MEM_ARR(a, "frames", in->frames, in->nr_frames, in->cap_frames);
	KP_MEM_ARR(a, "pc keys", in->pcks, in->nr_pcks, in->cap_pcks);
	KP_MEM_TAB(a, "pc key table", &in->pck_tab);
	KP_MEM_ARR(a, "functions", in->fns, in->nr_fns, in->cap_fns);
	KP_MEM_TAB(a, "function table", &in->fn_tab);
	KP_MEM_TAB(a, "line frame table", &in->line_tab);
	b = in->cap_mods * sizeof(*in->mods) + kp_htab__bytes(&in->mod_tab) +
	    in->cap_symtabs * sizeof(*in->symtabs);
	u = in->nr_mods * sizeof(*in->mods) + kp_htab__used(&in->mod_tab) +
	    in->nr_symtabs * sizeof(*in->symtabs);
	for (i = 0; i < in->nr_symtabs; i++) {
		b += (in->symtabs[i].nr ? in->symtabs[i].nr : 1) * sizeof(struct kp_symbol);
		u += in->symtabs[i].nr * sizeof(struct kp_symbol);
	}
	kp_mem__put(a, "modules, symtabs", b, u);
	KP_MEM_ARR(a, "frame refs", in->refs, in->nr_refs, in->cap_refs);
}

/* Functions are interned by (module, name), a JIT generation's by its
 * first generation's module; their names are only stored in the pool
 * (the string table would be a second table as big as fn_tab). */
uint32_t kp_intern__fn(struct kp_model *m, uint32_t module, const char *name)
{
	size_t len = strlen(name);
	uint32_t h, v = 0;
	uint64_t *found;
	const char *s;

	module = m->in.mods[module].first;
	h = (uint32_t)kp_hash2(module, kp_hash_bytes(name, len, 0x5bd1e995));

	KP_HTAB_FIND(&m->in.fn_tab, h, v,
		     m->in.fns[v].module == module && !strcmp(m->in.fns[v].name, name), found);
	if (found)
		return v;
	if (kp_grow(&m->in.fns, &m->in.cap_fns, m->in.nr_fns + 1, sizeof(*m->in.fns)))
		return KP_NONE;
	s = kp_strpool__store(&m->strs, name, len);
	if (!s || kp_htab__insert(&m->in.fn_tab, h, (uint32_t)m->in.nr_fns))
		return KP_NONE;
	m->in.fns[m->in.nr_fns].name = s;
	m->in.fns[m->in.nr_fns].module = module;
	m->in.fns[m->in.nr_fns].kernel = m->in.mods[module].kernel;
	m->in.fns[m->in.nr_fns].unknown = 0;
	m->in.fns[m->in.nr_fns].start_line = 0;
	return (uint32_t)m->in.nr_fns++;
}

void kp_intern__fn_start_line(struct kp_model *m, uint32_t fn, uint32_t line)
{
	if (line && !m->in.fns[fn].start_line)
		m->in.fns[fn].start_line = line;
}

static uint32_t add_module(struct kp_model *m, const struct kp_model_module *mod,
			   uint32_t hash)
{
	struct kp_model_module *nm;
	size_t i;

	if (m->in.nr_mods >= KP_MODULE_MAX ||
	    kp_grow(&m->in.mods, &m->in.cap_mods, m->in.nr_mods + 1, sizeof(*m->in.mods)) ||
	    kp_htab__insert(&m->in.mod_tab, hash, (uint32_t)m->in.nr_mods))
		return KP_NONE;
	nm = &m->in.mods[m->in.nr_mods];
	*nm = *mod;
	nm->first = (uint32_t)m->in.nr_mods;
	nm->symtab = -1;
	for (i = 0; i < m->in.nr_symtabs; i++)
		if (kp_intern__symtab_matches(&m->in.symtabs[i], nm))
			nm->symtab = (int32_t)i;
	return (uint32_t)m->in.nr_mods++;
}

static int module_eq(const struct kp_model_module *a, const struct kp_model_module *b)
{
	if (a->kernel != b->kernel || a->build_id_len != b->build_id_len)
		return 0;
	if (a->build_id_len)
		return !memcmp(a->build_id, b->build_id, a->build_id_len);
	return a->maj == b->maj && a->min == b->min && a->ino == b->ino &&
	       a->proc == b->proc && a->gen == b->gen && !strcmp(a->path, b->path);
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

int kp_module_anon(const struct kp_model_module *mod)
{
	return mod->proc != KP_NONE && !kp_mappath_is_file(mod->path);
}

/* Code the same in every process that maps it: the kernel's images, and
 * Python's pseudo module (its addresses name code by content). */
static int shared_image(const char *path)
{
	return !strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]") ||
	       !strncmp(path, KP_PYTHON_MODULE_PREFIX, sizeof(KP_PYTHON_MODULE_PREFIX) - 1);
}

/* A mapping with no build ID and no inode, but the shared images: its
 * module is private to its process (kp_intern__module). */
static int private_map(uint8_t build_id_len, uint64_t ino, const char *path)
{
	return !build_id_len && !ino && !shared_image(path);
}

int kp_map_info_anon(const struct kp_map_info *mi)
{
	const char *path = mi->path ? mi->path : "";

	return private_map(mi->build_id_len, mi->ino, path) && !kp_mappath_is_file(path);
}

/* The module of a user mapping: build-id, else dev + inode + path; a
 * mapping with neither (anonymous, JIT) is private to proc, but for the
 * shared images, one module for all processes. */
uint32_t kp_intern__module(struct kp_model *m, const struct kp_map_info *mi,
			   uint32_t proc)
{
	struct kp_model_module key = { .maj = mi->maj, .min = mi->min, .ino = mi->ino,
				 .build_id_len = mi->build_id_len,
				 .proc = KP_NONE, .symtab = -1,
				 .map_start = mi->addr, .map_limit = mi->addr + mi->len,
				 .map_pgoff = mi->pgoff };
	const char *name = NULL;
	uint32_t h, v = 0;
	uint64_t *found;

	key.path = kp_strpool__intern(&m->strs, mi->path ? mi->path : "");
	if (!key.path)
		return KP_NONE;
	memcpy(key.build_id, mi->build_id, sizeof(key.build_id));
	if (private_map(key.build_id_len, key.ino, key.path)) {
		const struct kp_proc *p = &m->pr.procs[proc];

		key.proc = p->serial;	/* not its index: procs are renumbered */
		key.gen = kp_mappath_is_file(key.path) ? 0 : p->jit_gen;
		key.pid = p->pid;
		key.pstart = p->start_ns;
	}
	if (key.build_id_len)
		h = (uint32_t)kp_hash_bytes(key.build_id, key.build_id_len, 7);
	else
		h = (uint32_t)kp_hash2(kp_hash2(kp_hash2(key.ino, key.proc), key.gen),
				       (uintptr_t)key.path);
	KP_HTAB_FIND(&m->in.mod_tab, h, v, module_eq(&m->in.mods[v], &key), found);
	if (found)
		return v;
	if (m->res.ops && m->res.ops->module_name)
		name = m->res.ops->module_name(m->res.ctx, mi, mi->addr);
	key.name = kp_strpool__intern(&m->strs, name ? name : basename_of(key.path));
	if (!key.name)
		return KP_NONE;
	return add_module(m, &key, h);
}

static uint32_t kernel_module(struct kp_model *m, uint64_t pc)
{
	struct kp_model_module key = { .kernel = 1, .proc = KP_NONE, .symtab = -1 };
	const char *name = NULL;
	uint32_t h, v = 0;
	uint64_t *found;

	if (m->res.ops && m->res.ops->module_name)
		name = m->res.ops->module_name(m->res.ctx, NULL, pc);
	key.name = kp_strpool__intern(&m->strs, name ? name : "[kernel]");
	if (!key.name)
		return KP_NONE;
	key.path = strcmp(key.name, "[kernel]") ? key.name :
		   kp_strpool__intern(&m->strs, "[kernel.kallsyms]");
	if (!key.path)
		return KP_NONE;
	h = (uint32_t)kp_hash2(KP_KERNEL_KEY, (uintptr_t)key.name);
	KP_HTAB_FIND(&m->in.mod_tab, h, v,
		     m->in.mods[v].kernel && m->in.mods[v].name == key.name, found);
	if (found)
		return v;
	return add_module(m, &key, h);
}

static int add_frame(struct kp_model *m, uint32_t pck, uint32_t fn,
		     const struct kp_frame_info *fi)
{
	struct kp_frame *f;

	if (fn == KP_NONE ||
	    kp_grow(&m->in.frames, &m->in.cap_frames, m->in.nr_frames + 1, sizeof(*m->in.frames)))
		return -ENOMEM;
	f = &m->in.frames[m->in.nr_frames++];
	memset(f, 0, sizeof(*f));
	f->fn = fn;
	f->pck = pck;
	if (fi && fi->file) {
		uint32_t file = kp_strpool__intern_idx(&m->strs, fi->file);

		if (file == KP_NONE)
			return -ENOMEM;
		f->file = file + 1;
		f->line = fi->line < (1u << 31) ? fi->line : 0;
	}
	f->inlined = fi ? !!fi->inlined : 0;
	if (fi)
		kp_intern__fn_start_line(m, fn, fi->start_line);
	return 0;
}

static uint32_t unknown_fn(struct kp_model *m, const struct kp_pck *k)
{
	char buf[KP_PATH_MAX + 32];

	uint32_t fn;

	if (k->module == KP_MOD_UNKNOWN && k->off == KP_JUNK_OFF)
		snprintf(buf, sizeof(buf), "%s", m->in.mods[k->module].name);
	else
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, m->in.mods[k->module].name, k->off);
	fn = kp_intern__fn(m, k->module, buf);
	if (fn != KP_NONE)
		m->in.fns[fn].unknown = 1;
	return fn;
}

/* The function of code without a name that starts at file offset start
 * of module mod (its FDE): "module @0xSTART", one for all its pcs. Not a
 * name (unknown): a save's SYMTAB gives it as an unnamed symbol at its
 * start (kp_intern__fn_start), a late named one renames it. */
uint32_t kp_intern__start_fn(struct kp_model *m, uint32_t mod, uint64_t start)
{
	char buf[KP_PATH_MAX + 32];
	uint32_t fn;

	snprintf(buf, sizeof(buf), "%s @0x%" PRIx64, m->in.mods[mod].name, start);
	fn = kp_intern__fn(m, mod, buf);
	if (fn != KP_NONE)
		m->in.fns[fn].unknown = 1;
	return fn;
}

int kp_intern__fn_start(const struct kp_model *m, uint32_t fn, uint64_t *start)
{
	const struct kp_func *f = &m->in.fns[fn];
	const char *mod = m->in.mods[f->module].name, *p;
	size_t len = strlen(mod);
	char *end;

	if (!f->unknown || f->kernel || strncmp(f->name, mod, len) ||
	    strncmp(f->name + len, " @0x", 4))
		return 0;
	p = f->name + len + 4;
	errno = 0;
	*start = strtoull(p, &end, 16);
	return end != p && !*end && !errno;
}

/* Give pc key k the frames fi[0..n) (n <= 0: unknown). */
static int add_frames(struct kp_model *m, uint32_t k, struct kp_frame_info *fi, int n)
{
	int i, err;

	m->in.pcks[k].first = (uint32_t)m->in.nr_frames;
	if (n <= 0) {
		n = 1;
		memset(fi, 0, sizeof(fi[0]));
	}
	if (n > KP_MAX_INLINE)	/* pck.n has 4 bits */
		n = KP_MAX_INLINE;
	for (i = 0; i < n; i++) {
		uint32_t mod = m->in.pcks[k].module, fn;

		if (fi[i].name)
			fn = kp_intern__fn(m, mod, fi[i].name);
		else if (fi[i].start_known && !m->in.mods[mod].kernel)
			fn = kp_intern__start_fn(m, mod, fi[i].start);
		else
			fn = unknown_fn(m, &m->in.pcks[k]);

		err = add_frame(m, k, fn, &fi[i]);
		if (err)
			return err;
	}
	m->in.pcks[k].n = (uint32_t)n;
	return 0;
}

/* The symbol of k in a symbol table of the stream, else NULL. */
static const struct kp_symbol *table_sym(struct kp_model *m, uint32_t k)
{
	const struct kp_model_module *mod = &m->in.mods[m->in.pcks[k].module];

	if (mod->symtab < 0)
		return NULL;
	return kp_intern__symtab_sym(&m->in.symtabs[mod->symtab], m->in.pcks[k].off);
}

/* The stream's table says k is in the function without a name that
 * starts at start: the resolver's frames stand when they say so too. */
static int table_start(struct kp_frame_info *fi, int n, uint64_t start)
{
	if (n > 0 && !fi[n - 1].name && fi[n - 1].start_known && fi[n - 1].start == start)
		return n;
	fi[0] = (struct kp_frame_info){ .start_known = 1, .start = start };
	return 1;
}

/* Give pc key k its frames: from the resolver, by its module's offset
 * when the resolver holds the module (a late key: mi is gone), else by
 * asking about addr in mapping mi; else "module+0xoff". A table of the
 * stream (a replay) has the last word: its name for k is the function
 * the live run found there (one name per address), and the resolver's
 * frames stand only when they end in that function. Then they are what
 * the live run had, inlined frames and lines too, named when the live
 * run named them; else the file read now is not the one sampled, and
 * the stream's CODE record there, if any, gives the line. */
static int name_pck(struct kp_model *m, uint32_t k, const struct kp_map_info *mi,
		    uint64_t addr)
{
	struct kp_frame_info fi[KP_MAX_INLINE];
	const struct kp_model_module *mod = &m->in.mods[m->in.pcks[k].module];
	const struct kp_symbol *sym = table_sym(m, k);
	const char *name = sym && *sym->name ? sym->name : NULL;
	int n = 0;

	if (mod->held) {
		n = m->res.ops->symbolize_held(m->res.ctx, mod->held, m->in.pcks[k].off,
					       fi, KP_MAX_INLINE);
	} else if (m->res.ops && m->res.ops->symbolize &&
		   m->in.pcks[k].module != KP_MOD_UNKNOWN) {
		n = m->res.ops->symbolize(m->res.ctx, mi, addr, fi, KP_MAX_INLINE);
	}
	if (n > KP_MAX_INLINE)
		n = KP_MAX_INLINE;
	if (sym && !name)
		n = table_start(fi, n, sym->addr);
	else if (name && (n <= 0 || !fi[n - 1].name || strcmp(fi[n - 1].name, name))) {
		fi[0] = (struct kp_frame_info){ .name = name };
		/* the stream's code has the line (and the inlined function)
		 * the live run found there */
		n = kp_codes__frames(m, mod, m->in.pcks[k].off, name, fi, KP_MAX_INLINE);
		if (n <= 0)
			n = 1;
	}
	return add_frames(m, k, fi, n);
}

/* Can new key k of mapping mi wait for its names? Yes when the resolver
 * holds its module. */
static int hold_for_late(struct kp_model *m, uint32_t k, const struct kp_map_info *mi)
{
	struct kp_model_module *mod = &m->in.mods[m->in.pcks[k].module];
	const struct kp_resolver_ops *ops = m->res.ops;

	if (!mi || m->in.pcks[k].module == KP_MOD_UNKNOWN ||
	    !ops || !ops->hold || !ops->symbolize_held || !ops->release)
		return 0;
	if (mod->held)
		return 1;
	if (kp_grow(&m->in.held, &m->in.cap_held, m->in.nr_held + 1, sizeof(*m->in.held)))
		return 0;
	mod->held = ops->hold(m->res.ctx, mi);
	if (!mod->held)
		return 0;
	m->in.held[m->in.nr_held++] = m->in.pcks[k].module;
	return 1;
}

static void release_held(struct kp_model *m)
{
	size_t i;

	for (i = 0; i < m->in.nr_held; i++) {
		struct kp_model_module *mod = &m->in.mods[m->in.held[i]];

		m->res.ops->release(m->res.ctx, mod->held);
		mod->held = NULL;
	}
	m->in.nr_held = 0;
}

int kp_intern__name_late(struct kp_model *m)
{
	int err = 0;
	size_t i;

	for (i = 0; i < m->in.nr_late && !err; i++)
		err = name_pck(m, m->in.late[i], NULL, 0);	/* its module is held */
	m->in.nr_late = 0;
	release_held(m);
	return err;
}

static uint32_t new_pck(struct kp_model *m, uint32_t h, uint32_t module,
			uint64_t off, const struct kp_map_info *mi, uint64_t addr,
			int late)
{
	struct kp_pck *k;
	uint32_t idx = (uint32_t)m->in.nr_pcks;

	if (kp_grow(&m->in.pcks, &m->in.cap_pcks, m->in.nr_pcks + 1, sizeof(*m->in.pcks)) ||
	    kp_htab__insert(&m->in.pck_tab, h, idx))
		return KP_NONE;
	k = &m->in.pcks[m->in.nr_pcks++];
	memset(k, 0, sizeof(*k));
	k->module = module;
	k->off = off;
	if (late && hold_for_late(m, idx, mi) &&
	    !kp_grow(&m->in.late, &m->in.cap_late, m->in.nr_late + 1, sizeof(*m->in.late))) {
		m->in.late[m->in.nr_late++] = idx;	/* n == 0 until then */
		return idx;
	}
	if (name_pck(m, idx, mi, addr))
		return KP_NONE;
	return idx;
}

/* The pc key (module, off) of a user pc, found or made (named by asking
 * the resolver about addr in mapping mi). */
static uint32_t user_pck(struct kp_model *m, uint32_t module, uint64_t off,
			 const struct kp_map_info *mi, uint64_t addr, int late)
{
	uint32_t h = (uint32_t)kp_hash2(module, off), v = 0;
	uint64_t *found;

	KP_HTAB_FIND(&m->in.pck_tab, h, v,
		     m->in.pcks[v].module == module && m->in.pcks[v].off == off, found);
	if (found)
		return v;
	return new_pck(m, h, module, off, mi, addr, late);
}

uint32_t kp_intern__user_pc(struct kp_model *m, uint32_t p, uint64_t pc, int ret,
			    int late)
{
	uint32_t module = KP_MOD_UNKNOWN;
	const struct kp_map_info *mi;
	uint64_t off = pc, addr = pc;

	mi = kp_proc__find_map(&m->pr.procs[p], pc, &module);
	if (mi) {
		addr = ret && pc > mi->addr ? pc - 1 : pc;
		off = addr - mi->addr + mi->pgoff;
	}
	return user_pck(m, module, off, mi, addr, late);
}

void kp_intern__prefetch(struct kp_model *m, uint32_t p, const uint64_t *u, size_t nu)
{
	const struct kp_map_info *mi;
	uint32_t module;

	if (!m->res.ops || !m->res.ops->prefetch)
		return;
	for (size_t i = 0; i < nu; i++) {
		mi = kp_proc__find_map(&m->pr.procs[p], u[i], &module);
		if (!mi || m->in.mods[module].prefetched || m->in.mods[module].proc != KP_NONE)
			continue;	/* none, done, or anonymous (JIT) code */
		m->in.mods[module].prefetched = 1;
		m->res.ops->prefetch(m->res.ctx, mi);
	}
}

/* Its function's index is its offset: one key, one frame per name. */
uint32_t kp_intern__pseudo(struct kp_model *m, const char *name)
{
	uint32_t fn = kp_intern__fn(m, KP_MOD_OFFCPU, name), h, v = 0, idx;
	struct kp_pck *k;
	uint64_t *found;

	if (fn == KP_NONE)
		return KP_NONE;
	h = (uint32_t)kp_hash2(KP_MOD_OFFCPU, fn);
	KP_HTAB_FIND(&m->in.pck_tab, h, v,
		     m->in.pcks[v].module == KP_MOD_OFFCPU && m->in.pcks[v].off == fn, found);
	if (found)
		return v;
	idx = (uint32_t)m->in.nr_pcks;
	if (kp_grow(&m->in.pcks, &m->in.cap_pcks, m->in.nr_pcks + 1, sizeof(*m->in.pcks)) ||
	    add_frame(m, idx, fn, NULL))
		return KP_NONE;
	if (kp_htab__insert(&m->in.pck_tab, h, idx)) {
		m->in.nr_frames--;	/* the frame of a key that is not there */
		return KP_NONE;
	}
	k = &m->in.pcks[m->in.nr_pcks++];
	memset(k, 0, sizeof(*k));
	k->module = KP_MOD_OFFCPU;
	k->off = fn;
	k->first = (uint32_t)m->in.nr_frames - 1;
	k->n = 1;
	return idx;
}

uint32_t kp_intern__junk(struct kp_model *m)
{
	return user_pck(m, KP_MOD_UNKNOWN, KP_JUNK_OFF, NULL, 0, 0);
}

uint32_t kp_intern__kernel_pc(struct kp_model *m, uint64_t pc)
{
	uint32_t h = (uint32_t)kp_hash2(KP_KERNEL_KEY, pc), v = 0, module;
	uint64_t *found;

	KP_HTAB_FIND(&m->in.pck_tab, h, v,
		     m->in.pcks[v].off == pc && m->in.mods[m->in.pcks[v].module].kernel, found);
	if (found)
		return v;
	module = kernel_module(m, pc);
	if (module == KP_NONE)
		return KP_NONE;
	return new_pck(m, h, module, pc, NULL, pc, 0);
}

const char *kp_intern__source(struct kp_model *m, uint32_t frame)
{
	const struct kp_frame *f = &m->in.frames[frame];

	if (!f->file)
		return NULL;
	return kp_strpool__printf(&m->strs, "%s:%" PRIu32, kp_frame_file(m, f),
				  (uint32_t)f->line);
}

static int same_line(const struct kp_frame *a, const struct kp_frame *b)
{
	return a->fn == b->fn && a->file == b->file && a->line == b->line &&
	       a->inlined == b->inlined;
}

uint32_t kp_intern__line_frame(struct kp_model *m, uint32_t frame)
{
	const struct kp_frame *f = &m->in.frames[frame];
	uint32_t h, v = 0;
	uint64_t *found;

	if (f->pck == KP_NONE)
		return frame;
	h = (uint32_t)kp_hash2(kp_hash2(f->fn, f->file), (uint64_t)f->line << 1 | f->inlined);
	KP_HTAB_FIND(&m->in.line_tab, h, v, same_line(&m->in.frames[v], f), found);
	if (found)
		return v;
	return kp_htab__insert(&m->in.line_tab, h, frame) ? KP_NONE : frame;
}

uint32_t kp_intern__fn_frame(struct kp_model *m, uint32_t frame)
{
	uint32_t fn = m->in.frames[frame].fn, h, v = 0;
	uint64_t *found;

	if (m->in.frames[frame].pck == KP_NONE)
		return frame;
	/* in line_tab, under a key of its own: any frame of fn will do */
	h = (uint32_t)kp_hash2(fn, UINT64_MAX);
	KP_HTAB_FIND(&m->in.line_tab, h, v, m->in.frames[v].fn == fn, found);
	if (found)
		return v;
	return kp_htab__insert(&m->in.line_tab, h, frame) ? KP_NONE : frame;
}
