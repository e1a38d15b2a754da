// SPDX-License-Identifier: GPL-2.0-only
/* test-tui.c — cmocka tests of the live view without a terminal or BPF:
 * the expanded-set, the line buffer (display widths, UTF-8), and the key
 * table driven against link-time fakes of the model, collector and pump
 * (the screen goes to a newterm() on /dev/null). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <locale.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curses.h>

#include <cmocka.h>

#include "collect/collect.h"
#include "model/model.h"
#include "pump/pump.h"
#include "symbols/symbols.h"
#include "tui/app.h"
#include "tui/expand.h"
#include "tui/line.h"

#include "fake-live.h"	/* the collector and the pump */

/* ---- the model's fake: the handle is this struct ---- */

struct kp_model {
	int fail_view;		/* 1: -ENOMEM; 2: SIGTERM to ourselves */
	int zeroed, baseline, mode, views;
	int weight;		/* enum kp_weight (O) */
	int busy_summary;	/* 1: each summary burns 30 ms of CPU */
	int busy_view;		/* 1: each view burns 30 ms of CPU */
	size_t big;		/* >0: a flat view of this many rows, "row_N" */
	char (*big_names)[32];
	struct kp_filter f;
	char name[256];
	struct kp_view_opts last;
};


static struct kp_row fake_rows[3] = {
	{ .id = 10, .fn = 100, .depth = 0, .has_children = 1, .self = 5, .total = 10,
	  .samples = 5, .name = "hot_a", .module = "split", .pid = 7, .comm = "split" },
	{ .id = 11, .fn = 101, .depth = 1, .self = 3, .total = 3, .samples = 3,
	  .name = "hot_b", .module = "split", .pid = 7, .comm = "split" },
	{ .id = 12, .fn = 102, .depth = 1, .self = 2, .total = 2, .samples = 2,
	  .name = "hot_c", .module = "split", .pid = 8, .comm = "other" },
};

/* The flame view: all > app > main > hot_a (half), hot_b, hot_c. */
static struct kp_row flame_rows[6] = {
	{ .id = 20, .depth = 0, .has_children = 1, .total = 10, .w = 1, .name = "all",
	  .kind = KP_KIND_PROCESS },
	{ .id = 21, .depth = 1, .has_children = 1, .total = 10, .w = 1, .name = "app",
	  .pid = 7, .kind = KP_KIND_PROCESS },
	{ .id = 22, .fn = 200, .depth = 2, .has_children = 1, .total = 10, .w = 1,
	  .name = "main", .pid = 7 },
	{ .id = 23, .fn = 100, .depth = 3, .self = 5, .total = 5, .w = 0.5,
	  .name = "hot_a", .pid = 7 },
	{ .id = 24, .fn = 101, .depth = 3, .self = 3, .total = 3, .x = 0.5, .w = 0.3,
	  .name = "hot_b", .pid = 7, .kind = KP_KIND_KERNEL },
	{ .id = 25, .fn = 102, .depth = 3, .self = 2, .total = 2, .x = 0.8, .w = 0.2,
	  .name = "hot_c", .pid = 7, .kind = KP_KIND_UNKNOWN },
};

/* 30 ms of this process's CPU, as the model naming stacks would spend. */
static void burn_30ms(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 30000000L);
}

int kp_model__view(struct kp_model *m, const struct kp_view_opts *o,
		   struct kp_view **out)
{
	struct kp_view *v;
	size_t n = o->kind == KP_VIEW_FLAME ? 6 : 3;

	if (m->busy_view)
		burn_30ms();
	if (m->fail_view == 1)
		return -ENOMEM;
	if (m->fail_view == 2)
		kill(getpid(), SIGTERM);	/* the loop must see it and quit */
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->nr_all = m->big ? m->big : n;
	v->nr_rows = o->max_rows && o->max_rows < v->nr_all ? o->max_rows : v->nr_all;
	v->rows = calloc(v->nr_rows, sizeof(*v->rows));
	if (!v->rows) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < v->nr_rows; i++) {
		if (!m->big) {
			v->rows[i] = n == 6 ? flame_rows[i] : fake_rows[i];
			continue;
		}
		v->rows[i].id = v->rows[i].fn = 1000 + i;
		v->rows[i].self = v->rows[i].total = (double)(m->big - i);
		v->rows[i].name = m->big_names[i];
	}
	v->total = 10;
	m->views++;
	m->last = *o;
	*out = v;
	return 0;
}
void kp_view__free(struct kp_view *v)
{
	if (v)
		free(v->rows);
	free(v);
}
int kp_model__view_reuse(struct kp_model *m, const struct kp_view_opts *o,
			 struct kp_view *old, struct kp_view **out)
{
	kp_view__free(old);	/* consumed, as the model's */
	return kp_model__view(m, o, out);
}
void kp_model__refresh(struct kp_model *m, uint64_t now_ns) {}
void kp_model__set_time_mode(struct kp_model *m, enum kp_time_mode mode,
			     unsigned window_s) { m->mode = (int)mode; }
