// SPDX-License-Identifier: GPL-2.0-only
#include "pump/resolve.h"
#include "pump/resolve-code.h"
#include "pump/resolve-jit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KP_INTERN_CHUNK (64u << 10)
#define KP_PATHCACHE_SLOTS 4096		/* power of two */
#define KP_RESOLVE_MAX_FRAMES 32

struct kp_chunk {
	struct kp_chunk *next;
	size_t used, cap;
	char data[];
};

struct kp_pathent {
	uint32_t pid, used;
	uint64_t proc_start, addr, len, pgoff, ino;
	const char *path;	/* interned; "" when no safe path exists */
};

struct kp_resolve {
	struct kp_symbols *syms;
	struct kp_unwinder *unw;
	/* interned strings: open addressing over pointers into chunks */
	const char **set;
	size_t set_cap, set_nr, bytes;
	struct kp_chunk *chunks;
	struct kp_pathent *paths;
	size_t nr_paths;
	struct kp_unwind_map *umaps;
	size_t cap_umaps;
	struct kp_resolver_ops ops;	/* resolve_ops; prefetch only if fetching */
	struct kp_rcode *code;		/* annotate's ops, made on first use */
	struct kp_rjit *jit;		/* JIT code's bytes for the unwinder */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int set_grow(struct kp_resolve *r)
{
	size_t cap = r->set_cap ? r->set_cap * 2 : 4096;
	const char **n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < r->set_cap; i++) {
		size_t j;

		if (!r->set[i])
			continue;
		for (j = hash_str(r->set[i]) & (cap - 1); n[j]; j = (j + 1) & (cap - 1))
			;
		n[j] = r->set[i];
	}
	free(r->set);
	r->set = n;
	r->set_cap = cap;
	return 0;
}

static char *chunk_alloc(struct kp_resolve *r, size_t len)
{
	struct kp_chunk *c = r->chunks;

	if (!c || c->cap - c->used < len) {
		size_t cap = len > KP_INTERN_CHUNK ? len : KP_INTERN_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = r->chunks;
		c->used = 0;
		c->cap = cap;
		r->chunks = c;
	}
	c->used += len;
	return c->data + c->used - len;
}

/* The interned copy of s (NULL for NULL, and on ENOMEM). */
static const char *intern(struct kp_resolve *r, const char *s)
{
	size_t i, len;
	char *copy;

	if (!s)
		return NULL;
	if ((r->set_nr + 1) * 2 > r->set_cap && set_grow(r) != 0)
		return NULL;
	for (i = hash_str(s) & (r->set_cap - 1); r->set[i];
	     i = (i + 1) & (r->set_cap - 1))
		if (strcmp(r->set[i], s) == 0)
			return r->set[i];
	len = strlen(s) + 1;
	if (!(copy = chunk_alloc(r, len)))
		return NULL;
	memcpy(copy, s, len);
	r->set[i] = copy;
	r->set_nr++;
	r->bytes += len;
	return copy;
}

void kp_resolve__sym_map(const struct kp_map_info *m, struct kp_sym_map *out)
{
	memset(out, 0, sizeof(*out));
	out->pid = m->pid;
	out->proc_start = m->proc_start_ns;
	out->start = m->addr;
	out->end = m->addr + m->len;
	out->pgoff = m->pgoff;
	out->maj = m->maj;
	out->min = m->min;
	out->ino = m->ino;
	out->build_id = m->build_id_len ? m->build_id : NULL;
	out->build_id_len = m->build_id_len;
	out->path = m->path ? m->path : "";
}

/* The symbolizer's frames f[0..n) as the model's, names interned. */
static int to_frames(struct kp_resolve *r, const struct kp_sym_frame *f, int n,
		     struct kp_frame_info *out)
{
	for (int i = 0; i < n; i++) {
		out[i].name = intern(r, f[i].name);
		out[i].mangled = intern(r, f[i].mangled);
		out[i].file = intern(r, f[i].file);
		out[i].line = f[i].line;
		out[i].start_line = f[i].start_line;
		out[i].inlined = f[i].inlined;
		if (!out[i].name && f[i].name)
			return -ENOMEM;
	}
	return n;
}

/* Code nothing names, whose function starts at file offset start (an
 * FDE, kp_symbols__user_start's answer ret): one frame without a name. */
