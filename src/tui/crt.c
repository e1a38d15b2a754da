// SPDX-License-Identifier: GPL-2.0-only
/* crt.c — ncursesw setup and teardown and the colour table (see crt.h). */
#include "tui/crt.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <curses.h>

struct kp_crt {
	SCREEN *screen;
	FILE *out, *in;
	int color, utf8;
	unsigned attrs[KP_ROLE_MAX];
	short pair[KP_ROLE_MAX];
	uint64_t *row_hash;	/* per screen row: what it last received; 0: unknown */
	int nr_rows;
	int hash_lines, hash_cols;	/* the screen size row_hash is for */
};

struct role_style {
	short fg, bg;		/* -1: the terminal's default */
	unsigned color_attrs;	/* with colours */
	unsigned mono_attrs;	/* NO_COLOR or no colours */
	short fg256, bg256;	/* with 256 colours (0 and 0: fg, bg) */
};

/* The colour table, like htop's CRT colour scheme: one entry per role. */
static const struct role_style styles[KP_ROLE_MAX] = {
	[KP_ROLE_DEFAULT]  = { -1, -1, 0, 0 },
	[KP_ROLE_LABEL]    = { COLOR_CYAN, -1, 0, 0 },
	[KP_ROLE_VALUE]    = { -1, -1, A_BOLD, A_BOLD },
	[KP_ROLE_WARN]     = { COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
	[KP_ROLE_TITLE]    = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE },
	[KP_ROLE_SELECTED] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE | A_BOLD },
	[KP_ROLE_KERNEL]   = { COLOR_MAGENTA, -1, 0, 0 },
	[KP_ROLE_DIM]      = { COLOR_BLUE, -1, A_BOLD, A_DIM },
	[KP_ROLE_KEY]      = { -1, -1, A_BOLD, A_BOLD },
	[KP_ROLE_BAR]      = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[KP_ROLE_UP]       = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[KP_ROLE_DOWN]     = { COLOR_GREEN, -1, 0, 0 },
	[KP_ROLE_TAB]      = { -1, -1, 0, 0 },
	[KP_ROLE_TAB_ON]   = { COLOR_BLACK, COLOR_GREEN, A_BOLD, A_REVERSE | A_BOLD },
	[KP_ROLE_MESSAGE]  = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	/* flame boxes: flamegraph.pl's warm user code, orange kernel, green
	 * JIT, blue Python, grey unknown; purple search matches */
	[KP_ROLE_FL_USER]        = { COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE, 16, 221 },
	[KP_ROLE_FL_KERNEL]      = { COLOR_WHITE, COLOR_RED, 0, A_REVERSE, 16, 209 },
	[KP_ROLE_FL_JIT]         = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE, 16, 114 },
	[KP_ROLE_FL_PYTHON]      = { COLOR_WHITE, COLOR_BLUE, 0, A_REVERSE, 16, 75 },
	[KP_ROLE_FL_UNKNOWN]     = { COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE, 16, 250 },
	[KP_ROLE_FL_PROCESS]     = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE, 16, 152 },
	[KP_ROLE_FL_GROW]        = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD, 231, 160 },
	[KP_ROLE_FL_GROW_SOME]   = { COLOR_WHITE, COLOR_RED, 0, A_REVERSE, 16, 217 },
	[KP_ROLE_FL_SHRINK]      = { COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD, 231, 26 },
	[KP_ROLE_FL_SHRINK_SOME] = { COLOR_WHITE, COLOR_BLUE, 0, A_REVERSE, 16, 153 },
	[KP_ROLE_FL_SAME]        = { COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE, 16, 253 },
	[KP_ROLE_FL_MATCH]       = { COLOR_WHITE, COLOR_MAGENTA, A_BOLD, A_REVERSE | A_UNDERLINE, 231, 201 },
	[KP_ROLE_FL_SEL]         = { COLOR_WHITE, COLOR_BLACK, A_BOLD, A_BOLD | A_UNDERLINE, 231, 236 },
	/* KP_ROLE_FL_HALF..: made from the above by setup_roles */
};

