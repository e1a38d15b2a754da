// SPDX-License-Identifier: GPL-2.0-only
/* test-annotate.c — the model's annotate (kp_model__annotate,
 * kp_model__foreach_code) over a fake resolver with code and disasm ops:
 * self samples per instruction, a source line's count over the whole
 * function, inlined code, the hottest row, samples at no instruction,
 * the time mode and the baseline, a CODE record of a stream taking the
 * place of the resolver, and no code (the reason and the addresses).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"
#include "model-fake.h"

#define APP 0x400000ull
#define FN 0x401000ull		/* fn_10: file offsets 0x1000..0x10ff */

static uint8_t code_bytes[0x100];
static const char *const strs[] = { "/src/a.c", "/src/b.h", "inl" };
/* line 10 at 0, 11 at 0x20, 10 again at 0x40, inl at b.h:3 from 0x80 */
static const struct kp_code_line lines[] = {
	{ 0x00, 1, 10, 0 }, { 0x20, 1, 11, 0 }, { 0x40, 1, 10, 0 }, { 0x80, 2, 3, 3 },
};
static int code_calls;

static int t_code(void *ctx, const struct kp_map_info *map, uint64_t off,
		  struct kp_rec_code *out, const char **why)
{
	code_calls++;
	if (off < 0x1000 || off >= 0x1100) {
		*why = "not fn_10";
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->path = map->path;
	out->start = 0x1000;
	out->vaddr = FN;
	out->name = "fn_10";
	out->len = sizeof(code_bytes);
	out->code = code_bytes;
	out->nr_strs = 3;
	out->strs = strs;
	out->nr_lines = 4;
	out->lines = lines;
	return 1;
}

/* 4-byte instructions; a jump at +0x60 to +0x10, a call at +0x70. */
static int t_disasm(void *ctx, const uint8_t *code, size_t len, uint64_t vaddr,
		    int (*cb)(void *cbctx, const struct kp_insn_info *in), void *cbctx)
{
	for (size_t o = 0; o < len; o += 4) {
		struct kp_insn_info in = { vaddr + o, 4, KP_INSN_T_OTHER, 0, "nop4" };
		int rc;

		if (o == 0x60)
			in = (struct kp_insn_info){ vaddr + o, 4, KP_INSN_T_JUMP, vaddr + 0x10, "jmp" };
		if (o == 0x70)
			in = (struct kp_insn_info){ vaddr + o, 4, KP_INSN_T_CALL, 0x402000, "call" };
		if ((rc = cb(cbctx, &in)))
			return rc;
	}
	return 0;
}

struct ctx {
	struct fake f;
	struct kp_resolver_ops ops;
	struct kp_model *m;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct kp_model_opts o = { 0 };

	assert_non_null(c);
	c->ops = fake_ops;
	c->ops.code = t_code;
	c->ops.disasm = t_disasm;
	o.resolver = (struct kp_resolver){ .ops = &c->ops, .ctx = &c->f };
	c->m = kp_model__new(&o);
	assert_non_null(c->m);
	assert_int_equal(feed_process(c->m, 100, 1, "app"), 0);
	assert_int_equal(feed_mmap(c->m, 100, APP, 0x100000, 0, "/bin/app", 1), 0);
	code_calls = 0;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	kp_model__free(c->m);
	free(c);
	return 0;
}

static void leaf(struct kp_model *m, uint64_t pc, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(feed_sample(m, 100, 100, 1000 + (uint64_t)i, 1, 0, NULL, 0,
					     &pc, 1), 0);
}

/* The function id of fn_10 in the flat view. */
static uint64_t fn_10(struct kp_model *m)
{
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT };
	struct kp_view *v = NULL;
	uint64_t fn = 0;

	assert_int_equal(kp_model__view(m, &o, &v), 0);
	for (size_t i = 0; i < v->nr_rows; i++)
		if (v->rows[i].name && !strcmp(v->rows[i].name, "fn_10"))
			fn = v->rows[i].fn;
	kp_view__free(v);
	assert_true(fn != 0);
	return fn;
}