static int start_frame(int ret, uint64_t start, struct kp_frame_info *out)
{
	if (ret <= 0)
		return ret;
	memset(out, 0, sizeof(*out));
	out->start_known = 1;
	out->start = start;
	return 1;
}

static int op_symbolize(void *ctx, const struct kp_map_info *map, uint64_t addr,
			struct kp_frame_info *out, int max)
{
	struct kp_resolve *r = ctx;
	struct kp_sym_frame f[KP_RESOLVE_MAX_FRAMES];
	struct kp_sym_map sm;
	uint64_t start = 0;
	int n;

	if (max <= 0)
		return 0;
	if (!map)
		return to_frames(r, f, kp_symbols__kernel(r->syms, addr, f), out);
	kp_resolve__sym_map(map, &sm);
	n = kp_symbols__user(r->syms, &sm, addr, f,
			     max < KP_RESOLVE_MAX_FRAMES ? max : KP_RESOLVE_MAX_FRAMES);
	if (n != 0)
		return to_frames(r, f, n, out);
	n = kp_symbols__user_start(r->syms, &sm, addr, &start);
	return start_frame(n, start, out);
}

static void *op_hold(void *ctx, const struct kp_map_info *map)
{
	struct kp_resolve *r = ctx;
	struct kp_sym_map sm;

	kp_resolve__sym_map(map, &sm);
	return kp_symbols__hold(r->syms, &sm);
}

static int op_symbolize_held(void *ctx, void *held, uint64_t off,
			     struct kp_frame_info *out, int max)
{
	struct kp_resolve *r = ctx;
	struct kp_sym_frame f[KP_RESOLVE_MAX_FRAMES];
	uint64_t start = 0;
	int n;

	if (max <= 0)
		return 0;
	n = kp_symbols__held_user(r->syms, held, off, f,
				  max < KP_RESOLVE_MAX_FRAMES ? max : KP_RESOLVE_MAX_FRAMES);
	if (n != 0)
		return to_frames(r, f, n, out);
	n = kp_symbols__held_start(r->syms, held, off, &start);
	return start_frame(n, start, out);
}

static void op_release(void *ctx, void *held)
{
	struct kp_resolve *r = ctx;

	kp_symbols__release(r->syms, held);
}

static int op_function(void *ctx, const struct kp_map_info *map, uint64_t addr,
		       const char **name, uint64_t span[2])
{
	struct kp_resolve *r = ctx;
	struct kp_sym_frame f;
	struct kp_sym_map sm;
	int n;

	kp_resolve__sym_map(map, &sm);
	n = kp_symbols__user_function(r->syms, &sm, addr, &f, span);
	if (n <= 0)
		return n;
	*name = intern(r, f.name);
	return *name ? 1 : -ENOMEM;
}

static const char *op_module_name(void *ctx, const struct kp_map_info *map,
				  uint64_t addr)
{
	struct kp_resolve *r = ctx;
	struct kp_sym_map sm;

	if (!map)
		return intern(r, kp_symbols__module_name(r->syms, NULL, addr));
	kp_resolve__sym_map(map, &sm);
	return intern(r, kp_symbols__module_name(r->syms, &sm, addr));
}

static struct kp_pathent *path_slot(struct kp_resolve *r, const struct kp_map_info *m)
{
	uint64_t h = (m->pid * 0x9E3779B97F4A7C15ull) ^ (m->addr * 0xC2B2AE3D27D4EB4Full) ^
		     m->proc_start_ns ^ m->ino;
	size_t i = (size_t)(h >> 32) & (KP_PATHCACHE_SLOTS - 1);
	struct kp_pathent *e;

	for (;; i = (i + 1) & (KP_PATHCACHE_SLOTS - 1)) {
		e = &r->paths[i];
		if (!e->used || (e->pid == m->pid && e->proc_start == m->proc_start_ns &&
				 e->addr == m->addr && e->len == m->len &&
				 e->pgoff == m->pgoff && e->ino == m->ino))
			return e;
	}
}

/* A path the unwinder may open for m: checked, cached, and looked for
 * again when the cached one is gone. */