void kp_model__zero(struct kp_model *m) { m->zeroed++; }
void kp_model__set_weight(struct kp_model *m, enum kp_weight w) { m->weight = (int)w; }
enum kp_weight kp_model__weight(const struct kp_model *m) { return (enum kp_weight)m->weight; }
void kp_model__baseline_mark(struct kp_model *m) { m->baseline = 1; }
void kp_model__baseline_clear(struct kp_model *m) { m->baseline = 0; }
int kp_model__has_baseline(const struct kp_model *m) { return m->baseline; }
/* annotate: nothing to annotate in the fake (tests/tui-annotate.sh runs
 * the real screen) */
int kp_model__annotate(struct kp_model *m, uint64_t fn, struct kp_annot **out)
{
	*out = NULL;
	return -ENOENT;
}
int kp_model__annotate_addr(struct kp_model *m, const struct kp_annot *from,
			    uint64_t addr, struct kp_annot **out)
{
	*out = NULL;
	return -ENOENT;
}
int kp_model__annotate_recount(struct kp_model *m, struct kp_annot *a)
{
	return -EINVAL;
}
void kp_annot__free(struct kp_annot *a) {}
int kp_model__set_filter(struct kp_model *m, const struct kp_filter *f)
{
	m->f = *f;
	m->name[0] = '\0';
	if (f->name)
		snprintf(m->name, sizeof(m->name), "%s", f->name);
	return 0;
}
void kp_model__summary(const struct kp_model *m, struct kp_model_summary *s)
{
	if (m->busy_summary)	/* as the model naming every waiting stack would */
		burn_30ms();
	memset(s, 0, sizeof(*s));
	s->samples = 10;
	s->ncpus = 2;
	s->lost[KP_LOST_QUEUE_FULL] = 1;
}

/* ---- fixtures ---- */

struct fix {
	struct kp_model m;
	struct kp_fake_live live;
	struct kp_tui *t;
	FILE *out, *in;
};

static struct fix *fix_new(int live)
{
	struct fix *x = calloc(1, sizeof(*x));
	struct kp_tui_config cfg = { .delay_ms = 1000, .window_s = 5 };
	struct kp_crt_opts co = { .term = "xterm" };
	struct kp_err err = { 0 };

	assert_non_null(x);
	x->out = fopen("/dev/null", "w");
	x->in = fopen("/dev/null", "r");
	assert_non_null(x->out);
	assert_non_null(x->in);
	co.out = x->out;
	co.in = x->in;
	cfg.model = &x->m;
	kp_fake_live__init(&x->live);
	if (live) {
		x->live.sampling = 1;
		cfg.collector = kp_fake_live__collector(&x->live);
		cfg.pump = kp_fake_live__pump(&x->live);
	} else {
		cfg.input_path = "saved.kps";
	}
	x->t = kp_tui__new(&cfg, &co, &err);
	assert_non_null(x->t);
	assert_int_equal(kp_tui__refresh(x->t), 0);
	return x;
}

static void fix_free(struct fix *x)
{
	kp_tui__free(x->t);
	fclose(x->out);
	fclose(x->in);
	free(x);
}

/* Press a key as the loop does: dispatch, then apply what it asks. */
static enum kp_act press(struct fix *x, int key)
{
	enum kp_act a = kp_tui__key(x->t, key);

	if (a != KP_ACT_QUIT)
		assert_int_equal(kp_tui__apply(x->t, a), 0);
	return a;
}

static void type(struct fix *x, const char *s)
{
	while (*s)
		press(x, (unsigned char)*s++);
}

/* ---- tests ---- */

