// SPDX-License-Identifier: GPL-2.0-only
/* app.c — the tui object: state, view rebuilds, screen dispatch. */
#include "tui/app.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <curses.h>

#include "collect/collect.h"
#include "tui/rc.h"
#include "tui/annotate.h"

#define KP_MSG_NS (4ULL * 1000000000ULL)

uint64_t kp_tui__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double kp_cpu_window__push(struct kp_cpu_window *w, uint64_t now_ns, double cpu_s)
{
	unsigned i, j, k;
	uint64_t t0;
	double c0;

	w->ns[w->head] = now_ns;
	w->cpu[w->head] = cpu_s;
	w->head = (w->head + 1) % KP_CPU_READINGS_MAX;
	if (w->n < KP_CPU_READINGS_MAX)
		w->n++;
	if (w->n < 2)
		return -1;
	/* k: a reading younger than the window; j: the one before it */
	k = (w->head + KP_CPU_READINGS_MAX - 1) % KP_CPU_READINGS_MAX;
	for (i = 1; i < w->n; i++) {
		j = (w->head + KP_CPU_READINGS_MAX - 1 - i) % KP_CPU_READINGS_MAX;
		if (now_ns <= w->ns[j] || now_ns - w->ns[j] >= KP_CPU_WINDOW_NS)
			break;
		k = j;
	}
	if (i == w->n)		/* younger than the window: since the first */
		return now_ns > w->ns[k] ?
		       100.0 * (cpu_s - w->cpu[k]) / ((double)(now_ns - w->ns[k]) / 1e9) : -1;
	if (i == 1 || now_ns <= w->ns[j])	/* a long pause: the last interval */
		return now_ns > w->ns[j] ?
		       100.0 * (cpu_s - w->cpu[j]) / ((double)(now_ns - w->ns[j]) / 1e9) : -1;
	/* the CPU time at the window's start, between readings j and k */
	t0 = now_ns - KP_CPU_WINDOW_NS;
	c0 = w->cpu[j] + (w->cpu[k] - w->cpu[j]) * (double)(t0 - w->ns[j]) /
			 (double)(w->ns[k] - w->ns[j]);
	return 100.0 * (cpu_s - c0) / ((double)KP_CPU_WINDOW_NS / 1e9);
}

/* The whole process: every thread, live or ended (RUSAGE_SELF). */
static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

struct kp_tui *kp_tui__new(const struct kp_tui_config *cfg,
			   const struct kp_crt_opts *crt, struct kp_err *err)
{
	struct kp_tui *t = calloc(1, sizeof(*t));
	int e = ENOMEM;

	if (!t)
		goto out_err;
	t->cfg = *cfg;
	if (!t->cfg.delay_ms)
		t->cfg.delay_ms = 2000;
	if (!t->cfg.window_s)
		t->cfg.window_s = 10;
	kp_flame_ui__init(&t->fl);
	t->expand = kp_expand__new();
	if (!t->expand)
		goto out_free;
	t->vopts.kind = KP_VIEW_FLAT;
	for (int k = 0; k < KP_VIEW_KIND_MAX; k++)
		t->sorts[k] = k == KP_VIEW_TOPDOWN || k == KP_VIEW_BOTTOMUP ?
			      KP_SORT_TOTAL : KP_SORT_SELF;
	t->vopts.sort = t->sorts[KP_VIEW_FLAT];
	t->vopts.expanded = kp_expand__cb;
	t->vopts.expanded_ctx = t->expand;
	t->filter.show_idle = cfg->show_idle;
	t->sampling = cfg->collector != NULL;
	t->last_ns = kp_tui__now_ns();
	(void)kp_cpu_window__push(&t->cpu, t->last_ns, cpu_seconds());
	t->crt = kp_crt__new(crt, err);
	if (!t->crt) {
		e = errno;
		goto out_free;
	}
	t->line = kp_line__new(t->crt);
	if (!t->line)
		goto out_free;
	if (!cfg->no_mouse)
		kp_crt__mouse(t->crt, 1);
	kp_tui__load_settings(t);
	if (kp_model__has_baseline(cfg->model)) {	/* --baseline: as after b */
		memcpy(t->sorts_before_baseline, t->sorts, sizeof(t->sorts));
		for (int k = 0; k < KP_VIEW_KIND_MAX; k++)
			t->sorts[k] = KP_SORT_DELTA;
		t->vopts.sort = KP_SORT_DELTA;
		kp_tui__message(t, 0, "baseline %s: rows show the change since",
				cfg->baseline_path ? cfg->baseline_path : "set");
	}
	return t;

out_free:
	kp_tui__free(t);
out_err:
	if (e == ENOMEM)
		kp_err_set(err, -ENOMEM, "out of memory");
	errno = e;
	return NULL;
}

