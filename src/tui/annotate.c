// SPDX-License-Identifier: GPL-2.0-only
/* annotate.c — the annotate screen (annotate.h). Rows as the model lays
 * them out: SOURCE rows (file:line and the text, when its file is one
 * every user may read) above their INSN rows (address, instruction), or
 * ADDR rows with the reason when the code could not be read. */
#include "tui/annotate.h"
#include "tui/app.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curses.h>

#include "util/kp_err.h"
#include "util/srcline.h"

enum { MODE_BOTH = 0, MODE_SOURCE, MODE_INSNS, MODE_MAX };

struct kp_annot_ui {
	struct kp_annot *a;
	size_t *vis;		/* rows shown in this mode */
	size_t nr_vis, cap_vis;
	size_t sel, top;	/* in vis */
	int mode;
	struct kp_srclines *src;
	uint64_t back[KP_ANNOT_BACK];	/* fns opened before (Esc) */
	size_t nr_back;
	int rows;		/* body rows of the last draw */
};

#define HOT_PCT 0.5	/* an instruction this hot stops n / N */

static int shown(const struct kp_annot_ui *u, const struct kp_annot_row *r)
{
	return u->mode == MODE_BOTH || (u->mode == MODE_SOURCE) == (r->kind == KP_ANNOT_SOURCE);
}

static int make_vis(struct kp_annot_ui *u)
{
	u->nr_vis = 0;
	for (size_t i = 0; i < u->a->nr_rows; i++) {
		if (!shown(u, &u->a->rows[i]))
			continue;
		if (u->nr_vis == u->cap_vis) {
			size_t cap = u->cap_vis ? 2 * u->cap_vis : 256;
			size_t *v = realloc(u->vis, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			u->vis = v;
			u->cap_vis = cap;
		}
		u->vis[u->nr_vis++] = i;
	}
	return 0;
}

/* Select the shown row nearest row i of the annotation. */
static void select_row(struct kp_annot_ui *u, size_t i)
{
	u->sel = 0;
	for (size_t k = 0; k < u->nr_vis; k++)
		if (u->vis[k] <= i)
			u->sel = k;
}

static uint64_t sel_addr(const struct kp_annot_ui *u, enum kp_annot_kind *kind)
{
	const struct kp_annot_row *r;

	*kind = KP_ANNOT_INSN;
	if (!u->a || u->sel >= u->nr_vis)
		return 0;
	r = &u->a->rows[u->vis[u->sel]];
	*kind = r->kind;
	return r->kind == KP_ANNOT_SOURCE ? r->line : r->off;
}

/* The first row shown when a function opens: its selection's source
 * line, when that is close enough above it, else a few rows above. */
static void top_at_line(struct kp_annot_ui *u)
{
	size_t k = u->sel;

	while (k > 0 && u->a->rows[u->vis[k]].kind != KP_ANNOT_SOURCE && u->sel - k < 8)
		k--;
	if (u->nr_vis && u->a->rows[u->vis[k]].kind == KP_ANNOT_SOURCE)
		u->top = k;
	else
		u->top = u->sel > 3 ? u->sel - 3 : 0;
}

/* Take annotation a in place of the one shown; keep: keep the selected
 * row's address (a refresh), else select the hottest instruction. */
static int take(struct kp_tui *t, struct kp_annot *a, int keep)
{
	struct kp_annot_ui *u = t->an;
	enum kp_annot_kind kind;
	uint64_t at = sel_addr(u, &kind);
	int rc;

	kp_annot__free(u->a);
	u->a = a;
	rc = make_vis(u);
	if (rc)
		return rc;
	if (!keep) {
		select_row(u, a->hottest);
		top_at_line(u);
		return 0;
	}
	for (size_t k = 0; k < u->nr_vis; k++) {
		const struct kp_annot_row *r = &a->rows[u->vis[k]];

		if (r->kind == kind && (kind == KP_ANNOT_SOURCE ? r->line : r->off) == at) {
			u->sel = k;
			return 0;
		}
	}
	if (u->sel >= u->nr_vis)
		u->sel = u->nr_vis ? u->nr_vis - 1 : 0;
	return 0;
}

static int open_fn(struct kp_tui *t, uint64_t fn)
{
	struct kp_annot *a = NULL;
	int rc = kp_model__annotate(t->cfg.model, fn, &a);

	if (rc)
		return rc;
	return take(t, a, 0);
}

enum kp_act kp_annot_ui__open(struct kp_tui *t, uint64_t fn)
{
	int rc;

	if (!t->an) {
		t->an = calloc(1, sizeof(*t->an));
		if (!t->an || !(t->an->src = kp_srclines__new())) {
			free(t->an);
			t->an = NULL;
			kp_tui__message(t, 1, "annotate: out of memory");
			return KP_ACT_REDRAW;
		}
	}
	rc = open_fn(t, fn);
	if (rc) {
		kp_tui__message(t, 1, "annotate: %s", kp_strerror(rc));
		return KP_ACT_REDRAW;
	}
	t->screen = KP_SCREEN_ANNOTATE;
	return KP_ACT_REDRAW;
}

enum kp_act kp_annot_ui__open_selected(struct kp_tui *t)
{
	const struct kp_row *r = kp_tui__selected(t);

	if (!r || !r->fn) {
		kp_tui__message(t, 1, "a: select a function to annotate");
		return KP_ACT_REDRAW;
	}
	if (t->an)
		t->an->nr_back = 0;
	return kp_annot_ui__open(t, r->fn);
}

int kp_annot_ui__refresh(struct kp_tui *t)
{
	struct kp_annot *a = NULL;
	int rc;

	if (!t->an || !t->an->a || t->screen != KP_SCREEN_ANNOTATE)
		return 0;
	rc = kp_model__annotate_recount(t->cfg.model, t->an->a);
	if (rc != -EINVAL)
		return rc;	/* counted again, its rows as they were */
	rc = kp_model__annotate(t->cfg.model, t->an->a->fn, &a);
	if (rc == -ENOENT)
		return 0;
	return rc ? rc : take(t, a, 1);
}

void kp_annot_ui__free(struct kp_tui *t)
{
	if (!t->an)
		return;
	kp_annot__free(t->an->a);
	kp_srclines__free(t->an->src);
	free(t->an->vis);
	free(t->an);
	t->an = NULL;
}

/* ---- drawing ---- */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "??";
}