static void test_expand(void **state)
{
	struct kp_expand *e = kp_expand__new();

	assert_non_null(e);
	assert_false(kp_expand__has(e, 0));
	assert_int_equal(kp_expand__set(e, 0, 1), 0);
	assert_int_equal(kp_expand__set(e, UINT64_MAX, 1), 0);
	for (uint64_t i = 1; i <= 10000; i++)
		assert_int_equal(kp_expand__set(e, i * 7919, 1), 0);
	assert_int_equal(kp_expand__count(e), 10002);
	assert_true(kp_expand__has(e, 0));
	assert_true(kp_expand__has(e, UINT64_MAX));
	assert_true(kp_expand__has(e, 5000 * 7919));
	assert_false(kp_expand__has(e, 5000 * 7919 + 1));
	assert_int_equal(kp_expand__set(e, 5000 * 7919, 0), 0);
	assert_false(kp_expand__has(e, 5000 * 7919));
	assert_true(kp_expand__has(e, 5001 * 7919));
	assert_int_equal(kp_expand__count(e), 10001);
	kp_expand__clear(e);
	assert_int_equal(kp_expand__count(e), 0);
	assert_false(kp_expand__has(e, 7919));
	kp_expand__free(e);
	kp_expand__free(NULL);
}

static void test_line_widths(void **state)
{
	struct fix *x = fix_new(0);
	struct kp_line *l = x->t->line;

	if (!kp_crt__utf8(x->t->crt))
		skip();	/* no UTF-8 locale on this machine */
	assert_int_equal(kp_text_width("abc"), 3);
	assert_int_equal(kp_text_width("日本語"), 6);
	assert_int_equal(kp_text_width("über"), 4);
	assert_int_equal(kp_text_width("a\xff" "b"), 3);	/* invalid byte: '?' */
	assert_int_equal(kp_line__reset(l, 5, KP_ROLE_DEFAULT), 0);
	/* a wide character is never cut in half */
	assert_int_equal(kp_line__put(l, KP_ROLE_DEFAULT, "日本語", -1), 4);
	assert_int_equal(kp_line__col(l), 4);
	assert_int_equal(kp_line__reset(l, 80, KP_ROLE_DEFAULT), 0);
	kp_line__field(l, KP_ROLE_DEFAULT, "a_very_long_function_name", 10, 0);
	assert_int_equal(kp_line__col(l), 10);
	kp_line__field(l, KP_ROLE_DEFAULT, "日本語の関数", 5, 0);
	assert_int_equal(kp_line__col(l), 15);
	kp_line__field(l, KP_ROLE_DEFAULT, "42", 7, 1);
	assert_int_equal(kp_line__col(l), 22);
	kp_line__flush(l, 0);
	fix_free(x);
}

/* A row that already shows the line is not drawn again (curses is not
 * touched: the next doupdate skips it); a change of text or of role is
 * drawn; a resize forgets every row. */
static void test_unchanged_rows_skipped(void **state)
{
	struct fix *x = fix_new(0);
	struct kp_line *l = x->t->line;

	(void)state;
#define LINE(role, text) do { \
		assert_int_equal(kp_line__reset(l, 40, KP_ROLE_DEFAULT), 0); \
		kp_line__put(l, role, text, -1); \
		kp_line__flush(l, 3); \
	} while (0)
	LINE(KP_ROLE_DEFAULT, "hot_a 50.0%");
	assert_true(is_linetouched(stdscr, 3));
	wnoutrefresh(stdscr);		/* clears the touched marks */
	assert_false(is_linetouched(stdscr, 3));
	LINE(KP_ROLE_DEFAULT, "hot_a 50.0%");
	assert_false(is_linetouched(stdscr, 3));
	LINE(KP_ROLE_DEFAULT, "hot_a 50.1%");
	assert_true(is_linetouched(stdscr, 3));
	wnoutrefresh(stdscr);
	LINE(KP_ROLE_SELECTED, "hot_a 50.1%");
	assert_true(is_linetouched(stdscr, 3));
	wnoutrefresh(stdscr);
	resizeterm(LINES + 1, COLS);
	wnoutrefresh(stdscr);
	LINE(KP_ROLE_SELECTED, "hot_a 50.1%");
	assert_true(is_linetouched(stdscr, 3));
#undef LINE
	fix_free(x);
}

static void test_help_lists_every_key(void **state)
{
	static const char *const want[] = { "h ? F1", "q F10", "Up Down",
		"PgUp PgDn", "Home End", "Tab v S-Tab", "Enter", "< > F6", "/ F3",
		"\\ F4", "Esc", "p", "k", "u", "i", "s", "f", "w", "z", "b", "m",
		"flame arrows", "flame Enter", "flame / n N", "flame r" };
	const char *keys, *text;

	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		int found = 0;

		for (int i = 0; kp_actions__help(i, &keys, &text) == 0; i++)
			found |= strcmp(keys, want[k]) == 0 && text && *text;
		if (!found)
			fail_msg("help does not list %s", want[k]);
	}
}

