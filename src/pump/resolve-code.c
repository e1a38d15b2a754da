// SPDX-License-Identifier: GPL-2.0-only
/* resolve-code.c — the resolver's annotate ops (resolve-code.h). */
#include "pump/resolve-code.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/disasm.h"

#define KP_RCODE_FRAMES 16

struct kp_rcode {
	struct kp_disasm *d;
	char **strs;			/* owned, until the next code call */
	size_t nr_strs, cap_strs;
	uint32_t *str_lines;		/* strs[i]'s first line, as a function */
	size_t cap_str_lines;
	uint32_t start_line;		/* the code's function's first line */
	struct kp_code_line *lines;
	size_t nr_lines, cap_lines;
	/* the walk of one code call */
	struct kp_symbols *syms;
	struct kp_sym_map sm;
	uint64_t base;			/* run-time address of the code's first byte */
	uint64_t vaddr;			/* its link-time address */
	const char *comp_dir;		/* of its DWARF unit, or NULL */
	int err;
};

static int grow(void *pp, size_t *cap, size_t need, size_t el)
{
	void *p;
	size_t n = *cap ? *cap : 16;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*(void **)pp, n * el);
	if (!p)
		return -ENOMEM;
	*(void **)pp = p;
	*cap = n;
	return 0;
}

static void drop_strs(struct kp_rcode *c)
{
	for (size_t i = 0; i < c->nr_strs; i++)
		free(c->strs[i]);
	c->nr_strs = 0;
	c->nr_lines = 0;
}

void kp_rcode__free(struct kp_rcode *c)
{
	if (!c)
		return;
	drop_strs(c);
	free(c->strs);
	free(c->str_lines);
	free(c->lines);
	kp_disasm__free(c->d);
	free(c);
}

static struct kp_rcode *get(struct kp_rcode **slot)
{
	if (!*slot) {
		struct kp_rcode *c = calloc(1, sizeof(*c));

		if (!c)
			return NULL;
		c->d = kp_disasm__new();
		if (!c->d) {
			free(c);
			return NULL;
		}
		*slot = c;
	}
	return *slot;
}

/* 1 + the index of s among the strings (added), 0 for NULL or "". */
static uint32_t str_idx(struct kp_rcode *c, const char *s)
{
	if (!s || !*s)
		return 0;
	for (size_t i = c->nr_strs; i-- > 0;)
		if (!strcmp(c->strs[i], s))
			return (uint32_t)i + 1;
	if (grow(&c->strs, &c->cap_strs, c->nr_strs + 1, sizeof(*c->strs)) ||
	    grow(&c->str_lines, &c->cap_str_lines, c->nr_strs + 1, sizeof(*c->str_lines)) ||
	    !(c->strs[c->nr_strs] = strdup(s))) {
		c->err = -ENOMEM;
		return 0;
	}
	c->str_lines[c->nr_strs] = 0;
	return (uint32_t)++c->nr_strs;
}

/* A source file's name, made absolute with the unit's directory (so
 * that its text can be read, here or on the machine a save goes to). */
static uint32_t file_idx(struct kp_rcode *c, const char *file)
{
	char buf[4096];

	if (!file || file[0] == '/' || !c->comp_dir ||
	    (size_t)snprintf(buf, sizeof(buf), "%s/%s", c->comp_dir, file) >= sizeof(buf))
		return str_idx(c, file);
	return str_idx(c, buf);
}

/* The line entry of one instruction, added when it differs from the
 * last one. */
static int line_cb(void *ctx, const struct kp_insn *in)
{
	struct kp_rcode *c = ctx;
	struct kp_sym_frame f[KP_RCODE_FRAMES];
	struct kp_code_line l = { (uint32_t)(in->addr - c->vaddr), 0, 0, 0 };
	int n = kp_symbols__user(c->syms, &c->sm, c->base + l.off, f, KP_RCODE_FRAMES);

	if (n > 0) {
		l.file = file_idx(c, f[0].file);
		l.line = f[0].file ? f[0].line : 0;
		l.inlined = f[0].inlined ? str_idx(c, f[0].name) : 0;
		if (l.inlined && f[0].start_line)
			c->str_lines[l.inlined - 1] = f[0].start_line;
		if (!f[n - 1].inlined && f[n - 1].start_line && !c->start_line)
			c->start_line = f[n - 1].start_line;
	}
	if (c->err)
		return c->err;
	if (c->nr_lines) {
		const struct kp_code_line *p = &c->lines[c->nr_lines - 1];

		if (p->file == l.file && p->line == l.line && p->inlined == l.inlined)
			return 0;
	}
	if (grow(&c->lines, &c->cap_lines, c->nr_lines + 1, sizeof(*c->lines)))
		return c->err = -ENOMEM;
	c->lines[c->nr_lines++] = l;
	return 0;
}

