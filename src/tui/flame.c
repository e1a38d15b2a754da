// SPDX-License-Identifier: GPL-2.0-only
/* flame.c — the flame graph screen (view 8): the boxes of the model's
 * flame view, one screen row per depth, the root at the top (an icicle)
 * or at the bottom (r flips it), and a heading line with the selected
 * box's name, module, self and total.
 *
 * A screen row is drawn in units: half cells where the locale is UTF-8
 * (a cell split between two colours is U+258C or U+2590 in the box's
 * colour), whole cells elsewhere. A box covers the units its x and width
 * round to; its first unit is its edge (a gap of half a cell, or '|'
 * without UTF-8), so that boxes side by side are told apart; a box
 * narrower than a unit takes one where the row is free. The name is
 * written in the box's whole cells, cut to fit. Colours come from crt.c's
 * table by kind, by change with a baseline, purple for a search match;
 * without colours (NO_COLOR) boxes are in reverse video and a character
 * before the name tells the kind (k kernel, j JIT, p Python, ? unknown)
 * or the change (+ grown, - shrunk).
 */
#include "tui/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(KP_ROLE_FL_PROCESS - KP_ROLE_FL_USER == KP_KIND_PROCESS - KP_KIND_USER,
	       "flame roles follow enum kp_frame_kind");

/* A change of share (points of the whole) shown as grown or shrunk, and
 * as much so. */
#define KP_FL_SOME 0.1
#define KP_FL_MUCH 1.0

struct frow {			/* one screen row being drawn */
	struct kp_tui *t;
	int cols, per_cell, units;
	int32_t *own;		/* per unit: the row of the box, or -1 */
	uint8_t *edge;		/* per unit: the box's edge */
};

/* v (>= 0) rounded: no libm for the tui */
static long units_of(double v)
{
	return v > 0 ? (long)(v + 0.5) : 0;
}

static double share(double n, double total)
{
	return total > 0 ? 100.0 * n / total : 0;
}

static double change(const struct kp_view *v, const struct kp_row *r)
{
	return share(r->total, v->total) - share(r->base_total, v->base_total);
}

static enum kp_role box_role(const struct kp_tui *t, size_t i)
{
	const struct kp_view *v = t->view;
	const struct kp_row *r = &v->rows[i];
	double d;

	if (i == t->sel)
		return KP_ROLE_FL_SEL;
	if (t->fl.match && i < t->fl.cap_match && t->fl.match[i])
		return KP_ROLE_FL_MATCH;
	if (!kp_model__has_baseline(t->cfg.model))
		return (enum kp_role)(KP_ROLE_FL_USER + r->kind);
	d = change(v, r);
	if (d >= KP_FL_MUCH)
		return KP_ROLE_FL_GROW;
	if (d >= KP_FL_SOME)
		return KP_ROLE_FL_GROW_SOME;
	if (d <= -KP_FL_MUCH)
		return KP_ROLE_FL_SHRINK;
	if (d <= -KP_FL_SOME)
		return KP_ROLE_FL_SHRINK_SOME;
	return KP_ROLE_FL_SAME;
}

/* Without colours: the character that tells the kind or the change. */
static const char *mono_mark(const struct kp_row *r, enum kp_role role)
{
	switch (role) {
	case KP_ROLE_FL_GROW: case KP_ROLE_FL_GROW_SOME: return "+";
	case KP_ROLE_FL_SHRINK: case KP_ROLE_FL_SHRINK_SOME: return "-";
	case KP_ROLE_FL_SAME: return "";
	default: break;
	}
	switch (r->kind) {
	case KP_KIND_KERNEL: return "k ";
	case KP_KIND_JIT: return "j ";
	case KP_KIND_PYTHON: return "p ";
	case KP_KIND_UNKNOWN: return "? ";
	default: return "";
	}
}

/* The name in n cells of the box, cut with '~' (UTF-8: an ellipsis). */
static void label(struct frow *f, size_t i, enum kp_role role, int n)
{
	const struct kp_row *r = &f->t->view->rows[i];
	struct kp_line *l = f->t->line;
	int end = kp_line__col(l) + n;
	char buf[512];

	snprintf(buf, sizeof(buf), "%s%s", kp_crt__color(f->t->crt) ? "" :
		 mono_mark(r, role), r->name ? r->name : "?");
	if (kp_text_width(buf) <= n) {
		kp_line__put(l, role, buf, n);
	} else if (n > 1) {
		kp_line__put(l, role, buf, n - 1);
		kp_line__putc(l, role, kp_crt__utf8(f->t->crt) ? L'\u2026' : L'~');
	}
	kp_line__pad(l, role, end);
}