static void test_offline_keys_say_why(void **state)
{
	struct fix *x = fix_new(0);

	press(x, 's');
	assert_non_null(strstr(x->t->msg, "not sampling"));
	x->t->msg[0] = '\0';
	press(x, 'w');
	assert_non_null(strstr(x->t->msg, "reading saved.kps"));
	assert_int_equal(x->t->screen, KP_SCREEN_TABLE);
	press(x, 'o');
	assert_non_null(strstr(x->t->msg, "not sampling"));
	press(x, 'O');	/* the file is not read again: --weight chooses */
	assert_non_null(strstr(x->t->msg, "--weight"));
	assert_int_equal(x->m.weight, KP_WEIGHT_CPU);
	press(x, 'z');	/* offline keys that make sense still work */
	assert_int_equal(x->m.zeroed, 1);
	fix_free(x);
}

static void test_sampling_and_save(void **state)
{
	struct fix *x = fix_new(1);

	press(x, 's');
	assert_int_equal(x->live.stops, 1);
	assert_false(x->t->sampling);
	press(x, 's');
	assert_int_equal(x->live.starts, 1);
	assert_true(x->t->sampling);
	press(x, 'f');
	assert_int_equal(x->live.flushes, 1);
	press(x, 'o');	/* off-CPU recording on */
	assert_int_equal(x->live.off_on, 1);
	press(x, 'O');	/* weight: off-CPU, the counts start over */
	assert_int_equal(x->m.weight, KP_WEIGHT_OFF);
	assert_int_equal(x->m.zeroed, 1);
	assert_non_null(strstr(x->t->msg, "off-CPU microseconds"));
	press(x, 'w');
	assert_int_equal(x->t->screen, KP_SCREEN_PROMPT);
	assert_memory_equal(x->t->prompt, "kptop-", 6);
	assert_non_null(strstr(x->t->prompt, ".kps"));
	press(x, KP_CTRL('u'));
	type(x, "out.kps");
	press(x, '\r');
	assert_int_equal(x->live.save_starts, 1);
	assert_string_equal(x->live.path, "out.kps");
	press(x, 'w');
	assert_int_equal(x->live.save_stops, 1);
	assert_non_null(strstr(x->t->msg, "saved out.kps"));
	press(x, 'w');
	press(x, KP_ESC);	/* Esc cancels the prompt */
	assert_int_equal(x->live.save_starts, 1);
	assert_int_equal(x->t->screen, KP_SCREEN_TABLE);
	fix_free(x);
}

static void test_zero_baseline_mode_sort(void **state)
{
	struct fix *x = fix_new(1);

	press(x, 'z');
	assert_int_equal(x->m.zeroed, 1);
	press(x, 'b');
	assert_true(x->m.baseline);
	assert_int_equal(x->m.last.sort, KP_SORT_DELTA);
	press(x, 'b');
	assert_false(x->m.baseline);
	assert_int_equal(x->m.last.sort, KP_SORT_SELF);
	press(x, 'm');
	assert_int_equal(x->m.mode, KP_TIME_DECAY);
	press(x, 'm');
	assert_int_equal(x->m.mode, KP_TIME_WINDOW);
	press(x, 'm');
	assert_int_equal(x->m.mode, KP_TIME_CUMULATIVE);
	press(x, '>');
	assert_int_equal(x->m.last.sort, KP_SORT_TOTAL);
	press(x, 'N');
	assert_int_equal(x->m.last.sort, KP_SORT_NAME);
	press(x, '>');
	assert_int_equal(x->m.last.sort, KP_SORT_SELF);
	fix_free(x);
}