/* text with its tabs as spaces to the next multiple of 8 columns. */
static const char *untab(const char *text, char *buf, size_t len)
{
	size_t n = 0;

	for (; *text && n + 1 < len; text++) {
		if (*text != '\t') {
			buf[n++] = *text;
			continue;
		}
		do
			buf[n++] = ' ';
		while (n % 8 && n + 1 < len);
	}
	buf[n] = 0;
	return buf;
}

static double pct(double n, double total)
{
	return total > 0 ? 100.0 * n / total : 0;
}

static void draw_row(struct kp_tui *t, const struct kp_annot_row *r, int y,
		     int cols, int selected)
{
	const struct kp_annot *a = t->an->a;
	struct kp_line *l = t->line;
	double p = pct(r->self, a->total);
	enum kp_role base = selected ? KP_ROLE_SELECTED : KP_ROLE_DEFAULT;
	enum kp_role hot = selected ? base : p >= 5 ? KP_ROLE_WARN : p > 0 ? KP_ROLE_VALUE
								 : KP_ROLE_DIM;
	char buf[64];
	const char *text;

	kp_line__reset(l, cols, base);
	buf[0] = 0;
	if (r->samples || r->self > 0)
		snprintf(buf, sizeof(buf), "%.2f", p);
	kp_line__field(l, hot, buf, 7, 1);
	if (a->base_total > 0) {
		buf[0] = 0;
		if (r->base_self > 0)
			snprintf(buf, sizeof(buf), "%.2f", pct(r->base_self, a->base_total));
		kp_line__field(l, selected ? base : KP_ROLE_DIM, buf, 7, 1);
	}
	kp_line__put(l, base, "  ", -1);
	switch (r->kind) {
	case KP_ANNOT_SOURCE:
		kp_line__putf(l, selected ? base : KP_ROLE_LABEL, "%s:%u",
			      r->file ? base_name(r->file) : "??", r->line);
		if (r->inlined)
			kp_line__putf(l, selected ? base : KP_ROLE_DIM, " [inlined %s]", r->inlined);
		text = r->file ? kp_srclines__get(t->an->src, r->file, r->line) : NULL;
		if (text) {
			char tb[512];

			kp_line__put(l, base, "  ", -1);
			kp_line__put(l, selected ? base : KP_ROLE_LABEL,
				     untab(text, tb, sizeof(tb)), -1);
		}
		break;
	case KP_ANNOT_INSN:
		kp_line__putf(l, selected ? base : KP_ROLE_DIM, "  %12llx:  ",
			      (unsigned long long)r->addr);
		kp_line__put(l, base, r->text ? r->text : "", -1);
		if (r->type == KP_INSN_T_CALL || r->type == KP_INSN_T_JUMP)
			kp_line__put(l, selected ? base : KP_ROLE_DIM,
				     r->target ? "  (Enter: follow)" : "", -1);
		break;
	case KP_ANNOT_ADDR:
		kp_line__putf(l, base, "  +0x%llx", (unsigned long long)r->off);
		break;
	}
	kp_line__flush(l, y);
}

