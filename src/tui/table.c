// SPDX-License-Identifier: GPL-2.0-only
/* table.c — the main table screen: columns per view, rows, navigation. */
#include "tui/app.h"

#include <stdio.h>
#include <string.h>
#include <curses.h>

#define W_PCT 7		/* " 100.0" */
#define W_SAMPLES 9
#define W_DELTA 8
#define W_COMM 22
#define W_PID 8

/* Wider terminals give the module column more room (up to 28). */
static int w_module(int cols)
{
	return cols >= 160 ? 28 : cols >= 120 ? 22 : 18;
}

static int baseline(const struct kp_tui *t)
{
	return kp_model__has_baseline(t->cfg.model);
}

static int tree_view(const struct kp_tui *t)
{
	return t->vopts.kind == KP_VIEW_TOPDOWN || t->vopts.kind == KP_VIEW_BOTTOMUP;
}

static double share(double n, double total)
{
	return total > 0 ? 100.0 * n / total : 0;
}

/* The numbers at the left: Self% Total% Samples, or with a baseline
 * Self% Total% Δ% ΔSamples (the change of the self share, or the total
 * share in tree views). */
static void numbers(struct kp_tui *t, const struct kp_row *r, enum kp_role base)
{
	const struct kp_view *v = t->view;
	struct kp_line *l = t->line;
	char buf[32];

	snprintf(buf, sizeof(buf), "%.1f", share(r->self, v->total));
	kp_line__field(l, base, buf, W_PCT, 1);
	snprintf(buf, sizeof(buf), "%.1f", share(r->total, v->total));
	kp_line__field(l, base, buf, W_PCT, 1);
	if (!baseline(t)) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->samples);
		kp_line__field(l, base, buf, W_SAMPLES + 1, 1);
		return;
	}
	double cur = tree_view(t) ? r->total : r->self;
	double old = tree_view(t) ? r->base_total : r->base_self;
	double d = share(cur, v->total) - share(old, v->base_total);
	enum kp_role dr = base != KP_ROLE_DEFAULT ? base :
			  d > 0.05 ? KP_ROLE_UP : d < -0.05 ? KP_ROLE_DOWN : base;

	snprintf(buf, sizeof(buf), "%+.1f", d);
	kp_line__field(l, dr, buf, W_DELTA, 1);
	snprintf(buf, sizeof(buf), "%+.0f", cur - old);
	kp_line__field(l, dr, buf, W_SAMPLES + 1, 1);
}

/* The name column's width when the numbers end at column col. */
static int name_width_at(const struct kp_tui *t, int cols, int col)
{
	int w = cols - col - 1;

	switch (t->vopts.kind) {
	case KP_VIEW_FLAT:
		w -= w_module(cols) + 1 + (cols >= 110 ? W_COMM + 1 : 0);
		break;
	case KP_VIEW_TOPDOWN:
	case KP_VIEW_BOTTOMUP:
		w -= w_module(cols) + 1;
		break;
	case KP_VIEW_PROCESS:
		w -= W_PID + 1;
		break;
	case KP_VIEW_THREAD:
		w -= 2 * (W_PID + 1);
		break;
	default:
		break;
	}
	return w < 8 ? 8 : w;
}

static int name_width(const struct kp_tui *t, int cols)
{
	return name_width_at(t, cols, kp_line__col(t->line));
}

static void tree_marker(struct kp_tui *t, const struct kp_row *r, enum kp_role role)
{
	int utf8 = kp_crt__utf8(t->crt), depth = r->depth > 30 ? 30 : r->depth;
	const char *m = "  ";

	kp_line__pad(t->line, role, kp_line__col(t->line) + 2 * depth);
	if (r->has_children && (!t->vopts.expanded || kp_expand__has(t->expand, r->id)))
		m = utf8 ? "\u25be " : "- ";
	else if (r->has_children)
		m = utf8 ? "\u25b8 " : "+ ";
	kp_line__put(t->line, role, m, -1);
}