static void test_views_and_tree(void **state)
{
	struct fix *x = fix_new(1);

	press(x, '\t');
	assert_int_equal(x->m.last.kind, KP_VIEW_TOPDOWN);
	assert_non_null(x->m.last.expanded);
	assert_true(kp_expand__has(x->t->expand, 10));	/* hottest root opened */
	press(x, '\r');		/* Enter toggles: collapse */
	assert_false(kp_expand__has(x->t->expand, 10));
	press(x, '+');
	assert_true(kp_expand__has(x->t->expand, 10));
	assert_true(x->m.last.expanded(x->m.last.expanded_ctx, 10));
	press(x, '-');
	assert_false(kp_expand__has(x->t->expand, 10));
	press(x, KP_KEY(KEY_DOWN));
	assert_int_equal(x->t->sel, 1);
	press(x, KP_KEY(KEY_LEFT));	/* a leaf: go to its parent */
	assert_int_equal(x->t->sel, 0);
	press(x, '1');
	assert_int_equal(x->m.last.kind, KP_VIEW_FLAT);
	press(x, KP_KEY(KEY_END));
	assert_int_equal(x->t->sel, 2);
	press(x, 'c');		/* callers of hot_c */
	assert_int_equal(x->m.last.kind, KP_VIEW_BOTTOMUP);
	assert_int_equal(x->m.last.root_fn, 102);
	assert_true(kp_expand__has(x->t->expand, 10));	/* first row opened */
	press(x, KP_ESC);
	assert_int_equal(x->m.last.kind, KP_VIEW_FLAT);
	assert_int_equal(x->m.last.root_fn, 0);
	press(x, KP_KEY(KEY_BTAB));
	assert_int_equal(x->m.last.kind, KP_VIEW_FLAME);	/* the last view */
	press(x, '1');
	press(x, '3');		/* the callers view is about the selection */
	assert_int_equal(x->m.last.kind, KP_VIEW_BOTTOMUP);
	assert_int_equal(x->m.last.root_fn, 100);
	fix_free(x);
}

/* The flame graph's keys: arrows, zoom in and out (the path of ids
 * handed to the model), the mouse, flip, search by substring and regex
 * with the matches' share (nested once), next and previous, callers and
 * back. */
static void test_flame_keys(void **state)
{
	struct fix *x = fix_new(1);
	struct kp_tui *t = x->t;
	struct kp_mouse mc;

	press(x, '8');
	assert_int_equal(x->m.last.kind, KP_VIEW_FLAME);
	assert_true(x->m.last.min_share > 0);	/* half a half cell of 80 */
	assert_int_equal(t->sel, 0);		/* the root */
	press(x, KP_KEY(KEY_DOWN));
	press(x, KP_KEY(KEY_DOWN));
	press(x, KP_KEY(KEY_DOWN));
	assert_int_equal(t->sel, 3);		/* the widest child: hot_a */
	press(x, KP_KEY(KEY_RIGHT));
	assert_int_equal(t->sel, 4);
	press(x, KP_KEY(KEY_RIGHT));
	press(x, KP_KEY(KEY_RIGHT));
	assert_int_equal(t->sel, 5);		/* the last at its depth */
	press(x, KP_KEY(KEY_LEFT));
	press(x, KP_KEY(KEY_UP));
	assert_int_equal(t->sel, 2);		/* main */
	press(x, KP_KEY(KEY_DOWN));
	press(x, KP_KEY(KEY_RIGHT));
	press(x, '\r');			/* zoom into hot_b */
	assert_int_equal(x->m.last.zoom_len, 3);
	assert_int_equal(x->m.last.zoom[0], 21);
	assert_int_equal(x->m.last.zoom[1], 22);
	assert_int_equal(x->m.last.zoom[2], 24);
	assert_int_equal(t->sel, 4);		/* kept by its id */
	press(x, KP_ESC);
	assert_int_equal(x->m.last.zoom_len, 2);
	press(x, KP_KEY(KEY_BACKSPACE));
	press(x, KP_ESC);
	assert_int_equal(x->m.last.zoom_len, 0);
	assert_int_equal(press(x, KP_ESC), KP_ACT_NONE);	/* nothing to leave */
	/* the mouse: depth 3 is screen row 8 (a header of 4, the heading) */
	mc = (struct kp_mouse){ KP_MOUSE_CLICK, 50, 8 };
	assert_int_equal(kp_mouse__act(t, &mc), KP_ACT_REDRAW);
	assert_int_equal(t->sel, 4);		/* hot_b: columns 40..63 */
	mc = (struct kp_mouse){ KP_MOUSE_DOUBLE, 70, 8 };
	assert_int_equal(kp_tui__apply(t, kp_mouse__act(t, &mc)), 0);
	assert_int_equal(x->m.last.zoom_len, 3);
	assert_int_equal(x->m.last.zoom[2], 25);	/* hot_c */
	for (int i = 0; i < 3; i++)
		press(x, KP_ESC);
	press(x, 'r');				/* root at the bottom: Up is a child */
	assert_true(t->fl.root_bottom);
	press(x, KP_KEY(KEY_DOWN));
	assert_int_equal(t->sel, 2);
	press(x, KP_KEY(KEY_UP));
	assert_int_equal(t->sel, 3);
	/* search: a substring, then a regex; hot_a and hot_b: 80% */
	assert_int_equal(kp_actions__prompt_done(t, KP_PROMPT_SEARCH, "hot_"), KP_ACT_REDRAW);
	assert_int_equal(t->fl.nr_match, 3);
	assert_int_equal(t->sel, 4);		/* the next match after hot_a */
	assert_int_equal(kp_actions__prompt_done(t, KP_PROMPT_SEARCH, "HOT_[ab]$"), KP_ACT_REDRAW);
	assert_int_equal(t->fl.nr_match, 2);
	assert_true(t->fl.match_share > 0.799 && t->fl.match_share < 0.801);
	assert_int_equal(t->sel, 3);		/* wrapped to hot_a */
	press(x, 'n');
	assert_int_equal(t->sel, 4);
	press(x, 'N');
	assert_int_equal(t->sel, 3);
	assert_non_null(strstr(t->msg, "2 boxes match"));
	kp_actions__prompt_done(t, KP_PROMPT_SEARCH, "a");	/* nested: once */
	assert_int_equal(t->fl.nr_match, 4);	/* all, app, main, hot_a */
	assert_true(t->fl.match_share > 0.999 && t->fl.match_share < 1.001);
	assert_int_equal(t->sel, 0);		/* the next match: wrapped to all */
	press(x, 'a');				/* the root box: no function */
	assert_non_null(strstr(t->msg, "select a function to annotate"));
	assert_int_equal(t->screen, KP_SCREEN_TABLE);
	press(x, 'n');
	press(x, 'n');
	assert_int_equal(t->sel, 2);
	press(x, 'c');				/* the callers of main */
	assert_int_equal(x->m.last.kind, KP_VIEW_BOTTOMUP);
	assert_int_equal(x->m.last.root_fn, 200);
	press(x, KP_ESC);
	assert_int_equal(x->m.last.kind, KP_VIEW_FLAME);
	fix_free(x);
}

