// SPDX-License-Identifier: GPL-2.0-only
/* test-python.c — src/pump/python.c's code objects over the model with
 * the fake resolver, as a saved stream feeds them (PYCODE records, then
 * samples with Python frames; no collector, no process read): names kept
 * once per content under a churn of short Python processes, a reused code
 * object named anew, and what a save that starts is given. The collector
 * calls are link-time fakes (never made without a collector).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "pump/python-int.h"
#include "model-fake.h"

int kp_collector__python(struct kp_collector *c, uint32_t pid,
			 const struct kp_collect_py *py)
{
	(void)c, (void)pid, (void)py;
	return -ENOTSUP;
}

int kp_collector__mark_dwarf(struct kp_collector *c, uint32_t pid, int on)
{
	(void)c, (void)pid, (void)on;
	return -ENOTSUP;
}

#define PY311 0x30b

struct ctx {
	struct fake f;
	struct kp_python *py;
	struct kp_model *m;
	int emitted;		/* records handed to count_emit */
};

static int to_model(void *ctx, const struct kp_record *r)
{
	return kp_model__feed(ctx, r);
}

/* A record as the pump hands it on: the Python side first, then the model. */
static void feed(struct ctx *c, const struct kp_record *r)
{
	assert_int_equal(kp_python__record(c->py, r, to_model, c->m), 0);
	assert_int_equal(kp_model__feed(c->m, r), 0);
}

static void pycode(struct ctx *c, uint32_t pid, uint64_t code, uint32_t token,
		   const char *name)
{
	struct kp_record r = { .type = KP_REC_PYCODE };

	r.pycode = (struct kp_rec_pycode){ .pid = pid, .code = code, .token = token,
		.version = PY311, .firstlineno = 10, .qualname = name,
		.filename = "/srv/app.py" };
	feed(c, &r);
}

/* A sample of one Python frame: code, its info (instruction, entry,
 * token: kptop-stream(5), SAMPLE's pyframes). */
static void pysample_info(struct ctx *c, uint32_t pid, uint64_t code, uint64_t info)
{
	uint64_t f[2] = { code, info };
	struct kp_record r = { .type = KP_REC_SAMPLE };

	r.sample.pid = r.sample.tid = pid;
	snprintf(r.sample.comm, sizeof(r.sample.comm), "python3");
	r.sample.py_status = KP_PY_OK;
	r.sample.nr_pyframes = 1;
	r.sample.pyframes = f;
	feed(c, &r);
}

static void pysample(struct ctx *c, uint32_t pid, uint64_t code, uint32_t token)
{
	pysample_info(c, pid, code, (uint64_t)token << 40);
}

static void process(struct ctx *c, uint32_t pid, int start)
{
	struct kp_record r = { .type = start ? KP_REC_PROCESS : KP_REC_EXIT };

	if (start) {
		r.process.pid = pid;
		r.process.start_ns = pid;
		r.process.comm = "python3";
		r.process.exe = "";
	} else {
		r.exit.pid = r.exit.tid = pid;
	}
	feed(c, &r);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->py = kp_python__new((struct kp_resolver){ &fake_ops, &c->f });
	assert_non_null(c->py);
	c->m = kp_model__new(&(struct kp_model_opts){ .resolver = kp_python__resolver(c->py) });
	assert_non_null(c->m);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	kp_model__free(c->m);
	kp_python__free(c->py);
	free(c);
	return 0;
}

/* The rows of the functions view named name: their count, and the Self
 * of the last. */
static int rows_named(struct kp_model *m, const char *name, double *self,
		      const char **module)
{
	struct kp_view_opts o = { .kind = KP_VIEW_FLAT, .sort = KP_SORT_SELF };
	struct kp_view *v = NULL;
	int n = 0;

	assert_int_equal(kp_model__view(m, &o, &v), 0);
	for (size_t i = 0; i < v->nr_rows; i++)
		if (!strcmp(v->rows[i].name, name)) {
			n++;
			*self = v->rows[i].self;
			if (module)
				*module = v->rows[i].module;
		}
	kp_view__free(v);
	return n;
}

/* 3,000 short processes each run the same function at an address of
 * its own: one name kept, one function row, a handful of frames, and
 * the keys of the processes gone given back. */