enum kp_role kp_crt__half(enum kp_role r)
{
	if (r < KP_ROLE_FL_USER || r >= KP_ROLE_FL_HALF)
		return r;
	return (enum kp_role)(KP_ROLE_FL_HALF + (r - KP_ROLE_FL_USER));
}

/* A flame box's half cell: its colour as the foreground of a block
 * character on the terminal's background; plain without colours (the
 * block drawn in the foreground looks like the box's reverse video). */
static struct role_style half_style(enum kp_role r)
{
	const struct role_style *box = &styles[KP_ROLE_FL_USER + (r - KP_ROLE_FL_HALF)];

	return (struct role_style){ box->bg, -1, 0, 0, box->bg256, 0 };
}

static void setup_roles(struct kp_crt *c)
{
	int wide = c->color && COLORS >= 256;

	for (int r = 0; r < KP_ROLE_MAX; r++) {
		struct role_style s = r >= KP_ROLE_FL_HALF ? half_style((enum kp_role)r)
							    : styles[r];
		short fg = wide && (s.fg256 || s.bg256) ? s.fg256 : s.fg;
		short bg = wide && s.bg256 ? s.bg256 : s.bg;

		c->pair[r] = 0;
		c->attrs[r] = c->color ? s.color_attrs : s.mono_attrs;
		if (!c->color || (fg == -1 && bg == -1))
			continue;
		if (init_pair((short)r, fg, bg) == OK)
			c->pair[r] = (short)r;
	}
}

static int want_color(const struct kp_crt_opts *o)
{
	const char *nc = getenv("NO_COLOR");

	if (o->no_color || (nc && *nc))
		return 0;
	if (!has_colors() || start_color() == ERR)
		return 0;
	if (use_default_colors() == ERR)
		return 0;
	return COLOR_PAIRS > KP_ROLE_MAX;
}

struct kp_crt *kp_crt__new(const struct kp_crt_opts *o, struct kp_err *err)
{
	struct kp_crt_opts none = { 0 };
	struct kp_crt *c;
	const char *cs;