static const char *safe_path(struct kp_resolve *r, const struct kp_map_info *m)
{
	struct kp_pathent *e;
	struct kp_sym_map sm;
	const char *p;
	char buf[4200];

	if (r->nr_paths >= KP_PATHCACHE_SLOTS / 2) {
		memset(r->paths, 0, KP_PATHCACHE_SLOTS * sizeof(*r->paths));
		r->nr_paths = 0;
	}
	e = path_slot(r, m);
	/* Asked again for a map (the unwinder could not open its path, or
	 * dropped its module): a /proc path of a process that has exited
	 * since is found again, as the host's file if it is the mapped one. */
	if (e->used && (!e->path[0] || access(e->path, F_OK) == 0))
		return e->path;
	kp_resolve__sym_map(m, &sm);
	if (sm.path[0] != '/' || kp_symbols__safe_path(r->syms, &sm, buf, sizeof(buf)) != 0)
		buf[0] = '\0';
	if (!(p = intern(r, buf)))
		return e->used ? e->path : "";
	e->path = p;
	if (e->used)
		return p;
	e->used = 1;
	e->pid = m->pid;
	e->proc_start = m->proc_start_ns;
	e->addr = m->addr;
	e->len = m->len;
	e->pgoff = m->pgoff;
	e->ino = m->ino;
	r->nr_paths++;
	return e->path;
}

/* The unwinder's path function: maps it is given come from the model
 * (src is a struct kp_map_info), without a path until it needs one. */
static const char *unwind_path(void *ctx, const struct kp_unwind_map *map)
{
	const struct kp_map_info *m = map->src;
	const char *p;

	if (!m)
		return NULL;
	p = safe_path(ctx, m);
	return p && p[0] ? p : NULL;
}

static int op_unwind(void *ctx, const struct kp_rec_sample *s,
		     const struct kp_map_info *maps, size_t nr_maps,
		     uint64_t *pcs, int max, int *truncated)
{
	struct kp_resolve *r = ctx;
	enum kp_ustack_how how = KP_USTACK_NONE;
	int n;

	if (!r->unw || !s->nr_regs)
		return -ENOTSUP;
	if (nr_maps > r->cap_umaps) {
		struct kp_unwind_map *um = realloc(r->umaps, nr_maps * sizeof(*um));

		if (!um)
			return -ENOMEM;
		r->umaps = um;
		r->cap_umaps = nr_maps;
	}
	for (size_t i = 0; i < nr_maps; i++) {
		r->umaps[i].start = maps[i].addr;
		r->umaps[i].end = maps[i].addr + maps[i].len;
		r->umaps[i].pgoff = maps[i].pgoff;
		r->umaps[i].maj = maps[i].maj;
		r->umaps[i].min = maps[i].min;
		r->umaps[i].ino = maps[i].ino;
		r->umaps[i].build_id = maps[i].build_id;
		r->umaps[i].build_id_len = maps[i].build_id_len;
		r->umaps[i].path = NULL;	/* asked for if needed */
		r->umaps[i].src = &maps[i];
	}
	n = kp_unwinder__user_stack(r->unw, s->pid, r->umaps, nr_maps, s->regs,
				    s->nr_regs, s->stack, s->stack_len,
				    s->uframes, s->uframes ? s->nr_uframes : 0,
				    pcs, max, truncated, &how, NULL);
	/* the frame-pointer stack as it came: let the model keep its own */
	if (n >= 0 && how != KP_USTACK_DWARF && how != KP_USTACK_FP_LEAF)
		return -ENODATA;
	return n;
}

static void op_process_gone(void *ctx, uint32_t pid, uint64_t start_ns)
{
	struct kp_resolve *r = ctx;

	kp_symbols__process_gone(r->syms, pid, start_ns);
}

static void op_prefetch(void *ctx, const struct kp_map_info *map)
{
	struct kp_resolve *r = ctx;
	struct kp_sym_map sm;

	kp_resolve__sym_map(map, &sm);
	kp_symbols__prefetch(r->syms, &sm);
}

static uint64_t op_names_epoch(void *ctx, void *held)
{
	struct kp_resolve *r = ctx;

	return held ? kp_symbols__held_epoch(r->syms, held) :
		      kp_symbols__debug_epoch(r->syms);
}