void kp_tui__settings(const struct kp_tui *t, struct kp_rc *rc)
{
	rc->view = t->vopts.kind;
	memcpy(rc->sorts, kp_model__has_baseline(t->cfg.model) ?
	       t->sorts_before_baseline : t->sorts, sizeof(rc->sorts));
	rc->delay_ms = t->cfg.delay_ms;
	rc->mode = t->mode;
	rc->hide_kernel = t->filter.hide_kernel;
	rc->hide_user = t->filter.hide_user;
}

void kp_tui__load_settings(struct kp_tui *t)
{
	struct kp_err w = { 0 };
	struct kp_rc rc;
	char path[4096];

	if (kp_rc__path(path, sizeof(path)) < 0)
		return;
	kp_tui__settings(t, &rc);
	if (kp_rc__read(path, &rc, &w) < 0)
		kp_tui__message(t, 1, "%s", w.msg);
	t->vopts.kind = rc.view;
	memcpy(t->sorts, rc.sorts, sizeof(t->sorts));
	t->vopts.sort = t->sorts[t->vopts.kind];
	t->expand_first = t->vopts.kind == KP_VIEW_TOPDOWN;
	if (!t->cfg.delay_set && rc.delay_ms)
		t->cfg.delay_ms = rc.delay_ms;
	t->mode = rc.mode;
	if (t->mode != KP_TIME_CUMULATIVE)
		kp_model__set_time_mode(t->cfg.model, t->mode, t->cfg.window_s);
	t->filter.hide_kernel = rc.hide_kernel;
	t->filter.hide_user = rc.hide_user;
}

void kp_tui__free(struct kp_tui *t)
{
	if (!t)
		return;
	kp_crt__free(t->crt);	/* the terminal first: endwin */
	kp_annot_ui__free(t);
	kp_view__free(t->view);
	kp_line__free(t->line);
	kp_expand__free(t->expand);
	kp_flame_ui__fini(&t->fl);
	free(t);
}

void kp_tui__message(struct kp_tui *t, int warn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
	t->msg_warn = warn;
	t->msg_until_ns = kp_tui__now_ns() + KP_MSG_NS;
}

const struct kp_row *kp_tui__selected(const struct kp_tui *t)
{
	if (!t->view || t->sel >= t->view->nr_rows)
		return NULL;
	return &t->view->rows[t->sel];
}

int kp_tui__set_filter(struct kp_tui *t)
{
	t->filter.name = t->filter_name[0] ? t->filter_name : NULL;
	return kp_model__set_filter(t->cfg.model, &t->filter);
}

/* Find the selected id again in the new view; else keep the index. */
static void keep_selection(struct kp_tui *t)
{
	struct kp_view *v = t->view;

	if (!v->nr_rows) {
		t->sel = t->top = 0;
		return;
	}
	if (t->sel < v->nr_rows && v->rows[t->sel].id == t->sel_id)
		return;
	for (size_t i = 0; i < v->nr_rows; i++)
		if (v->rows[i].id == t->sel_id) {
			kp_table__select(t, i);
			return;
		}
	if (t->vopts.kind == KP_VIEW_FLAME)	/* the box is gone: the zoom box */
		kp_table__select(t, (size_t)v->zoom_depth);
	else
		kp_table__select(t, t->sel < v->nr_rows ? t->sel : v->nr_rows - 1);
}

int kp_tui__review(struct kp_tui *t)
{
	struct kp_view *v = NULL;
	int rc;

	t->vopts.max_rows = kp_table__rows_wanted(t);
	if (t->vopts.kind == KP_VIEW_FLAME)
		kp_flame__opts(t, &t->vopts);
	/* the old view's rows are reused: no fresh pages at every refresh */
	rc = kp_model__view_reuse(t->cfg.model, &t->vopts, t->view, &v);

	t->view = v;
	if (rc < 0)
		return kp_err_set(&t->err, rc, "cannot build the %s view: %s",
				  kp_view_name(t->vopts.kind), kp_strerror(rc));
	keep_selection(t);
	if (t->vopts.kind == KP_VIEW_FLAME)
		return kp_flame__reviewed(t);
	if (t->expand_first && v->nr_rows && v->rows[0].has_children &&
	    t->vopts.expanded && !kp_expand__has(t->expand, v->rows[0].id)) {
		t->expand_first = 0;
		if (kp_expand__set(t->expand, v->rows[0].id, 1) == 0)
			return kp_tui__review(t);
	}
	t->expand_first = 0;
	return 0;
}