/* A flat view of 5000 rows: the view makes the rows up to the screen
 * (2048 at least), and moving or searching past them makes more. */
static void test_rows_made_on_demand(void **state)
{
	struct fix *x = fix_new(1);
	const struct kp_row *r;

	x->m.big = 5000;
	x->m.big_names = calloc(x->m.big, sizeof(*x->m.big_names));
	assert_non_null(x->m.big_names);
	for (size_t i = 0; i < x->m.big; i++)
		snprintf(x->m.big_names[i], sizeof(x->m.big_names[i]), "row_%zu", i);
	assert_int_equal(kp_tui__refresh(x->t), 0);
	kp_tui__draw(x->t);
	assert_int_equal(x->m.last.max_rows, 2048);
	assert_int_equal(x->t->view->nr_all, 5000);
	press(x, KP_KEY(KEY_END));
	assert_int_equal(x->t->sel, 4999);
	r = kp_tui__selected(x->t);
	assert_non_null(r);	/* made by the review the key asked for */
	assert_string_equal(r->name, "row_4999");
	press(x, KP_KEY(KEY_HOME));
	assert_int_equal(kp_tui__refresh(x->t), 0);
	assert_int_equal(x->m.last.max_rows, 2048);	/* back to the screen's */
	press(x, '/');
	type(x, "row_4321");
	press(x, '\r');
	r = kp_tui__selected(x->t);
	assert_non_null(r);
	assert_string_equal(r->name, "row_4321");
	for (int i = 0; i < 3; i++)	/* page down from there: rows stay made */
		press(x, KP_KEY(KEY_NPAGE));
	r = kp_tui__selected(x->t);
	assert_non_null(r);
	assert_int_equal(r->id, 1000 + x->t->sel);
	kp_tui__draw(x->t);
	/* the next match is past the rows made though earlier ones are made:
	 * row_43, row_430..439, then row_4300 */
	press(x, KP_KEY(KEY_HOME));
	assert_int_equal(kp_tui__refresh(x->t), 0);
	assert_int_equal(x->t->view->nr_rows, 2048);
	press(x, '/');
	press(x, KP_CTRL('u'));	/* the prompt offers the last search */
	type(x, "row_43");
	press(x, '\r');
	for (int i = 0; i < 11; i++)
		press(x, 'n');
	r = kp_tui__selected(x->t);
	assert_non_null(r);
	assert_string_equal(r->name, "row_4300");
	free(x->m.big_names);
	fix_free(x);
}