void kp_annot_ui__draw(struct kp_tui *t)
{
	struct kp_annot_ui *u = t->an;
	int rows = kp_crt__rows(t->crt), cols = kp_crt__cols(t->crt), body = rows - 3;
	static const char *const modes[] = { "source and instructions", "source only",
					     "instructions only" };
	const struct kp_annot *a = u->a;
	int y = 1;

	kp_line__reset(t->line, cols, KP_ROLE_TITLE);
	kp_line__putf(t->line, KP_ROLE_TITLE, "Annotate %s (%s): %llu samples, %s%s",
		      a->name ? a->name : "?", a->module ? a->module : "?",
		      (unsigned long long)a->samples, modes[u->mode],
		      t->sampling ? ", live" : "");
	kp_line__flush(t->line, 0);
	if (a->why || a->elsewhere > 0) {
		kp_line__reset(t->line, cols, KP_ROLE_DEFAULT);
		if (a->why)
			kp_line__putf(t->line, KP_ROLE_WARN, "no disassembly: %s", a->why);
		else
			kp_line__putf(t->line, KP_ROLE_DIM, "%.2f%% at no instruction shown "
				      "(folded, or outside this code)", pct(a->elsewhere, a->total));
		kp_line__flush(t->line, y++);
		body--;
	}
	u->rows = body > 0 ? body : 1;
	if (u->sel < u->top)
		u->top = u->sel;
	if (u->sel >= u->top + (size_t)u->rows)
		u->top = u->sel - (size_t)u->rows + 1;
	for (int i = 0; i < body; i++) {
		size_t k = u->top + (size_t)i;

		if (k < u->nr_vis) {
			draw_row(t, &a->rows[u->vis[k]], y + i, cols, k == u->sel);
		} else {
			kp_line__reset(t->line, cols, KP_ROLE_DEFAULT);
			kp_line__flush(t->line, y + i);
		}
	}
	if (t->msg[0] && kp_tui__now_ns() < t->msg_until_ns) {
		kp_status__draw(t, rows - 2);
	} else {
		kp_line__reset(t->line, cols, KP_ROLE_DEFAULT);
		kp_line__flush(t->line, rows - 2);
	}
	kp_line__reset(t->line, cols, KP_ROLE_BAR);
	kp_line__put(t->line, KP_ROLE_BAR, "n/Tab N/S-Tab next/prev hot  s source/instr/both  "
		     "Enter follow jump/call  Esc back  h help", -1);
	kp_line__flush(t->line, rows - 1);
}

/* ---- keys ---- */

static enum kp_act next_hot(struct kp_annot_ui *u, int dir)
{
	const struct kp_annot *a = u->a;

	for (size_t s = 1; s <= u->nr_vis; s++) {
		size_t k = (u->sel + (dir > 0 ? s : u->nr_vis - s)) % u->nr_vis;
		const struct kp_annot_row *r = &a->rows[u->vis[k]];

		if (r->kind != KP_ANNOT_SOURCE && pct(r->self, a->total) >= HOT_PCT) {
			u->sel = k;
			return KP_ACT_REDRAW;
		}
		if (u->mode == MODE_SOURCE && pct(r->self, a->total) >= HOT_PCT) {
			u->sel = k;
			return KP_ACT_REDRAW;
		}
	}
	return KP_ACT_NONE;
}