/* kptop's CPU, read once the refresh has built its view (naming every
 * waiting stack, and at the first refresh of a file all of them): the
 * figure then holds this refresh's own work, as /proc read after the
 * screen changed does, and not the one ten seconds before; the CPU time
 * and the clock are read together. */
static void update_cpu(struct kp_tui *t)
{
	double pct = kp_cpu_window__push(&t->cpu, kp_tui__now_ns(), cpu_seconds());

	if (pct >= 0)
		t->cpu_pct = pct;
}

static void update_rates(struct kp_tui *t, const struct kp_model_summary *s)
{
	uint64_t now = kp_tui__now_ns();
	double dt = (double)(now - t->last_ns) / 1e9;

	if (dt <= 0)
		return;
	if (s->samples >= t->last_samples)
		t->sample_rate = (double)(s->samples - t->last_samples) / dt;
	else
		t->sample_rate = (double)s->samples / dt;	/* zeroed */
	t->last_samples = s->samples;
	t->last_ns = now;
	if (t->cfg.collector) {
		struct kp_collect_stats st;

		kp_collector__stats(t->cfg.collector, &st);
		t->off_on = st.off_on;
		t->switch_rate = st.off_switches >= t->last_switches ?
				 (double)(st.off_switches - t->last_switches) / dt : 0;
		t->last_switches = st.off_switches;
	}
}

int kp_tui__refresh(struct kp_tui *t)
{
	struct kp_model_summary s;
	uint64_t now = kp_tui__now_ns();
	int rc;

	kp_model__summary(t->cfg.model, &s);
	if (t->cfg.collector)
		kp_model__refresh(t->cfg.model, now);
	else	/* a file: time stands at its last sample */
		kp_model__refresh(t->cfg.model, s.last_ns);
	update_rates(t, &s);
	rc = kp_tui__review(t);
	update_cpu(t);
	if (!rc && kp_annot_ui__refresh(t) < 0)
		kp_tui__message(t, 1, "annotate: out of memory");
	return rc;
}

void kp_tui__draw(struct kp_tui *t)
{
	int rows = kp_crt__rows(t->crt), y;

	if (t->screen == KP_SCREEN_HELP) {
		kp_help__draw(t);
	} else if (t->screen == KP_SCREEN_ANNOTATE && t->an) {
		kp_annot_ui__draw(t);
	} else {
		y = kp_header__draw(t, 0);
		t->table_y = y;
		if (t->vopts.kind == KP_VIEW_FLAME)
			kp_flame__draw(t, y, rows - 1 - y);
		else
			kp_table__draw(t, y, rows - 1 - y);
		if (t->screen == KP_SCREEN_PROMPT)
			kp_prompt__draw(t, rows - 1);
		else
			kp_status__draw(t, rows - 1);
	}
	kp_crt__show(t->crt);
}

enum kp_act kp_tui__key(struct kp_tui *t, int key)
{
	if (key == KP_KEY(KEY_RESIZE)) {
		kp_crt__check_resize(t->crt);
		return KP_ACT_REDRAW;
	}
	if (key == KP_CTRL('l')) {
		kp_crt__repaint(t->crt);
		return KP_ACT_REDRAW;
	}
	if (key == KP_KEY(KEY_MOUSE)) {
		struct kp_mouse m;

		kp_crt__mouse_event(t->crt, &m);
		return kp_mouse__act(t, &m);
	}
	switch (t->screen) {
	case KP_SCREEN_HELP:
		return kp_help__key(t, key);
	case KP_SCREEN_PROMPT:
		return kp_prompt__key(t, key);
	case KP_SCREEN_ANNOTATE:
		if (t->an)
			return kp_annot_ui__key(t, key);
		t->screen = KP_SCREEN_TABLE;
		break;
	default:
		break;
	}
	if (t->vopts.kind == KP_VIEW_FLAME) {
		enum kp_act a;

		if (kp_flame__key(t, key, &a))
			return a;
	}
	return kp_actions__dispatch(t, key);
}

int kp_tui__apply(struct kp_tui *t, enum kp_act a)
{
	int rc = 0;

	switch (a) {
	case KP_ACT_QUIT:
		return 1;
	case KP_ACT_REFRESH:
		rc = kp_tui__refresh(t);
		break;
	case KP_ACT_REVIEW:
		rc = kp_tui__review(t);
		break;
	default:
		break;
	}
	if (rc < 0)
		return rc;
	if (a != KP_ACT_NONE)
		kp_tui__draw(t);
	return 0;
}