/* Which box's fill a unit shows (-1: none, or an edge). */
static int32_t fill(const struct frow *f, int u)
{
	return u < f->units && f->own[u] >= 0 && !f->edge[u] ? f->own[u] : -1;
}

/* The units of the boxes at depth d (rows[from..to) hold them). */
static void cover(struct frow *f, const size_t *idx, size_t n)
{
	const struct kp_row *rows = f->t->view->rows;

	memset(f->edge, 0, (size_t)f->units);
	for (int u = 0; u < f->units; u++)
		f->own[u] = -1;
	for (size_t k = 0; k < n; k++) {	/* boxes at least a unit wide */
		const struct kp_row *r = &rows[idx[k]];
		long u0 = units_of(r->x * f->units), u1 = units_of((r->x + r->w) * f->units);

		u0 = u0 < 0 ? 0 : u0;
		u1 = u1 > f->units ? f->units : u1;
		for (long u = u0; u < u1; u++)
			f->own[u] = (int32_t)idx[k];
		if (u1 - u0 >= 2)
			f->edge[u0] = 1;
	}
	for (size_t k = 0; k < n; k++) {	/* narrower: where the row is free */
		const struct kp_row *r = &rows[idx[k]];
		long u0 = units_of(r->x * f->units), u1 = units_of((r->x + r->w) * f->units);

		if (u1 <= u0 && u0 < f->units && u0 >= 0 && f->own[u0] < 0)
			f->own[u0] = (int32_t)idx[k];
	}
}

/* Cell c split between a (left) and b (right), fills or -1. */
static void split_cell(struct frow *f, int32_t a, int32_t b)
{
	struct kp_line *l = f->t->line;
	const struct kp_row *rows = f->t->view->rows;

	if (a < 0 && b < 0)
		kp_line__putc(l, KP_ROLE_DEFAULT, L' ');
	else if (a < 0)
		kp_line__putc(l, kp_crt__half(box_role(f->t, (size_t)b)), L'\u2590');
	else if (b < 0)
		kp_line__putc(l, kp_crt__half(box_role(f->t, (size_t)a)), L'\u258c');
	else	/* two boxes: the narrower shows (it may have no other cell) */
		kp_line__putc(l, box_role(f->t, (size_t)(rows[a].w < rows[b].w ? a : b)), L' ');
}

/* Draw the units into the line, cell by cell. */
static void cells(struct frow *f)
{
	struct kp_line *l = f->t->line;
	int pc = f->per_cell;

	for (int c = 0; c < f->cols;) {
		int32_t a = fill(f, c * pc), b = fill(f, c * pc + pc - 1), n;

		if (pc == 1 && f->own[c] >= 0 && f->edge[c]) {	/* '|' edge */
			kp_line__putc(l, box_role(f->t, (size_t)f->own[c]), L'|');
			c++;
			continue;
		}
		if (a != b) {
			split_cell(f, a, b);
			c++;
			continue;
		}
		if (a < 0) {
			kp_line__putc(l, KP_ROLE_DEFAULT, L' ');
			c++;
			continue;
		}
		for (n = 1; c + n < f->cols && fill(f, (c + n) * pc) == a &&
			    fill(f, (c + n) * pc + pc - 1) == a; n++)
			;
		label(f, (size_t)a, box_role(f->t, (size_t)a), n);
		c += n;
	}
}

/* Rows of the view by depth: idx holds them, depth d at
 * idx[start[d] .. start[d + 1]). Returns the depths, or -1. */
static int by_depth(const struct kp_view *v, size_t **idx, size_t **start)
{
	int depths = 0;

	for (size_t i = 0; i < v->nr_rows; i++)
		if (v->rows[i].depth + 1 > depths)
			depths = v->rows[i].depth + 1;
	*idx = malloc((v->nr_rows + 1) * sizeof(**idx));
	*start = calloc((size_t)depths + 2, sizeof(**start));
	if (!*idx || !*start)
		return -1;
	for (size_t i = 0; i < v->nr_rows; i++)
		(*start)[v->rows[i].depth + 2]++;
	for (int d = 2; d <= depths + 1; d++)
		(*start)[d] += (*start)[d - 1];
	for (size_t i = 0; i < v->nr_rows; i++)	/* in order: x order at a depth */
		(*idx)[(*start)[v->rows[i].depth + 1]++] = i;
	return depths;
}

