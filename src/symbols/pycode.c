// SPDX-License-Identifier: GPL-2.0-only
/* pycode.c — CPython interpreters: symbols, layouts, code objects and
 * line tables (pycode.h).
 */
#include "symbols/pycode.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elfread.h"
#include "util/kp_err.h"

/* ---- the ELF file's symbols ---- */

/* Functions of the C API and the version that added them: before 3.11
 * (no Py_Version) the newest one an interpreter defines is its version. */
static const struct { const char *name; uint32_t version; } api_marks[] = {
	{ "PyIter_Send", 0x30a }, { "PyFrame_GetCode", 0x309 },
	{ "Py_BytesMain", 0x308 },
};

static void note_api(const char *name, struct kp_py_syms *o)
{
	for (size_t i = 0; i < sizeof(api_marks) / sizeof(api_marks[0]); i++)
		if (!strcmp(name, api_marks[i].name) && api_marks[i].version > o->api)
			o->api = api_marks[i].version;
}

static void note_sym(const char *name, const GElf_Sym *s, struct kp_py_syms *o)
{
	note_api(name, o);
	if (!strcmp(name, "_PyRuntime"))
		o->runtime = s->st_value;
	else if (!strcmp(name, "Py_Version"))
		o->version = s->st_value;
	else if (!strcmp(name, "_PyEval_EvalFrameDefault") && s->st_size) {
		o->eval_lo = s->st_value;
		o->eval_hi = s->st_value + s->st_size;
	}
}

static void scan_syms(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		      struct kp_py_syms *o)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n;
	GElf_Sym s;
	const char *name;

	if (!d || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getsym(d, (int)i, &s) || !s.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (name && name[0] && (name[0] == '_' || name[0] == 'P'))
			note_sym(name, &s, o);
	}
}

int kp_py__elf_syms(int fd, uint64_t pgoff, struct kp_py_syms *out)
{
	struct kp_elf_info info;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int rc;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return KP_EFORMAT;
	rc = kp_elf__info(elf, &info);
	if (!rc && kp_elf__offset_to_vaddr(&info, pgoff, &out->map_vaddr))
		rc = KP_EFORMAT;
	while (!rc && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB))
			scan_syms(elf, scn, &sh, out);
	elf_end(elf);
	if (rc)
		return rc;
	return out->runtime != 0;
}

/* ---- code objects ---- */

static int rd(int memfd, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = pread(memfd, buf, len, (off_t)addr);

	return n == (ssize_t)len && addr ? 0 : -EFAULT;
}

static uint64_t word(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* One code point of a str of kind 1, 2 or 4 as UTF-8 into out (room for
 * 4 bytes); returns the bytes written. */
static size_t put_utf8(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff)
		c = 0xfffd;
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* A compact str of kind 1, 2 or 4 at data, len code points, as UTF-8. */
static int read_wide(int memfd, uint64_t data, uint64_t len, unsigned kind,
		     char *out, size_t cap)
{
	uint8_t raw[1024];
	size_t n = 0, want = len * kind;

	if (want > sizeof(raw))
		want = sizeof(raw) - sizeof(raw) % kind;
	if (rd(memfd, data, raw, want))
		return -EFAULT;
	for (size_t i = 0; i + kind <= want && n + 5 < cap; i += kind) {
		uint32_t c = kind == 1 ? raw[i] : kind == 2 ?
			     (uint32_t)(raw[i] | raw[i + 1] << 8) :
			     (uint32_t)raw[i] | (uint32_t)raw[i + 1] << 8 |
			     (uint32_t)raw[i + 2] << 16 | (uint32_t)raw[i + 3] << 24;

		if (!c)
			c = 0xfffd;	/* no NUL in a name */
		n += put_utf8(c, out + n);
	}
	out[n] = 0;
	return 0;
}

/* The str object at addr into out (cut at cap - 1 bytes). */
static int read_str(int memfd, const struct kp_py_layout *l, uint64_t addr,
		    char *out, size_t cap)
{
	uint8_t h[KP_PY_STR_HEAD];
	uint64_t len, ulen, utf8;
	uint32_t state;
	unsigned kind;

	out[0] = 0;
	if (rd(memfd, addr, h, sizeof(h)))
		return -EFAULT;
	len = word(h, 16);
	memcpy(&state, h + 32, sizeof(state));
	kind = state >> 2 & 7;
	if (!(state & 1u << 5) || len > (1u << 20))	/* not compact: refused */
		return -EFAULT;
	if (state & 1u << 6) {	/* ASCII */
		if (len >= cap)
			len = cap - 1;
		if (len && rd(memfd, addr + l->str_ascii_data, out, len))
			return -EFAULT;
		out[len] = 0;
		return strlen(out) == len ? 0 : -EFAULT;
	}
	ulen = word(h, l->str_utf8_len);
	utf8 = word(h, l->str_utf8);
	if (utf8 && ulen < cap && ulen && !rd(memfd, utf8, out, ulen)) {
		out[ulen] = 0;
		return strlen(out) == ulen ? 0 : -EFAULT;
	}
	if (kind != 1 && kind != 2 && kind != 4)
		return -EFAULT;
	return read_wide(memfd, addr + l->str_data, len, kind, out, cap);
}

/* The bytes object at addr (co_linetable): malloc'd copy. */
static int read_bytes(int memfd, uint64_t addr, uint8_t **out, uint32_t *len)
{
	uint8_t h[32];
	uint64_t n;

	*out = NULL;
	*len = 0;
	if (rd(memfd, addr, h, sizeof(h)))
		return -EFAULT;
	n = word(h, 16);
	if (n > 65536)
		return -EFAULT;
	if (!n)
		return 0;
	*out = malloc(n);
	if (!*out)
		return -ENOMEM;
	if (rd(memfd, addr + 32, *out, n)) {
		free(*out);
		*out = NULL;
		return -EFAULT;
	}
	*len = (uint32_t)n;
	return 0;
}

int kp_py__read_code(int memfd, const struct kp_py_layout *l, uint64_t code,
		     struct kp_py_code *out)
{
	uint8_t h[KP_PY_CODE_HEAD];
	int32_t first;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!kp_py__layout_fits(l) || rd(memfd, code, h, l->co_code))
		return -EFAULT;
	memcpy(&first, h + l->co_firstlineno, sizeof(first));
	out->firstlineno = first > 0 ? (uint32_t)first : 0;
	out->linetable_addr = word(h, l->co_linetable);
	rc = read_str(memfd, l, word(h, l->co_qualname), out->qualname,
		      sizeof(out->qualname));
	if (!rc)
		rc = read_str(memfd, l, word(h, l->co_filename), out->filename,
			      sizeof(out->filename));
	if (!rc)
		rc = read_bytes(memfd, out->linetable_addr, &out->linetable,
				&out->linetable_len);
	if (!rc && !out->qualname[0])
		rc = -EFAULT;
	if (rc) {
		free(out->linetable);
		out->linetable = NULL;
		out->linetable_len = 0;
	}
	return rc;
}