static void test_churn_one_name(void **state)
{
	struct ctx *c = *state;
	struct kp_model_summary s;
	const char *module = NULL;
	const uint32_t n = 3000;
	double self = 0;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t pid = 1000 + k;
		uint64_t code = 0x7f0000100000ull + (uint64_t)k * 0x10000;

		process(c, pid, 1);
		pycode(c, pid, code, 0x123, "hot");
		pysample(c, pid, code, 0x123);
		pysample(c, pid, code, 0x123);
		process(c, pid, 0);
	}
	assert_int_equal(rows_named(c->m, "hot", &self, &module), 1);
	assert_true(self == 2.0 * n);
	assert_string_equal(module, "[python3.11]");
	pycode(c, 99, 0x5000, 7, "handler");	/* one more, still running */
	pysample(c, 99, 0x5000, 7);
	kp_model__summary(c->m, &s);
	assert_true(s.frames < 16);
	assert_true(c->py->nr_codes == 2);
	assert_true(c->py->nr_keys <= 2100);	/* most given back */
	assert_int_equal(rows_named(c->m, "handler", &self, &module), 1);
	assert_true(self == 1);
	assert_string_equal(module, "[python3.11]");
}

/* A code object freed and another made at its address: a new line table
 * (another token) is another key; a newer record of the same key renames
 * later samples; samples already counted keep their names. */
static void test_reused_code(void **state)
{
	struct ctx *c = *state;
	double self = 0;

	process(c, 7, 1);
	pycode(c, 7, 0x9000, 1, "old");
	pysample(c, 7, 0x9000, 1);
	pycode(c, 7, 0x9000, 2, "new");
	pysample(c, 7, 0x9000, 2);
	pysample(c, 7, 0x9000, 1);	/* the old one's token: its old name */
	pycode(c, 7, 0x9000, 2, "newer");
	pysample(c, 7, 0x9000, 2);
	assert_int_equal(rows_named(c->m, "old", &self, NULL), 1);
	assert_true(self == 2);
	assert_int_equal(rows_named(c->m, "new", &self, NULL), 1);
	assert_true(self == 1);
	assert_int_equal(rows_named(c->m, "newer", &self, NULL), 1);
	assert_true(self == 1);
}

/* The line and start line of the frame named name, when a stack has one. */
struct named_frame {
	const char *name;
	uint32_t line, start_line;
};

static int named_frame_cb(void *ctx, const struct kp_stack_visit *v)
{
	struct named_frame *nf = ctx;

	for (size_t i = 0; i < v->depth; i++)
		if (!strcmp(v->frames[i]->name, nf->name)) {
			nf->line = v->frames[i]->line;
			nf->start_line = v->frames[i]->start_line;
		}
	return 0;
}

/* A Python function's first line (co_firstlineno) is its frame's start
 * line, as pprof's Function.start_line. */
static void test_start_line(void **state)
{
	struct ctx *c = *state;
	struct named_frame nf = { .name = "fn" };

	process(c, 7, 1);
	pycode(c, 7, 0x9000, 1, "fn");
	pysample(c, 7, 0x9000, 1);
	assert_int_equal(kp_model__foreach_stack(c->m, named_frame_cb, &nf), 0);
	assert_int_equal(nf.start_line, 10);
}

/* 3.10: the code object's co_linetable gives the line of f_lasti's
 * instruction (index 8, byte 16: line 5 of f() in test-pycode.c). */
static void test_line_310(void **state)
{
	static const uint8_t lt310[] = { 4, 1, 12, 1, 8, 1, 10, 2, 4, 1 };
	struct ctx *c = *state;
	struct kp_record r = { .type = KP_REC_PYCODE };
	struct named_frame nf = { .name = "spin" };

	process(c, 7, 1);
	r.pycode = (struct kp_rec_pycode){ .pid = 7, .code = 0x9000, .token = 1,
		.version = 0x30a, .firstlineno = 2, .qualname = "spin",
		.filename = "/srv/app.py", .linetable = lt310,
		.linetable_len = sizeof(lt310) };
	feed(c, &r);
	pysample_info(c, 7, 0x9000, (8 + 1) | KP_PYF_ENTRY | (uint64_t)1 << 40);
	assert_int_equal(kp_model__foreach_stack(c->m, named_frame_cb, &nf), 0);
	assert_int_equal(nf.line, 5);
}

static int count_emit(void *ctx, const struct kp_record *r)
{
	struct ctx *c = ctx;

	assert_int_equal(r->type, KP_REC_PYCODE);
	assert_true(r->pycode.pid == 11 || r->pycode.pid == 13);
	assert_string_equal(r->pycode.qualname, "f");
	c->emitted++;
	return 0;
}

/* A save that starts gets the code objects of the processes still
 * running, each with its own address and the shared names. */
static void test_foreach_live(void **state)
{
	struct ctx *c = *state;

	for (uint32_t pid = 11; pid <= 13; pid++) {
		process(c, pid, 1);
		pycode(c, pid, 0x4000 + pid, 3, "f");
	}
	process(c, 12, 0);
	assert_int_equal(kp_python__foreach_code(c->py, count_emit, c), 0);
	assert_int_equal(c->emitted, 2);
	assert_true(c->py->nr_codes == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_churn_one_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reused_code, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_310, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreach_live, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