int kp_rcode__code(struct kp_rcode **slot, struct kp_symbols *syms,
		   const struct kp_map_info *map, uint64_t off,
		   struct kp_rec_code *out, const char **why)
{
	struct kp_rcode *c = get(slot);
	struct kp_sym_code sc;
	int rc;

	*why = "out of memory";
	if (!c)
		return -ENOMEM;
	drop_strs(c);
	c->err = 0;
	c->start_line = 0;
	c->syms = syms;
	kp_resolve__sym_map(map, &c->sm);
	if (off < map->pgoff)
		return 0;
	rc = kp_symbols__code(syms, &c->sm, map->addr + (off - map->pgoff), &sc, why);
	if (rc <= 0)
		return rc;
	if (!sc.len || sc.len > KP_CODE_MAX) {
		*why = "the function is larger than 64 KiB";
		return 0;
	}
	c->vaddr = sc.vaddr;
	c->comp_dir = sc.comp_dir;
	c->base = map->addr + (sc.start - map->pgoff);
	memset(out, 0, sizeof(*out));
	out->path = map->path ? map->path : "";
	out->build_id_len = map->build_id_len;
	memcpy(out->build_id, map->build_id, sizeof(out->build_id));
	out->start = sc.start;
	out->vaddr = sc.vaddr;
	out->name = sc.name;
	out->len = (uint32_t)sc.len;
	out->code = sc.bytes;
	/* the line table, instruction by instruction (the bytes stay: the
	 * module's file image is not touched by lookups) */
	rc = kp_disasm__run(c->d, sc.bytes, sc.len, sc.vaddr, line_cb, c);
	if (rc < 0)
		return rc;
	out->nr_strs = (uint32_t)c->nr_strs;
	out->strs = (const char *const *)c->strs;
	out->str_lines = c->nr_strs ? c->str_lines : NULL;
	out->start_line = c->start_line;
	out->nr_lines = (uint32_t)c->nr_lines;
	out->lines = c->lines;
	if (sc.eh_frame && sc.eh_len && sc.eh_len <= KP_JIT_EH_MAX) {
		out->eh_frame = sc.eh_frame;	/* JIT code's, from its jitdump */
		out->eh_len = (uint32_t)sc.eh_len;
		out->eh_vaddr = sc.eh_vaddr;
	}
	return 1;
}

struct adapt {
	int (*cb)(void *cbctx, const struct kp_insn_info *in);
	void *cbctx;
};

static int adapt_cb(void *ctx, const struct kp_insn *in)
{
	static const enum kp_insn_type types[] = {
		[KP_INSN_OTHER] = KP_INSN_T_OTHER, [KP_INSN_JUMP] = KP_INSN_T_JUMP,
		[KP_INSN_CALL] = KP_INSN_T_CALL, [KP_INSN_RET] = KP_INSN_T_RET,
	};
	const struct adapt *a = ctx;
	struct kp_insn_info ii = { in->addr, in->size, types[in->kind], in->target,
				   in->text };

	return a->cb(a->cbctx, &ii);
}

int kp_rcode__disasm(struct kp_rcode **slot, const uint8_t *code, size_t len,
		     uint64_t vaddr,
		     int (*cb)(void *cbctx, const struct kp_insn_info *in),
		     void *cbctx)
{
	struct kp_rcode *c = get(slot);
	struct adapt a = { cb, cbctx };

	if (!c)
		return -ENOMEM;
	return kp_disasm__run(c->d, code, len, vaddr, adapt_cb, &a);
}