static const struct kp_annot_row *insn_at(const struct kp_annot *a, uint64_t addr)
{
	for (size_t i = 0; i < a->nr_rows; i++)
		if (a->rows[i].kind == KP_ANNOT_INSN && a->rows[i].addr == addr)
			return &a->rows[i];
	fail_msg("no instruction at %llx", (unsigned long long)addr);
	return NULL;
}

/* The first SOURCE row of file's line. */
static const struct kp_annot_row *line_row(const struct kp_annot *a, const char *file,
					   uint32_t line)
{
	for (size_t i = 0; i < a->nr_rows; i++)
		if (a->rows[i].kind == KP_ANNOT_SOURCE && a->rows[i].file &&
		    !strcmp(a->rows[i].file, file) && a->rows[i].line == line)
			return &a->rows[i];
	fail_msg("no source row %s:%u", file, line);
	return NULL;
}

static void feed_known(struct kp_model *m)
{
	leaf(m, FN + 0x10, 30);	/* line 10 */
	leaf(m, FN + 0x24, 10);	/* line 11 */
	leaf(m, FN + 0x44, 20);	/* line 10 again */
	leaf(m, FN + 0x84, 5);	/* inl, b.h:3 */
	leaf(m, FN + 0x12, 3);	/* inside an instruction: at none */
}

static void test_counts(void **state)
{
	struct ctx *c = *state;
	struct kp_annot *a = NULL;
	size_t insns = 0;

	feed_known(c->m);
	assert_int_equal(kp_model__annotate(c->m, fn_10(c->m), &a), 0);
	assert_null(a->why);
	assert_string_equal(a->name, "fn_10");
	assert_int_equal(a->samples, 68);
	assert_true(a->total == 68);
	assert_true(a->elsewhere == 3);
	assert_int_equal(a->vaddr, FN);
	assert_int_equal(a->len, 0x100);
	for (size_t i = 0; i < a->nr_rows; i++)
		insns += a->rows[i].kind == KP_ANNOT_INSN;
	assert_int_equal(insns, 0x40);
	assert_true(insn_at(a, FN + 0x10)->self == 30);
	assert_int_equal(insn_at(a, FN + 0x10)->off, 0x1010);
	assert_true(insn_at(a, FN + 0x44)->self == 20);
	assert_true(insn_at(a, FN + 0x14)->self == 0);
	/* line 10 counts both of its runs */
	assert_true(line_row(a, "/src/a.c", 10)->self == 50);
	assert_true(line_row(a, "/src/a.c", 11)->self == 10);
	assert_true(line_row(a, "/src/b.h", 3)->self == 5);
	assert_string_equal(line_row(a, "/src/b.h", 3)->inlined, "inl");
	assert_null(line_row(a, "/src/a.c", 11)->inlined);
	assert_int_equal(a->rows[a->hottest].kind, KP_ANNOT_INSN);
	assert_int_equal(a->rows[a->hottest].addr, FN + 0x10);
	assert_int_equal(insn_at(a, FN + 0x60)->type, KP_INSN_T_JUMP);
	assert_int_equal(insn_at(a, FN + 0x60)->target, FN + 0x10);
	assert_string_equal(insn_at(a, FN + 0x70)->text, "call");
	/* a refresh: new samples counted into the same rows, the code
	 * neither asked for again (it was kept) nor disassembled */
	leaf(c->m, FN + 0x24, 40);
	leaf(c->m, FN + 0x12, 1);
	assert_int_equal(kp_model__annotate_recount(c->m, a), 0);
	assert_true(insn_at(a, FN + 0x24)->self == 50);
	assert_true(insn_at(a, FN + 0x10)->self == 30);
	assert_true(line_row(a, "/src/a.c", 11)->self == 50);
	assert_true(line_row(a, "/src/a.c", 10)->self == 50);
	assert_true(a->elsewhere == 4);
	assert_true(a->total == 109);
	assert_int_equal(a->rows[a->hottest].addr, FN + 0x24);
	kp_annot__free(a);
	assert_int_equal(kp_model__annotate(c->m, fn_10(c->m), &a), 0);
	assert_int_equal(code_calls, 1);	/* kept from the first time */
	assert_true(insn_at(a, FN + 0x24)->self == 50);
	kp_annot__free(a);
}