	if (!o)
		o = &none;
	c = calloc(1, sizeof(*c));
	if (!c) {
		kp_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	/* Wide characters need the user's character set before newterm();
	 * only LC_CTYPE, so numbers keep their '.' whatever the locale. */
	setlocale(LC_CTYPE, "");
	c->out = o->out ? o->out : stdout;
	c->in = o->in ? o->in : stdin;
	c->screen = newterm(o->term, c->out, c->in);
	if (!c->screen) {
		kp_err_set(err, -ENOTTY, "cannot open the terminal (TERM=%s)",
			   o->term ? o->term : getenv("TERM") ? getenv("TERM") : "unset");
		free(c);
		errno = ENOTTY;
		return NULL;
	}
	set_term(c->screen);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	/* No typeahead check while a frame is written (ncurses polls the
	 * input every few lines): a key waits for the frame, a few ms. */
	typeahead(-1);
	/* A screen fresh from newterm() is in ncurses' "initial" state, in
	 * which every cursor move flushes the output: a frame went out in
	 * about 130 write(2)s of a few bytes. Leaving curses mode and
	 * coming back puts it in the running state: one or two writes. */
	endwin();
	doupdate();
	set_escdelay(25);
	curs_set(0);
	c->color = want_color(o);
	setup_roles(c);
	cs = nl_langinfo(CODESET);
	c->utf8 = cs && strcmp(cs, "UTF-8") == 0;
	return c;
}

void kp_crt__free(struct kp_crt *c)
{
	if (!c)
		return;
	set_term(c->screen);
	curs_set(1);
	endwin();
	fflush(c->out);
	delscreen(c->screen);
	free(c->row_hash);
	free(c);
}

static void rows_forget(struct kp_crt *c)
{
	if (c->row_hash)
		memset(c->row_hash, 0, (size_t)c->nr_rows * sizeof(*c->row_hash));
}

int kp_crt__row_same(struct kp_crt *c, int y, uint64_t hash)
{
	if (y < 0 || y >= LINES)
		return 0;
	if (LINES != c->hash_lines || COLS != c->hash_cols) {
		rows_forget(c);	/* resized (rows cut or blanked), by us or by curses */
		c->hash_lines = LINES;
		c->hash_cols = COLS;
	}
	if (y >= c->nr_rows) {
		uint64_t *n = realloc(c->row_hash, (size_t)LINES * sizeof(*n));

		if (!n)
			return 0;	/* no memory: every row is drawn */
		memset(n + c->nr_rows, 0, (size_t)(LINES - c->nr_rows) * sizeof(*n));
		c->row_hash = n;
		c->nr_rows = LINES;
	}
	if (hash && c->row_hash[y] == hash)
		return 1;
	c->row_hash[y] = hash;
	return 0;
}

int kp_crt__rows(const struct kp_crt *c) { (void)c; return LINES; }
int kp_crt__cols(const struct kp_crt *c) { (void)c; return COLS; }
int kp_crt__utf8(const struct kp_crt *c) { return c->utf8; }
int kp_crt__color(const struct kp_crt *c) { return c->color; }

void kp_crt__role(const struct kp_crt *c, enum kp_role r,
		  unsigned *attrs, short *pair)
{
	if ((unsigned)r >= KP_ROLE_MAX)
		r = KP_ROLE_DEFAULT;
	*attrs = c->attrs[r];
	*pair = c->pair[r];
}

int kp_crt__check_resize(struct kp_crt *c)
{
	struct winsize ws;

	if (ioctl(fileno(c->out), TIOCGWINSZ, &ws) < 0 || !ws.ws_row || !ws.ws_col)
		return 0;
	if (ws.ws_row == LINES && ws.ws_col == COLS)
		return 0;
	resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);	/* kp_crt__row_same sees the new size */
	return 1;
}

int kp_crt__key(struct kp_crt *c, wint_t *ch)
{
	(void)c;
	return get_wch(ch);
}

#define KP_MOUSE_MASK (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | \
		       BUTTON4_PRESSED | BUTTON5_PRESSED)

int kp_crt__mouse(struct kp_crt *c, int on)
{
	(void)c;
	return mousemask(on ? KP_MOUSE_MASK : 0, NULL) != 0;
}

void kp_crt__mouse_event(struct kp_crt *c, struct kp_mouse *m)
{
	MEVENT ev;

	(void)c;
	memset(m, 0, sizeof(*m));
	if (getmouse(&ev) != OK)
		return;
	m->x = ev.x;
	m->y = ev.y;
	if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
		m->kind = KP_MOUSE_DOUBLE;
	else if (ev.bstate & BUTTON1_CLICKED)
		m->kind = KP_MOUSE_CLICK;
	else if (ev.bstate & BUTTON4_PRESSED)
		m->kind = KP_MOUSE_WHEEL_UP;
	else if (ev.bstate & BUTTON5_PRESSED)
		m->kind = KP_MOUSE_WHEEL_DOWN;
}

void kp_crt__suspend(struct kp_crt *c)
{
	curs_set(1);
	endwin();
	fflush(c->out);
	raise(SIGSTOP);		/* here until the shell continues us */
	curs_set(0);
	clearok(curscr, TRUE);	/* the next doupdate repaints it all */
	kp_crt__check_resize(c);
}

void kp_crt__show(struct kp_crt *c)
{
	(void)c;
	wnoutrefresh(stdscr);
	doupdate();
}

void kp_crt__repaint(struct kp_crt *c)
{
	(void)c;
	clearok(curscr, TRUE);
}
