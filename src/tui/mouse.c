// SPDX-License-Identifier: GPL-2.0-only
/* mouse.c — the mouse on the main screen, as htop has it: a click selects
 * a row, a double-click is Enter on it (expand a tree row, the callers of
 * a function, the focus on a process), the wheel scrolls, a click on a
 * column title sorts by it and one on a view's name switches to it. In
 * the flame graph a click selects a box, a double-click zooms into it
 * and the wheel moves up and down it (flame-keys.c).
 * The help screen scrolls with the wheel; a click there, or anything in
 * the prompt, is ignored. Positions are those of the last draw
 * (t->table_y, t->table_rows, t->tab_end). */
#include "tui/actions.h"
#include "tui/annotate.h"

#include <curses.h>

#define KP_WHEEL_ROWS 3

/* The view whose tab holds column x, or -1. */
static int tab_at(const struct kp_tui *t, int x)
{
	int start = 0;

	for (int k = 0; k < KP_VIEW_KIND_MAX; k++) {
		if (x > start && x < t->tab_end[k])	/* the space before is not it */
			return k;
		start = t->tab_end[k];
	}
	return -1;
}

static enum kp_act click_heading(struct kp_tui *t, int x)
{
	int s = kp_table__sort_at(t, x);

	if (s < 0)
		return KP_ACT_NONE;
	if ((enum kp_sort)s == KP_SORT_DELTA && !kp_model__has_baseline(t->cfg.model))
		return KP_ACT_NONE;
	t->vopts.sort = t->sorts[t->vopts.kind] = (enum kp_sort)s;
	kp_tui__message(t, 0, "sorted by %s", kp_sort_name(t->vopts.sort));
	return KP_ACT_REVIEW;
}

/* A click or double-click on table row y (a screen row). */
static enum kp_act click_row(struct kp_tui *t, int x, int y, int twice)
{
	size_t i = t->top + (size_t)(y - t->table_y - 1);

	if (t->vopts.kind == KP_VIEW_FLAME)
		return kp_flame__click(t, x, y, twice);

	if (!t->view || i >= t->view->nr_rows)
		return KP_ACT_NONE;	/* below the last row */
	kp_table__select(t, i);
	if (twice)
		return kp_act_enter(t, '\r');
	return KP_ACT_REDRAW;
}

static enum kp_act wheel(struct kp_tui *t, int up)
{
	int key = KP_KEY(up ? KEY_UP : KEY_DOWN);
	enum kp_act a = KP_ACT_REDRAW;

	for (int i = 0; i < KP_WHEEL_ROWS; i++) {
		if (t->screen == KP_SCREEN_HELP) {
			kp_help__key(t, key);
			continue;
		}
		if (t->screen == KP_SCREEN_ANNOTATE) {
			kp_annot_ui__key(t, key);
			continue;
		}
		if (t->vopts.kind == KP_VIEW_FLAME) {	/* up and down the graph */
			enum kp_act f;

			if (kp_flame__key(t, key, &f) && f > a)
				a = f;
			continue;
		}
		/* rows past those made: the view is made again */
		if (kp_table__key(t, key) == KP_ACT_REVIEW)
			a = KP_ACT_REVIEW;
	}
	return a;
}

enum kp_act kp_mouse__act(struct kp_tui *t, const struct kp_mouse *m)
{
	int k;

	if (m->kind == KP_MOUSE_WHEEL_UP || m->kind == KP_MOUSE_WHEEL_DOWN)
		return t->screen == KP_SCREEN_PROMPT ? KP_ACT_NONE :
		       wheel(t, m->kind == KP_MOUSE_WHEEL_UP);
	if (m->kind == KP_MOUSE_NONE || t->screen != KP_SCREEN_TABLE)
		return KP_ACT_NONE;
	if (m->y == t->table_y - 1) {
		k = tab_at(t, m->x);
		return k < 0 ? KP_ACT_NONE : kp_act_view(t, '1' + k);
	}
	if (m->y == t->table_y)
		return t->vopts.kind == KP_VIEW_FLAME ? KP_ACT_NONE : click_heading(t, m->x);
	if (m->y > t->table_y && m->y <= t->table_y + t->table_rows)
		return click_row(t, m->x, m->y, m->kind == KP_MOUSE_DOUBLE);
	return KP_ACT_NONE;
}