/* Enter on a call: the function at its target, with or without samples. */
static void test_call_target(void **state)
{
	struct ctx *c = *state;
	struct kp_annot *a = NULL, *b = NULL;

	feed_known(c->m);
	assert_int_equal(kp_model__annotate(c->m, fn_10(c->m), &a), 0);
	/* the call at +0x70 targets 0x402000: fn_20, no samples, no code */
	assert_int_equal(kp_model__annotate_addr(c->m, a, insn_at(a, FN + 0x70)->target, &b), 0);
	assert_string_equal(b->name, "fn_20");
	assert_int_equal(b->samples, 0);
	assert_string_equal(b->why, "not fn_10");
	kp_annot__free(b);
	/* a jump back into fn_10 annotates fn_10 there, with its counts */
	assert_int_equal(kp_model__annotate_addr(c->m, a, FN + 0x24, &b), 0);
	assert_string_equal(b->name, "fn_10");
	assert_true(insn_at(b, FN + 0x10)->self == 30);
	kp_annot__free(b);
	kp_annot__free(a);
}

static void test_time_and_baseline(void **state)
{
	struct ctx *c = *state;
	struct kp_annot *a = NULL;

	feed_known(c->m);
	kp_model__baseline_mark(c->m);
	leaf(c->m, FN + 0x24, 8);
	assert_int_equal(kp_model__annotate(c->m, fn_10(c->m), &a), 0);
	assert_true(insn_at(a, FN + 0x24)->self == 8);
	assert_true(insn_at(a, FN + 0x24)->base_self == 10);
	assert_true(insn_at(a, FN + 0x10)->self == 0);
	assert_true(insn_at(a, FN + 0x10)->base_self == 30);
	assert_int_equal(a->rows[a->hottest].addr, FN + 0x10);	/* by both */
	kp_annot__free(a);
	kp_model__baseline_clear(c->m);
	kp_model__set_time_mode(c->m, KP_TIME_DECAY, 0);
	kp_model__refresh(c->m, 5000);
	assert_int_equal(kp_model__annotate(c->m, fn_10(c->m), &a), 0);
	assert_true(insn_at(a, FN + 0x24)->self == 8 * 7.0 / 8);
	kp_annot__free(a);
}

static void test_stream_code(void **state)
{
	static const struct kp_code_line one[] = { { 0, 1, 99, 0 } };
	struct ctx *c = *state;
	struct kp_record r = { .type = KP_REC_CODE };
	struct kp_annot *a = NULL;

	r.code = (struct kp_rec_code){ .path = "/bin/app", .start = 0x1000, .vaddr = FN,
		.name = "fn_10", .len = 0x80, .code = code_bytes, .nr_strs = 1,
		.strs = strs, .nr_lines = 1, .lines = one };
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	feed_known(c->m);
	assert_int_equal(kp_model__annotate(c->m, fn_10(c->m), &a), 0);
	assert_int_equal(code_calls, 0);	/* the stream's code, not the resolver's */
	assert_int_equal(a->len, 0x80);
	assert_true(line_row(a, "/src/a.c", 99)->self == 60);
	assert_true(a->elsewhere == 5 + 3);	/* b.h's samples are past its end */
	kp_annot__free(a);
}

