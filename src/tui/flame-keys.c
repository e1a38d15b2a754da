// SPDX-License-Identifier: GPL-2.0-only
/* flame-keys.c — the flame graph's keys, zoom, search and mouse (see
 * flame.h): arrows move to the parent, the widest child or the box
 * beside at the same depth; Enter zooms into the selected box (the model
 * lays it out across the width), Esc and Backspace zoom out one level;
 * r puts the root at the top or the bottom; / searches the names by
 * substring or POSIX extended regular expression (case ignored), n and N
 * go to the next and previous match; a click selects a box, a
 * double-click zooms into it, the wheel moves up and down. The other
 * keys of the main screen (a the annotation of the box's function, c
 * the callers of the selected function, p the
 * focus on its process, k u i, the filter, the time modes) act as they
 * do on a selected row.
 */
#include "tui/app.h"
#include "tui/annotate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curses.h>

void kp_flame_ui__init(struct kp_flame_ui *f)
{
	memset(f, 0, sizeof(*f));
}

void kp_flame_ui__fini(struct kp_flame_ui *f)
{
	if (f->have_re)
		regfree(&f->re);
	f->have_re = 0;
	free(f->match);
	f->match = NULL;
	f->cap_match = 0;
}

void kp_flame__opts(const struct kp_tui *t, struct kp_view_opts *o)
{
	int units = kp_crt__cols(t->crt) * (kp_crt__utf8(t->crt) ? 2 : 1);

	o->zoom = t->fl.zoom;
	o->zoom_len = t->fl.zoom_len;
	/* half a unit: a box that may round to one (flame.c) */
	o->min_share = units > 0 ? 0.5 / units : 0;
}

static int matches(const struct kp_tui *t, const char *name)
{
	return name && (strcasestr(name, t->search) ||
			(t->fl.have_re && regexec(&t->fl.re, name, 0, NULL, 0) == 0));
}

int kp_flame__reviewed(struct kp_tui *t)
{
	const struct kp_view *v = t->view;
	struct kp_flame_ui *f = &t->fl;
	int inside = -1;	/* depth of the match the rows are under */

	f->nr_match = 0;
	f->match_share = 0;
	if (v->nr_rows > f->cap_match) {
		uint8_t *m = realloc(f->match, v->nr_rows);

		if (!m)
			return kp_err_set(&t->err, -ENOMEM, "out of memory");
		f->match = m;
		f->cap_match = v->nr_rows;
	}
	for (size_t i = 0; i < v->nr_rows; i++) {
		const struct kp_row *r = &v->rows[i];

		f->match[i] = t->search[0] && matches(t, r->name);
		if (inside >= 0 && r->depth <= inside)
			inside = -1;
		if (!f->match[i])
			continue;
		f->nr_match++;
		if (inside < 0 && v->total > 0) {	/* nested matches once */
			f->match_share += r->total / v->total;
			inside = r->depth;
		}
	}
	return 0;
}

/* The nearest row before i one level up: its parent (depth first). */
static size_t parent_of(const struct kp_view *v, size_t i)
{
	for (size_t k = i; k-- > 0;)
		if (v->rows[k].depth < v->rows[i].depth)
			return k;
	return i;
}

static size_t widest_child(const struct kp_view *v, size_t i)
{
	size_t best = i;

	for (size_t k = i + 1; k < v->nr_rows && v->rows[k].depth > v->rows[i].depth; k++)
		if (v->rows[k].depth == v->rows[i].depth + 1 &&
		    (best == i || v->rows[k].w > v->rows[best].w))
			best = k;
	return best;
}

/* The box beside i at its depth (dir -1: left, 1: right), or i. */
static size_t beside(const struct kp_view *v, size_t i, int dir)
{
	for (size_t k = i; dir < 0 ? k-- > 0 : ++k < v->nr_rows;)
		if (v->rows[k].depth == v->rows[i].depth)
			return k;
	return i;
}

static enum kp_act select_row(struct kp_tui *t, size_t i)
{
	if (i == t->sel)
		return KP_ACT_NONE;
	kp_table__select(t, i);
	return KP_ACT_REDRAW;
}

static enum kp_act zoom_in(struct kp_tui *t)
{
	const struct kp_view *v = t->view;
	size_t i = t->sel, n = (size_t)v->rows[i].depth;

	if (n > KP_FLAME_ZOOM_MAX) {
		kp_tui__message(t, 1, "zoom: deeper than %d levels", KP_FLAME_ZOOM_MAX);
		return KP_ACT_REDRAW;
	}
	t->fl.zoom_len = n;
	for (; n > 0; n--, i = parent_of(v, i))
		t->fl.zoom[n - 1] = v->rows[i].id;
	return KP_ACT_REVIEW;
}

static enum kp_act zoom_out(struct kp_tui *t)
{
	if (!t->fl.zoom_len)
		return KP_ACT_NONE;
	/* the zoom box stays selected: its parent is the new zoom */
	t->fl.zoom_len--;
	return KP_ACT_REVIEW;
}

/* The next match after the selection (dir 1) or before it (-1). */
static enum kp_act next_match(struct kp_tui *t, int dir)
{
	size_t n = t->view->nr_rows;

