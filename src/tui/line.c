// SPDX-License-Identifier: GPL-2.0-only
/* line.c — a screen line built in a buffer, flushed in one call. */
#include "tui/line.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <curses.h>

struct kp_line {
	struct kp_crt *crt;
	wchar_t *wc;		/* one character per entry */
	unsigned char *role;
	unsigned char *w;	/* its display width, 1 or 2 */
	cchar_t *cells;
	int n, col, width, cap;
	enum kp_role fill;
};

struct kp_line *kp_line__new(struct kp_crt *crt)
{
	struct kp_line *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->crt = crt;
	return l;
}

void kp_line__free(struct kp_line *l)
{
	if (!l)
		return;
	free(l->wc);
	free(l->role);
	free(l->w);
	free(l->cells);
	free(l);
}

static int grow(struct kp_line *l, int cap)
{
	wchar_t *wc;
	unsigned char *role, *w;
	cchar_t *cells;

	if (cap <= l->cap)
		return 0;
	wc = realloc(l->wc, (size_t)cap * sizeof(*wc));
	if (wc)
		l->wc = wc;
	role = realloc(l->role, (size_t)cap);
	if (role)
		l->role = role;
	w = realloc(l->w, (size_t)cap);
	if (w)
		l->w = w;
	cells = realloc(l->cells, (size_t)cap * sizeof(*cells));
	if (cells)
		l->cells = cells;
	if (!wc || !role || !w || !cells)
		return -ENOMEM;
	l->cap = cap;
	return 0;
}

int kp_line__reset(struct kp_line *l, int width, enum kp_role fill)
{
	if (width < 1)
		width = 1;
	if (grow(l, width + 1) < 0)
		return -ENOMEM;
	l->n = l->col = 0;
	l->width = width;
	l->fill = fill;
	return 0;
}

int kp_line__col(const struct kp_line *l) { return l->col; }

static void add(struct kp_line *l, enum kp_role r, wchar_t wc, int w)
{
	l->wc[l->n] = wc;
	l->role[l->n] = (unsigned char)r;
	l->w[l->n] = (unsigned char)w;
	l->n++;
	l->col += w;
}

/* Next printable character of s and its width; returns bytes used. */
static size_t next_char(const char *s, mbstate_t *st, wchar_t *wc, int *w)
{
	size_t k = mbrtowc(wc, s, MB_CUR_MAX, st);

	if (k == (size_t)-1 || k == (size_t)-2) {
		memset(st, 0, sizeof(*st));
		*wc = L'?';
		*w = 1;
		return 1;
	}
	*w = wcwidth(*wc);
	if (*w < 0 || *wc < L' ') {
		*wc = L'?';
		*w = 1;
	}
	return k ? k : 1;
}

int kp_line__put(struct kp_line *l, enum kp_role r, const char *s, int maxw)
{
	int limit = l->width, start = l->col;
	mbstate_t st;

	if (maxw >= 0 && l->col + maxw < limit)
		limit = l->col + maxw;
	memset(&st, 0, sizeof(st));
	while (s && *s) {
		wchar_t wc;
		int w;
		size_t k = next_char(s, &st, &wc, &w);

		if (w == 0) {		/* combining marks: not drawn */
			s += k;
			continue;
		}
		if (l->col + w > limit)
			break;
		add(l, r, wc, w);
		s += k;
	}
	return l->col - start;
}

int kp_line__putf(struct kp_line *l, enum kp_role r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return kp_line__put(l, r, buf, -1);
}

int kp_text_width(const char *s)
{
	mbstate_t st;
	int cols = 0;

	memset(&st, 0, sizeof(st));
	while (s && *s) {
		wchar_t wc;
		int w;

		s += next_char(s, &st, &wc, &w);
		cols += w;
	}
	return cols;
}

void kp_line__putc(struct kp_line *l, enum kp_role r, wchar_t wc)
{
	if (l->col < l->width)
		add(l, r, wc, 1);
}

void kp_line__pad(struct kp_line *l, enum kp_role r, int col)
{
	if (col > l->width)
		col = l->width;
	while (l->col < col)
		add(l, r, L' ', 1);
}

void kp_line__field(struct kp_line *l, enum kp_role r, const char *s, int w,
		    int right)
{
	int end = l->col + w, tw = kp_text_width(s);

	if (w <= 0)
		return;
	if (tw <= w) {
		if (right)
			kp_line__pad(l, r, end - tw);
		kp_line__put(l, r, s, w);
		kp_line__pad(l, r, end);
		return;
	}
	kp_line__put(l, r, s, w - 1);
	if (l->col < l->width)
		add(l, KP_ROLE_DIM, kp_crt__utf8(l->crt) ? L'\u2026' : L'~', 1);
	kp_line__pad(l, r, end);
}

/* FNV-1a over the characters and roles: what the row shows. */
static uint64_t line_hash(const struct kp_line *l)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)l->n;

	for (int i = 0; i < l->n; i++) {
		h = (h ^ (uint64_t)(uint32_t)l->wc[i]) * 1099511628211ull;
		h = (h ^ l->role[i]) * 1099511628211ull;
	}
	return h ? h : 1;
}

void kp_line__flush(struct kp_line *l, int y)
{
	kp_line__pad(l, l->fill, l->width);
	/* an unchanged row (most of them, refresh after refresh) is left as
	 * it is: converting and comparing its cells is most of a frame */
	if (kp_crt__row_same(l->crt, y, line_hash(l)))
		return;
	for (int i = 0; i < l->n; i++) {
		wchar_t s[2] = { l->wc[i], L'\0' };
		unsigned attrs;
		short pair;

		kp_crt__role(l->crt, (enum kp_role)l->role[i], &attrs, &pair);
		setcchar(&l->cells[i], s, (attr_t)attrs, pair, NULL);
	}
	mvadd_wchnstr(y, 0, l->cells, l->n);
}