/* kptop's CPU in the header is over the time it was used in: a first
 * refresh that names every stack of a file is not over the instant
 * before it (it showed 6274%). */
static void test_cpu_over_its_time(void **state)
{
	struct fix *x = fix_new(0);

	x->m.busy_summary = 1;
	assert_int_equal(kp_tui__refresh(x->t), 0);
	assert_true(x->t->cpu_pct > 5);
	assert_true(x->t->cpu_pct < 110);	/* one thread */
	fix_free(x);
}

/* ... and it holds the refresh's own work: a view that takes 30 ms to
 * build counts in the figure of the refresh that built it, as /proc read
 * once the screen has changed counts it. */
static void test_cpu_holds_its_view(void **state)
{
	struct fix *x = fix_new(0);

	x->m.busy_view = 1;
	usleep(100000);		/* idle: 30 ms of 130 are 23% */
	assert_int_equal(kp_tui__refresh(x->t), 0);
	assert_true(x->t->cpu_pct > 10);
	assert_true(x->t->cpu_pct < 110);
	fix_free(x);
}

/* The header's figure is over the last 10 s of refreshes, not the last
 * 2 s: alternating 1% and 5% intervals read 3% (+-0.4), as top -d 10
 * and /proc over the same span say. */
static void test_cpu_window(void **state)
{
	struct kp_cpu_window w = { 0 };
	double cpu = 0, pct = -1;
	uint64_t ns = 0;

	(void)state;
	assert_true(kp_cpu_window__push(&w, ns, cpu) < 0);
	for (int i = 1; i <= 40; i++) {
		ns += 2000000000ull;
		cpu += i % 2 ? 0.02 : 0.10;
		pct = kp_cpu_window__push(&w, ns, cpu);
		if (i >= 5) {
			assert_true(pct > 2.5);
			assert_true(pct < 3.5);
		}
	}
	/* a pause of a minute: the reading before it, not nothing */
	pct = kp_cpu_window__push(&w, ns + 60000000000ull, cpu + 0.6);
	assert_true(pct > 0.99 && pct < 1.01);
}

/* Refreshes come a little more than 2 s apart (the delay starts after
 * each refresh's work): the figure is still over 10 s, not over the
 * four intervals (8.08 s) within them. 1% of a CPU, then 5% for four
 * 2.02 s intervals: /proc over the last 10 s says 4.23%. */
static void test_cpu_window_exact(void **state)
{
	struct kp_cpu_window w = { 0 };
	double cpu = 0, pct = -1;
	uint64_t ns = 0;

	(void)state;
	(void)kp_cpu_window__push(&w, ns, cpu);
	for (int i = 1; i <= 24; i++) {
		ns += 2020000000ull;
		cpu += i <= 20 ? 0.0202 : 0.101;
		pct = kp_cpu_window__push(&w, ns, cpu);
		if (i == 20)
			assert_true(pct > 0.999 && pct < 1.001);
	}
	assert_true(pct > 4.22 && pct < 4.24);
}

static void *spin(void *arg)
{
	struct timespec a, b;

	(void)arg;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 300000000L);
	return NULL;
}

/* ... and it counts every thread of kptop (the collector's too), as top
 * does: a thread that spins 0.3 s while the main one waits shows. */