/* ---- line tables ---- */

struct lt {
	const uint8_t *p, *end;
	int bad;
};

static uint32_t lt_varint(struct lt *t)
{
	uint32_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (t->p >= t->end || shift > 24) {
			t->bad = 1;
			return 0;
		}
		b = *t->p++;
		if (shift && (b & 0x80)) {
			t->bad = 1;	/* the next entry's first byte */
			return 0;
		}
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int32_t lt_svarint(struct lt *t)
{
	uint32_t u = lt_varint(t);

	return (u & 1) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

/* One entry's line delta; *none: the entry has no location. */
static int32_t lt_entry(struct lt *t, unsigned code, int *none)
{
	int32_t d = 0;

	*none = 0;
	switch (code) {
	case 15:	/* no location */
		*none = 1;
		break;
	case 14:	/* long form: line, end line, column, end column */
		d = lt_svarint(t);
		lt_varint(t);
		lt_varint(t);
		lt_varint(t);
		break;
	case 13:	/* no column */
		d = lt_svarint(t);
		break;
	case 10: case 11: case 12:	/* one line: two column bytes */
		d = (int32_t)code - 10;
		t->p += 2;
		break;
	default:	/* short form: one column byte */
		t->p += 1;
		break;
	}
	if (t->p > t->end)
		t->bad = 1;
	return d;
}

static uint32_t line_ok(int64_t line)
{
	return line <= 0 || line > INT32_MAX ? 0 : (uint32_t)line;
}

/* 3.10's co_linetable: (bytes of code, signed line delta or -128: no
 * line) pairs, ranges from offset 0 (Objects/lnotab_notes.txt). */
static uint32_t line_310(const uint8_t *lt, size_t len, int64_t line, uint64_t addr)
{
	uint64_t start = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		uint64_t end = start + lt[i];
		int8_t d = (int8_t)lt[i + 1];
		int none = d == -128;

		if (!none)
			line += d;
		if (addr >= start && addr < end)
			return none ? 0 : line_ok(line);
		start = end;
	}
	return 0;
}

/* 3.8 and 3.9's co_lnotab: (bytes of code, signed lines) increments; the
 * line of the last offset reached at or before addr (PyCode_Addr2Line). */
static uint32_t line_38(const uint8_t *lt, size_t len, int64_t line, uint64_t addr)
{
	uint64_t at = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		at += lt[i];
		if (at > addr)
			break;
		line += (int8_t)lt[i + 1];
	}
	return line_ok(line);
}

uint32_t kp_py__line(uint32_t version, const uint8_t *lt, size_t len,
		     uint32_t firstlineno, uint32_t instr)
{
	struct lt t = { 0 };
	int64_t line = firstlineno;
	uint64_t at = 0;
	int none;

	if (version == 0x30a && lt)
		return line_310(lt, len, line, (uint64_t)instr * 2);
	if ((version == 0x308 || version == 0x309) && lt)
		return line_38(lt, len, line, (uint64_t)instr * 2);
	if (version < 0x30b || version > 0x30d || !lt)
		return 0;
	t.p = lt;
	t.end = lt + len;
	while (t.p < t.end) {
		uint8_t b = *t.p++;
		unsigned units = (b & 7) + 1;

		if (!(b & 0x80))
			return 0;
		line += lt_entry(&t, b >> 3 & 15, &none);
		if (t.bad)
			return 0;
		if (instr < at + units)
			return none ? 0 : line_ok(line);
		at += units;
	}
	return 0;
}