/* The first depth on screen: the selected box's in sight. */
static void scroll(struct kp_tui *t, int depths, int n)
{
	int sd = t->view && t->sel < t->view->nr_rows ? t->view->rows[t->sel].depth : 0;

	if (t->fl.first > sd)
		t->fl.first = sd;
	if (sd >= t->fl.first + n)
		t->fl.first = sd - n + 1;
	if (t->fl.first > depths - n)
		t->fl.first = depths - n;
	if (t->fl.first < 0)
		t->fl.first = 0;
}

static void draw_rows(struct kp_tui *t, int y, int h, const size_t *idx,
		      const size_t *start, int depths)
{
	struct frow f = { .t = t, .cols = kp_crt__cols(t->crt) };
	int n = h - 1;

	f.per_cell = kp_crt__utf8(t->crt) ? 2 : 1;
	f.units = f.cols * f.per_cell;
	f.own = malloc((size_t)f.units * sizeof(*f.own));
	f.edge = malloc((size_t)f.units);
	for (int i = 0; i < n; i++) {
		int d = t->fl.first + i, sy = t->fl.root_bottom ? y + h - 1 - i : y + 1 + i;

		kp_line__reset(t->line, f.cols, KP_ROLE_DEFAULT);
		if (f.own && f.edge && d < depths) {
			cover(&f, idx + start[d], start[d + 1] - start[d]);
			cells(&f);
		}
		kp_line__flush(t->line, sy);
	}
	free(f.own);
	free(f.edge);
}

/* The heading: the selected box, then the zoom and the search. */
static void heading(struct kp_tui *t, int y, int cols)
{
	const struct kp_row *r = kp_tui__selected(t), *z;
	const struct kp_view *v = t->view;
	struct kp_line *l = t->line;

	kp_line__reset(l, cols, KP_ROLE_TITLE);
	if (!r) {
		kp_line__put(l, KP_ROLE_TITLE, "Flame graph", -1);
		kp_line__flush(l, y);
		return;
	}
	kp_line__put(l, KP_ROLE_TAB_ON, r->name ? r->name : "?", cols / 2);
	if (r->module)
		kp_line__putf(l, KP_ROLE_TITLE, "  %s", r->module);
	kp_line__putf(l, KP_ROLE_TITLE, "  self %.1f%%  total %.1f%%  %llu samples",
		      share(r->self, v->total), share(r->total, v->total),
		      (unsigned long long)r->samples);
	if (kp_model__has_baseline(t->cfg.model))
		kp_line__putf(l, KP_ROLE_TITLE, "  %s%+.1f", kp_crt__utf8(t->crt) ?
			      "\u0394" : "change ", change(v, r));
	if (t->search[0])
		kp_line__putf(l, KP_ROLE_TITLE, "  /%s: %zu, %.1f%%", t->search,
			      t->fl.nr_match, 100 * t->fl.match_share);
	z = v->zoom_depth > 0 && (size_t)v->zoom_depth < v->nr_rows ?
	    &v->rows[v->zoom_depth] : NULL;
	if (z)
		kp_line__putf(l, KP_ROLE_TITLE, "  zoom %s", z->name ? z->name : "?");
	kp_line__flush(l, y);
}

void kp_flame__draw(struct kp_tui *t, int y, int h)
{
	int cols = kp_crt__cols(t->crt), depths;
	size_t *idx = NULL, *start = NULL;

	if (h < 2)
		return;
	t->table_rows = h - 1;
	t->fl.y = y;
	t->fl.h = h;
	t->fl.cols = cols;
	heading(t, y, cols);
	depths = t->view && t->view->nr_rows ? by_depth(t->view, &idx, &start) : 0;
	if (depths < 0)
		depths = 0;	/* no memory: an empty frame, the next may do */
	scroll(t, depths, h - 1);
	draw_rows(t, y, h, idx, start, depths);
	if (!depths) {
		kp_line__reset(t->line, cols, KP_ROLE_DEFAULT);
		kp_line__put(t->line, KP_ROLE_DIM, t->view ? "  (no samples yet)" :
			     "  (waiting for the first refresh)", -1);
		kp_line__flush(t->line, t->fl.root_bottom ? y + h - 1 : y + 1);
	}
	free(idx);
	free(start);
}