static enum kp_act follow(struct kp_tui *t)
{
	struct kp_annot_ui *u = t->an;
	const struct kp_annot_row *r;
	struct kp_annot *a = NULL;
	int rc;

	if (u->sel >= u->nr_vis)
		return KP_ACT_NONE;
	r = &u->a->rows[u->vis[u->sel]];
	if (r->kind != KP_ANNOT_INSN || !r->target)
		return KP_ACT_NONE;
	if (r->target >= u->a->vaddr && r->target - u->a->vaddr < u->a->len) {
		for (size_t k = 0; k < u->nr_vis; k++)	/* a jump inside */
			if (u->a->rows[u->vis[k]].kind == KP_ANNOT_INSN &&
			    u->a->rows[u->vis[k]].addr == r->target) {
				u->sel = k;
				return KP_ACT_REDRAW;
			}
		return KP_ACT_NONE;
	}
	rc = kp_model__annotate_addr(t->cfg.model, u->a, r->target, &a);
	if (rc) {
		kp_tui__message(t, 1, "cannot annotate the code at %llx: %s",
				(unsigned long long)r->target, kp_strerror(rc));
		return KP_ACT_REDRAW;
	}
	if (u->nr_back < KP_ANNOT_BACK)
		u->back[u->nr_back++] = u->a->fn;
	rc = take(t, a, 0);
	if (rc)
		kp_tui__message(t, 1, "annotate: %s", kp_strerror(rc));
	return KP_ACT_REDRAW;
}

static enum kp_act back(struct kp_tui *t)
{
	struct kp_annot_ui *u = t->an;

	while (u->nr_back) {
		if (open_fn(t, u->back[--u->nr_back]) == 0)
			return KP_ACT_REDRAW;
	}
	t->screen = KP_SCREEN_TABLE;
	return KP_ACT_REVIEW;
}

static enum kp_act move_sel(struct kp_annot_ui *u, int key)
{
	size_t page = u->rows > 1 ? (size_t)u->rows - 1 : 1, last = u->nr_vis ? u->nr_vis - 1 : 0;

	switch (key) {
	case KP_KEY(KEY_UP): u->sel = u->sel ? u->sel - 1 : 0; break;
	case KP_KEY(KEY_DOWN): u->sel = u->sel < last ? u->sel + 1 : last; break;
	case KP_KEY(KEY_PPAGE): u->sel = u->sel > page ? u->sel - page : 0; break;
	case KP_KEY(KEY_NPAGE): u->sel = u->sel + page < last ? u->sel + page : last; break;
	case KP_KEY(KEY_HOME): u->sel = 0; break;
	case KP_KEY(KEY_END): u->sel = last; break;
	default: return KP_ACT_NONE;
	}
	return KP_ACT_REDRAW;
}

enum kp_act kp_annot_ui__key(struct kp_tui *t, int key)
{
	struct kp_annot_ui *u = t->an;
	enum kp_act a;
	size_t row;

	if ((a = move_sel(u, key)) != KP_ACT_NONE)
		return a;
	switch (key) {
	case 'n': case '\t':
		return next_hot(u, 1);
	case 'N': case KP_KEY(KEY_BTAB):
		return next_hot(u, -1);
	case 's':
		row = u->sel < u->nr_vis ? u->vis[u->sel] : 0;
		u->mode = (u->mode + 1) % MODE_MAX;
		if (make_vis(u))
			kp_tui__message(t, 1, "annotate: out of memory");
		select_row(u, row);
		return KP_ACT_REDRAW;
	case '\r': case '\n': case KP_KEY(KEY_ENTER):
		return follow(t);
	case KP_ESC: case KP_KEY(KEY_BACKSPACE): case 127: case 8: case KP_KEY(KEY_LEFT):
		return back(t);
	case 'h': case '?': case KP_KEY(KEY_F(1)):
		t->screen = KP_SCREEN_HELP;
		t->help_back = KP_SCREEN_ANNOTATE;
		t->help_top = 0;
		return KP_ACT_REDRAW;
	case 'q': case KP_KEY(KEY_F(10)):
		return KP_ACT_QUIT;
	case ' ': case KP_CTRL('r'):
		return KP_ACT_REFRESH;
	}
	return KP_ACT_NONE;
}