static void test_cpu_every_thread(void **state)
{
	struct fix *x = fix_new(0);
	pthread_t th;

	(void)state;
	assert_int_equal(kp_tui__refresh(x->t), 0);
	assert_int_equal(pthread_create(&th, NULL, spin, NULL), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(kp_tui__refresh(x->t), 0);
	assert_true(x->t->cpu_pct > 20);
	fix_free(x);
}

static void test_filter_focus_search(void **state)
{
	struct fix *x = fix_new(1);

	press(x, '\\');
	type(x, "hot");
	press(x, '\r');
	assert_string_equal(x->m.name, "hot");
	press(x, 'p');
	assert_int_equal(x->m.f.pid, 7);
	press(x, KP_ESC);	/* the focus first */
	assert_int_equal(x->m.f.pid, 0);
	assert_string_equal(x->m.name, "hot");
	press(x, KP_ESC);	/* then the filter */
	assert_null(x->m.f.name);
	press(x, 'k');
	assert_true(x->m.f.hide_kernel);
	press(x, 'u');
	assert_true(x->m.f.hide_user);
	press(x, 'i');
	assert_true(x->m.f.show_idle);
	press(x, '/');
	type(x, "HOT_");	/* case-insensitive */
	press(x, '\r');
	assert_int_equal(x->t->sel, 1);
	press(x, 'n');
	assert_int_equal(x->t->sel, 2);
	press(x, 'n');
	assert_int_equal(x->t->sel, 0);
	press(x, '/');
	type(x, "nothing");
	press(x, '\r');
	assert_int_equal(x->t->sel, 0);
	assert_non_null(strstr(x->t->msg, "not found"));
	fix_free(x);
}

static void test_help_and_quit(void **state)
{
	struct fix *x = fix_new(1);

	press(x, KP_KEY(KEY_F(1)));
	assert_int_equal(x->t->screen, KP_SCREEN_HELP);
	press(x, 'q');		/* any key leaves the help, q does not quit */
	assert_int_equal(x->t->screen, KP_SCREEN_TABLE);
	press(x, '?');
	assert_int_equal(x->t->screen, KP_SCREEN_HELP);
	press(x, KP_KEY(KEY_DOWN));
	assert_int_equal(x->t->screen, KP_SCREEN_HELP);
	press(x, 'x');
	assert_int_equal(kp_tui__key(x->t, 'q'), KP_ACT_QUIT);
	assert_int_equal(kp_tui__key(x->t, KP_KEY(KEY_F(10))), KP_ACT_QUIT);
	fix_free(x);
}

/* kp_tui__run on stdout = /dev/null and stdin = an idle pipe. */
static int run_view(struct kp_model *m, struct kp_err *err)
{
	struct kp_tui_config cfg = { .model = m, .delay_ms = 50, .input_path = "x" };
	int out = dup(1), in = dup(0), null = open("/dev/null", O_WRONLY), p[2];
	int rc;

	assert_true(out >= 0 && in >= 0 && null >= 0);
	assert_int_equal(pipe(p), 0);
	fflush(stdout);
	dup2(null, 1);
	dup2(p[0], 0);
	rc = kp_tui__run(&cfg, err);
	fflush(stdout);
	dup2(out, 1);
	dup2(in, 0);
	close(out);
	close(in);
	close(null);
	close(p[0]);
	close(p[1]);
	return rc;
}

static void test_run_fatal_error(void **state)
{
	struct kp_model m = { .fail_view = 1 };
	struct kp_err err = { 0 };

	assert_int_equal(run_view(&m, &err), -ENOMEM);
	assert_non_null(strstr(err.msg, "cannot build the Functions view"));
}

static void test_run_sigterm_restores(void **state)
{
	struct kp_model m = { .fail_view = 2 };
	struct kp_err err = { 0 };
	struct sigaction before, sa;
	sigset_t mask;

	assert_int_equal(sigaction(SIGTERM, NULL, &before), 0);
	assert_int_equal(run_view(&m, &err), 0);	/* a quit, not an error */
	assert_int_equal(sigaction(SIGTERM, NULL, &sa), 0);
	assert_true(sa.sa_handler == before.sa_handler);
	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &mask), 0);
	assert_false(sigismember(&mask, SIGTERM));
	assert_false(sigismember(&mask, SIGWINCH));
}

int main(void)
{
	/* no user's kptoprc in these tests (rc.h) */
	setenv("XDG_CONFIG_HOME", "/nonexistent/kptop-test", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_line_widths),
		cmocka_unit_test(test_unchanged_rows_skipped),
		cmocka_unit_test(test_help_lists_every_key),
		cmocka_unit_test(test_offline_keys_say_why),
		cmocka_unit_test(test_sampling_and_save),
		cmocka_unit_test(test_zero_baseline_mode_sort),
		cmocka_unit_test(test_views_and_tree),
		cmocka_unit_test(test_flame_keys),
		cmocka_unit_test(test_filter_focus_search),
		cmocka_unit_test(test_rows_made_on_demand),
		cmocka_unit_test(test_cpu_over_its_time),
		cmocka_unit_test(test_cpu_holds_its_view),
		cmocka_unit_test(test_cpu_window),
		cmocka_unit_test(test_cpu_window_exact),
		cmocka_unit_test(test_cpu_every_thread),
		cmocka_unit_test(test_help_and_quit),
		cmocka_unit_test(test_run_fatal_error),
		cmocka_unit_test(test_run_sigterm_restores),
	};

	setenv("LANG", "C.UTF-8", 1);
	setenv("LINES", "24", 1);
	setenv("COLUMNS", "80", 1);
	setenv("TERM", "xterm", 1);
	unsetenv("LC_ALL");
	unsetenv("LC_CTYPE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