static void test_no_code(void **state)
{
	struct ctx *c = *state;
	struct kp_annot *a = NULL;
	size_t addrs = 0;

	c->ops.code = NULL;
	feed_known(c->m);
	assert_int_equal(kp_model__annotate(c->m, fn_10(c->m), &a), 0);
	assert_non_null(a->why);
	for (size_t i = 0; i < a->nr_rows; i++)
		addrs += a->rows[i].kind == KP_ANNOT_ADDR;
	assert_int_equal(addrs, 5);
	assert_int_equal(a->rows[a->hottest].off, 0x1010);
	assert_true(a->elsewhere == 0);
	kp_annot__free(a);
	assert_int_equal(kp_model__annotate(c->m, 0, &a), -ENOENT);
}

struct leaves {
	int n;
	char what[4][64];
};

/* "name file:line" of each stack's innermost frame, and of its caller
 * when that one is inlined. */
static int leaf_of(void *ctx, const struct kp_stack_visit *v)
{
	struct leaves *l = ctx;
	const struct kp_frame_ref *f = v->frames[v->depth - 1];

	if (l->n < 4)
		snprintf(l->what[l->n++], 64, "%s %s:%u%s%s", f->name, f->file ? f->file : "-",
			 f->line, f->inlined ? " in " : "",
			 f->inlined ? v->frames[v->depth - 2]->name : "");
	return 0;
}

/* A replay whose binary is not here: the SYMTAB names the function, the
 * CODE record gives its lines and the function inlined there. */
static void test_stream_lines(void **state)
{
	static const struct kp_symbol sym[] = { { 0xdead00, 0x80, "tbl_fn" } };
	static const char *const tstrs[] = { "/src/t.c", "inl_t" };
	static const struct kp_code_line tl[] = { { 0, 1, 5, 0 }, { 0x40, 1, 9, 2 } };
	struct ctx *c = *state;
	struct kp_record r = { .type = KP_REC_CODE };
	struct leaves l = { 0 };

	r.code = (struct kp_rec_code){ .path = "/bin/app", .start = 0xdead00, .vaddr = 0xdead00,
		.name = "tbl_fn", .len = 0x80, .code = code_bytes, .nr_strs = 2,
		.strs = tstrs, .nr_lines = 2, .lines = tl };
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	r = (struct kp_record){ .type = KP_REC_SYMTAB };
	r.symtab = (struct kp_rec_symtab){ .path = "/bin/app", .nr_syms = 1, .syms = sym };
	assert_int_equal(kp_model__feed(c->m, &r), 0);
	/* the fake names nothing at 0xdead00..: a mapping that holds it */
	assert_int_equal(feed_mmap(c->m, 100, 0x10000000, 0x1000000, 0, "/bin/app", 1), 0);
	leaf(c->m, 0x10000000 + 0xdead10, 3);
	leaf(c->m, 0x10000000 + 0xdead44, 2);
	assert_int_equal(kp_model__foreach_stack(c->m, leaf_of, &l), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.what[0], "tbl_fn /src/t.c:5");
	assert_string_equal(l.what[1], "inl_t /src/t.c:9 in tbl_fn");
}

static int count_code(void *ctx, const struct kp_rec_code *code)
{
	(*(int *)ctx)++;
	assert_int_equal(code->start, 0x1000);
	return 0;
}

static void test_foreach_code(void **state)
{
	struct ctx *c = *state;
	int n = 0;

	feed_known(c->m);
	leaf(c->m, APP + 0x5010, 4);	/* fn_50: no code */
	assert_int_equal(kp_model__foreach_code(c->m, 1 << 20, count_code, &n), 0);
	assert_int_equal(n, 1);
	n = 0;
	assert_int_equal(kp_model__foreach_code(c->m, 0x80, count_code, &n), 0);
	assert_int_equal(n, 0);		/* over the byte limit */
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_counts), T(test_call_target), T(test_time_and_baseline), T(test_stream_code),
		T(test_no_code), T(test_foreach_code), T(test_stream_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