	if (!t->search[0]) {
		kp_tui__message(t, 0, "no search yet: press / first");
		return KP_ACT_REDRAW;
	}
	for (size_t k = 1; k <= n; k++) {
		size_t i = dir > 0 ? (t->sel + k) % n : (t->sel + n - k % n) % n;

		if (i < t->fl.cap_match && t->fl.match[i]) {
			select_row(t, i);
			return KP_ACT_REDRAW;
		}
	}
	kp_tui__message(t, 1, "not found: %s", t->search);
	return KP_ACT_REDRAW;
}

enum kp_act kp_flame__search(struct kp_tui *t, const char *text)
{
	struct kp_flame_ui *f = &t->fl;

	snprintf(t->search, sizeof(t->search), "%s", text);
	if (f->have_re)
		regfree(&f->re);
	f->have_re = *text && regcomp(&f->re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB) == 0;
	if (kp_flame__reviewed(t) < 0) {
		kp_tui__message(t, 1, "search: %s", t->err.msg);
		return KP_ACT_REDRAW;
	}
	if (!*text)
		return KP_ACT_REDRAW;
	if (!f->nr_match) {
		kp_tui__message(t, 1, "not found: %s", text);
		return KP_ACT_REDRAW;
	}
	kp_tui__message(t, 0, "%zu boxes match %s: %.1f%% of the samples",
			f->nr_match, text, 100 * f->match_share);
	return next_match(t, 1);
}

/* Keys that move the selection: 1 with *act set if key is one. */
static int move_key(struct kp_tui *t, int key, enum kp_act *act)
{
	const struct kp_view *v = t->view;
	int up = t->fl.root_bottom ? 0 : 1;	/* the Up key goes to the parent */

	switch (key) {
	case KP_KEY(KEY_UP):
	case KP_KEY(KEY_DOWN):
		*act = select_row(t, (key == KP_KEY(KEY_UP)) == up ? parent_of(v, t->sel)
								  : widest_child(v, t->sel));
		return 1;
	case KP_KEY(KEY_LEFT):
	case KP_KEY(KEY_RIGHT):
		*act = select_row(t, beside(v, t->sel, key == KP_KEY(KEY_LEFT) ? -1 : 1));
		return 1;
	case KP_KEY(KEY_HOME):	/* the zoom box */
		*act = select_row(t, (size_t)v->zoom_depth < v->nr_rows ? (size_t)v->zoom_depth : 0);
		return 1;
	}
	return 0;
}

int kp_flame__key(struct kp_tui *t, int key, enum kp_act *act)
{
	int empty = !t->view || !t->view->nr_rows || t->sel >= t->view->nr_rows;

	*act = KP_ACT_NONE;
	if (key == 'r') {
		t->fl.root_bottom = !t->fl.root_bottom;
		kp_tui__message(t, 0, "root at the %s", t->fl.root_bottom ? "bottom" : "top");
		*act = KP_ACT_REDRAW;
		return 1;
	}
	if (key == 'a') {
		*act = kp_annot_ui__open_selected(t);
		return 1;
	}
	if (key == KP_ESC || key == KP_KEY(KEY_BACKSPACE) || key == 127 || key == 8) {
		*act = zoom_out(t);
		return *act != KP_ACT_NONE || key != KP_ESC;	/* Esc: then the focus... */
	}
	if (empty)	/* nothing to move to: taken, nothing done */
		return key == 'n' || key == 'N' || key == '\r' || key == '\n' ||
		       key == KP_KEY(KEY_ENTER) || key == KP_KEY(KEY_UP) ||
		       key == KP_KEY(KEY_DOWN) || key == KP_KEY(KEY_LEFT) ||
		       key == KP_KEY(KEY_RIGHT) || key == KP_KEY(KEY_HOME);
	if (move_key(t, key, act))
		return 1;
	if (key == '\r' || key == '\n' || key == KP_KEY(KEY_ENTER)) {
		*act = zoom_in(t);
		return 1;
	}
	if (key == 'n' || key == 'N') {
		*act = next_match(t, key == 'n' ? 1 : -1);
		return 1;
	}
	return 0;
}

/* The box drawn at screen cell (x, y), or the number of rows. */
static size_t box_at(const struct kp_tui *t, int x, int y)
{
	const struct kp_view *v = t->view;
	const struct kp_flame_ui *f = &t->fl;
	int i = f->root_bottom ? f->y + f->h - 1 - y : y - f->y - 1;
	double at = f->cols > 0 ? (x + 0.5) / f->cols : 0;

	if (!v || i < 0 || i >= f->h - 1)
		return v ? v->nr_rows : 0;
	for (size_t k = 0; k < v->nr_rows; k++) {
		const struct kp_row *r = &v->rows[k];

		if (r->depth == f->first + i && at >= r->x && at < r->x + r->w)
			return k;
	}
	return v->nr_rows;
}

enum kp_act kp_flame__click(struct kp_tui *t, int x, int y, int twice)
{
	size_t i = box_at(t, x, y);

	if (!t->view || i >= t->view->nr_rows)
		return KP_ACT_NONE;
	kp_table__select(t, i);
	return twice ? zoom_in(t) : KP_ACT_REDRAW;
}