static void name_cols(struct kp_tui *t, const struct kp_row *r, enum kp_role base,
		      int cols)
{
	struct kp_line *l = t->line;
	int w = name_width(t, cols), start;
	enum kp_role nr = base != KP_ROLE_DEFAULT ? base :
			  r->kernel ? KP_ROLE_KERNEL : base;
	enum kp_role dim = base != KP_ROLE_DEFAULT ? base : KP_ROLE_DIM;
	char buf[64];

	kp_line__put(l, base, " ", -1);
	if (t->vopts.kind == KP_VIEW_PROCESS || t->vopts.kind == KP_VIEW_THREAD) {
		snprintf(buf, sizeof(buf), "%u", r->pid);
		kp_line__field(l, base, buf, W_PID, 1);
		kp_line__put(l, base, " ", -1);
	}
	if (t->vopts.kind == KP_VIEW_THREAD) {
		snprintf(buf, sizeof(buf), "%u", r->tid);
		kp_line__field(l, base, buf, W_PID, 1);
		kp_line__put(l, base, " ", -1);
	}
	start = kp_line__col(l);
	if (tree_view(t))
		tree_marker(t, r, base);
	kp_line__field(l, nr, r->name ? r->name : "?", w - (kp_line__col(l) - start), 0);
	if (t->vopts.kind == KP_VIEW_FLAT || tree_view(t)) {
		kp_line__put(l, base, " ", -1);
		kp_line__field(l, dim, r->module ? r->module : "", w_module(cols), 0);
	}
	if (t->vopts.kind == KP_VIEW_FLAT && cols >= 110) {
		kp_line__put(l, base, " ", -1);
		if (r->comm && r->nr_procs <= 1)
			snprintf(buf, sizeof(buf), "%s/%u", r->comm, r->pid);
		else
			snprintf(buf, sizeof(buf), "%u processes", r->nr_procs);
		kp_line__field(l, dim, buf, W_COMM, 0);
	}
}

static const char *name_heading(const struct kp_tui *t)
{
	switch (t->vopts.kind) {
	case KP_VIEW_TOPDOWN: return "Call tree (callers first)";
	case KP_VIEW_BOTTOMUP: return "Function, then its callers";
	case KP_VIEW_PROCESS: return "Command";
	case KP_VIEW_THREAD: return "Thread";
	case KP_VIEW_CGROUP: return "Cgroup";
	case KP_VIEW_MODULE: return "Module";
	default: return "Function";
	}
}

static void heading(struct kp_tui *t, int y, int cols)
{
	struct kp_line *l = t->line;
	enum kp_sort s = t->vopts.sort;
	enum kp_role on = KP_ROLE_TAB_ON, off = KP_ROLE_TITLE;
	int w;

	kp_line__reset(l, cols, KP_ROLE_TITLE);
	kp_line__field(l, s == KP_SORT_SELF ? on : off, "Self%", W_PCT, 1);
	kp_line__field(l, s == KP_SORT_TOTAL ? on : off, "Total%", W_PCT, 1);
	if (baseline(t)) {
		kp_line__field(l, s == KP_SORT_DELTA ? on : off,
			       kp_crt__utf8(t->crt) ? "\u0394%" : "Delta%", W_DELTA, 1);
		kp_line__field(l, off, kp_crt__utf8(t->crt) ? "\u0394Samples" : "DSamples",
			       W_SAMPLES + 1, 1);
	} else {
		kp_line__field(l, off, "Samples", W_SAMPLES + 1, 1);
	}
	w = name_width(t, cols);
	kp_line__put(l, off, " ", -1);
	if (t->vopts.kind == KP_VIEW_PROCESS || t->vopts.kind == KP_VIEW_THREAD) {
		kp_line__field(l, off, "PID", W_PID, 1);
		kp_line__put(l, off, " ", -1);
	}
	if (t->vopts.kind == KP_VIEW_THREAD) {
		kp_line__field(l, off, "TID", W_PID, 1);
		kp_line__put(l, off, " ", -1);
	}
	kp_line__field(l, s == KP_SORT_NAME ? on : off, name_heading(t), w, 0);
	if (t->vopts.kind == KP_VIEW_FLAT || tree_view(t))
		kp_line__field(l, off, " Module", w_module(cols) + 1, 0);
	if (t->vopts.kind == KP_VIEW_FLAT && cols >= 110)
		kp_line__field(l, off, " Command/PID", W_COMM + 1, 0);
	kp_line__flush(l, y);
}