static void op_jit_poll(void *ctx, void (*before)(void *bctx, uint32_t pid, uint64_t start),
			void *bctx)
{
	struct kp_resolve *r = ctx;

	kp_symbols__jit_poll(r->syms, before, bctx);
}

static uint64_t op_jit_epoch(void *ctx)
{
	struct kp_resolve *r = ctx;

	return kp_symbols__jit_epoch(r->syms);
}

static int op_code(void *ctx, const struct kp_map_info *map, uint64_t off,
		   struct kp_rec_code *out, const char **why)
{
	struct kp_resolve *r = ctx;

	return kp_rcode__code(&r->code, r->syms, map, off, out, why);
}

static int op_disasm(void *ctx, const uint8_t *code, size_t len, uint64_t vaddr,
		     int (*cb)(void *cbctx, const struct kp_insn_info *in),
		     void *cbctx)
{
	struct kp_resolve *r = ctx;

	return kp_rcode__disasm(&r->code, code, len, vaddr, cb, cbctx);
}

/* The unwinder's code function: JIT code's bytes and CFI (resolve-jit.h). */
static int unwind_code(void *ctx, uint32_t pid, const struct kp_unwind_map *map,
		       uint64_t pc, struct kp_unwind_code *out)
{
	struct kp_resolve *r = ctx;

	return map->src ? kp_rjit__code(r->jit, pid, map->src, pc, out) : 0;
}

static void op_code_fed(void *ctx, const struct kp_rec_code *c)
{
	struct kp_resolve *r = ctx;

	kp_rjit__hold(r->jit, c);
}

static int op_unwind_codes(void *ctx, int (*cb)(void *cbctx, const struct kp_rec_code *c),
			   void *cbctx)
{
	struct kp_resolve *r = ctx;

	return kp_rjit__foreach(r->jit, cb, cbctx);
}

static const struct kp_resolver_ops resolve_ops = {
	.symbolize = op_symbolize,
	.module_name = op_module_name,
	.unwind = op_unwind,
	.process_gone = op_process_gone,
	.function = op_function,
	.hold = op_hold,
	.symbolize_held = op_symbolize_held,
	.release = op_release,
	.prefetch = op_prefetch,
	.names_epoch = op_names_epoch,
	.jit_epoch = op_jit_epoch,
	.jit_poll = op_jit_poll,
	.code = op_code,
	.disasm = op_disasm,
	.code_fed = op_code_fed,
	.unwind_codes = op_unwind_codes,
};

struct kp_resolve *kp_resolve__new(struct kp_symbols *syms,
				   struct kp_unwinder *unw, struct kp_err *err)
{
	struct kp_resolve *r;

	if (!syms) {
		kp_err_set(err, -EINVAL, "resolve: no symbols");
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->paths = calloc(KP_PATHCACHE_SLOTS, sizeof(*r->paths))) ||
	    !(r->jit = kp_rjit__new(syms))) {
		if (r)
			free(r->paths);
		free(r);
		kp_err_set(err, -ENOMEM, "resolve: out of memory");
		errno = ENOMEM;
		return NULL;
	}
	r->syms = syms;
	r->unw = unw;
	r->ops = resolve_ops;
	if (!kp_symbols__fetching(syms))
		r->ops.prefetch = NULL;	/* the model then skips its work */
	if (unw) {
		kp_unwinder__set_path_fn(unw, unwind_path, r);
		kp_unwinder__set_code_fn(unw, unwind_code, r);
	}
	return r;
}

void kp_resolve__free(struct kp_resolve *r)
{
	if (!r)
		return;
	while (r->chunks) {
		struct kp_chunk *c = r->chunks;

		r->chunks = c->next;
		free(c);
	}
	kp_rcode__free(r->code);
	kp_rjit__free(r->jit);
	free(r->set);
	free(r->paths);
	free(r->umaps);
	free(r);
}

struct kp_resolver kp_resolve__resolver(struct kp_resolve *r)
{
	struct kp_resolver res = { .ops = &r->ops, .ctx = r };

	return res;
}

void kp_resolve__set_replay(struct kp_resolve *r, int on)
{
	kp_rjit__set_replay(r->jit, on);
}

void kp_resolve__usage(const struct kp_resolve *r, size_t *strings, size_t *bytes)
{
	*strings = r->set_nr;
	*bytes = r->bytes;
}