int kp_table__sort_at(const struct kp_tui *t, int x)
{
	/* the numbers end at end; then " ", [PID ][TID ], the name */
	int end = 2 * W_PCT + (baseline(t) ? W_DELTA : 0) + W_SAMPLES + 1;
	int w = name_width_at(t, kp_crt__cols(t->crt), end), name_x = end + 1;

	if (x < 0)
		return -1;
	if (x < W_PCT)
		return KP_SORT_SELF;
	if (x < 2 * W_PCT)
		return KP_SORT_TOTAL;
	if (x < end)	/* with a baseline the change; else the self samples */
		return baseline(t) ? KP_SORT_DELTA : KP_SORT_SELF;
	if (t->vopts.kind == KP_VIEW_PROCESS || t->vopts.kind == KP_VIEW_THREAD)
		name_x += (W_PID + 1) * (t->vopts.kind == KP_VIEW_THREAD ? 2 : 1);
	return x >= name_x && x < name_x + w ? KP_SORT_NAME : -1;
}

/* The flat view makes only the rows up to what is on screen, with room
 * to scroll (a 100k-function view is 12 MB of rows); moving past them
 * makes more (kp_table__key, kp_act_find). */
#define KP_ROWS_MADE 2048

size_t kp_table__rows_wanted(const struct kp_tui *t)
{
	size_t h = t->table_rows > 0 ? (size_t)t->table_rows : 50;
	size_t end = (t->sel > t->top ? t->sel : t->top) + h;

	if (t->vopts.kind != KP_VIEW_FLAT || t->rows_all)
		return 0;
	return end * 2 > KP_ROWS_MADE ? end * 2 : KP_ROWS_MADE;
}

void kp_table__select(struct kp_tui *t, size_t i)
{
	size_t n = t->view ? t->view->nr_all : 0, h = t->table_rows > 0 ? (size_t)t->table_rows : 1;

	if (!n) {
		t->sel = t->top = 0;
		return;
	}
	if (i >= n)
		i = n - 1;
	t->sel = i;
	/* a row not made yet: the key asks for the view again */
	t->sel_id = i < t->view->nr_rows ? t->view->rows[i].id : 0;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + h)
		t->top = t->sel - h + 1;
	if (t->top + h > n)
		t->top = n > h ? n - h : 0;
}

void kp_table__draw(struct kp_tui *t, int y, int h)
{
	int cols = kp_crt__cols(t->crt);
	size_t n = t->view ? t->view->nr_rows : 0;

	if (h < 2)
		return;
	heading(t, y, cols);
	t->table_rows = h - 1;
	kp_table__select(t, t->sel);
	for (int i = 0; i < h - 1; i++) {
		size_t k = t->top + (size_t)i;
		enum kp_role base = k == t->sel ? KP_ROLE_SELECTED : KP_ROLE_DEFAULT;

		kp_line__reset(t->line, cols, base);
		if (k < n) {	/* made rows; the others wait for the next view */
			numbers(t, &t->view->rows[k], base);
			name_cols(t, &t->view->rows[k], base, cols);
		} else if (k == 0) {
			kp_line__put(t->line, KP_ROLE_DIM, t->view ?
				     "  (no samples yet)" : "  (waiting for the first refresh)", -1);
		}
		kp_line__flush(t->line, y + 1 + i);
	}
}

enum kp_act kp_table__key(struct kp_tui *t, int key)
{
	size_t n = t->view ? t->view->nr_all : 0;
	size_t page = t->table_rows > 1 ? (size_t)t->table_rows - 1 : 1;

	switch (key) {
	case KP_KEY(KEY_UP):
		kp_table__select(t, t->sel ? t->sel - 1 : 0);
		break;
	case KP_KEY(KEY_DOWN):
		kp_table__select(t, t->sel + 1);
		break;
	case KP_KEY(KEY_PPAGE):
		kp_table__select(t, t->sel > page ? t->sel - page : 0);
		break;
	case KP_KEY(KEY_NPAGE):
		kp_table__select(t, t->sel + page);
		break;
	case KP_KEY(KEY_HOME):
		kp_table__select(t, 0);
		break;
	case KP_KEY(KEY_END):
		kp_table__select(t, n ? n - 1 : 0);
		break;
	default:
		return KP_ACT_NONE;
	}
	return t->view && t->top + (size_t)t->table_rows > t->view->nr_rows &&
	       t->view->nr_rows < t->view->nr_all ? KP_ACT_REVIEW : KP_ACT_REDRAW;
}
