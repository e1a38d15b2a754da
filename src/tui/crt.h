/* SPDX-License-Identifier: GPL-2.0-only */
/* crt.h — the terminal: ncursesw setup and teardown, the colour table
 * indexed by role, the screen size and resizes.
 *
 * Owns: the ncurses SCREEN (newterm on the given streams), the colour
 * pairs, the key reading mode. kp_crt__free() ends curses (endwin) and
 * must run before anything is printed to the terminal again; it is safe
 * on every path, and a no-op for NULL.
 *
 * kp_crt__new() sets LC_CTYPE from the environment (setlocale) so that
 * UTF-8 names and keys work; numbers keep the C locale.
 *
 * Who calls it: the tui object (app.c) and the line writer (line.c).
 * Roles, not colours, are what callers ask for: with NO_COLOR set or a
 * terminal without colours every role maps to plain attributes (bold,
 * reverse). Errors: NULL with errno set and a message in kp_err.
 * Not thread-safe (curses is not). Only src/tui/ includes curses.
 */
#ifndef KP_TUI_CRT_H
#define KP_TUI_CRT_H

#include <stdint.h>
#include <stdio.h>
#include <wchar.h>

#include "util/kp_err.h"

enum kp_role {
	KP_ROLE_DEFAULT = 0,
	KP_ROLE_LABEL,		/* header labels */
	KP_ROLE_VALUE,		/* header values */
	KP_ROLE_WARN,		/* non-zero drop counters, errors */
	KP_ROLE_TITLE,		/* the table heading */
	KP_ROLE_SELECTED,	/* the selected row */
	KP_ROLE_KERNEL,		/* kernel functions */
	KP_ROLE_DIM,		/* modules, secondary columns */
	KP_ROLE_KEY,		/* key names in the status line */
	KP_ROLE_BAR,		/* status line text */
	KP_ROLE_UP,		/* a share that grew (baseline) */
	KP_ROLE_DOWN,		/* a share that shrank (baseline) */
	KP_ROLE_TAB,		/* view names */
	KP_ROLE_TAB_ON,		/* the current view */
	KP_ROLE_MESSAGE,	/* status messages */
	/* Flame graph boxes (src/tui/flame.c): filled with a colour of
	 * their own, in reverse video without colours. */
	KP_ROLE_FL_USER,	/* by kind (enum kp_frame_kind order) */
	KP_ROLE_FL_KERNEL,
	KP_ROLE_FL_JIT,
	KP_ROLE_FL_PYTHON,
	KP_ROLE_FL_UNKNOWN,
	KP_ROLE_FL_PROCESS,
	KP_ROLE_FL_GROW,	/* with a baseline: by the change of share */
	KP_ROLE_FL_GROW_SOME,
	KP_ROLE_FL_SHRINK,
	KP_ROLE_FL_SHRINK_SOME,
	KP_ROLE_FL_SAME,
	KP_ROLE_FL_MATCH,	/* a search match */
	KP_ROLE_FL_SEL,		/* the selected box */
	/* The same, for a half cell (U+258C / U+2590): the box's colour on
	 * the terminal's background (kp_crt__half). */
	KP_ROLE_FL_HALF,
	KP_ROLE_MAX = KP_ROLE_FL_HALF + (KP_ROLE_FL_HALF - KP_ROLE_FL_USER),
};

struct kp_crt_opts {
	FILE *out, *in;		/* NULL: stdout, stdin */
	const char *term;	/* NULL: $TERM */
	int no_color;		/* 1: force plain attributes (NO_COLOR) */
};

struct kp_crt;

struct kp_crt *kp_crt__new(const struct kp_crt_opts *o, struct kp_err *err);
/* endwin() and delete the screen. NULL is a no-op. */
void kp_crt__free(struct kp_crt *c);

int kp_crt__rows(const struct kp_crt *c);
int kp_crt__cols(const struct kp_crt *c);
/* 1 if the locale can show UTF-8 line-drawing and arrow characters. */
int kp_crt__utf8(const struct kp_crt *c);
/* 1 if roles have colours (0: NO_COLOR or a terminal without them). */
int kp_crt__color(const struct kp_crt *c);
/* The half-cell role of a flame box role (KP_ROLE_FL_USER ..
 * KP_ROLE_FL_SEL); any other role is returned as it is. */
enum kp_role kp_crt__half(enum kp_role r);
/* Attributes and colour pair of a role, for setcchar(). */
void kp_crt__role(const struct kp_crt *c, enum kp_role r,
		  unsigned *attrs, short *pair);
/* Ask the terminal for its size and resize curses if it changed (the
 * loop calls it on SIGWINCH and KEY_RESIZE). Returns 1 if it changed. */
int kp_crt__check_resize(struct kp_crt *c);
/* Read one key without waiting: returns KEY_CODE_YES (*ch a KEY_*), OK
 * (*ch a character) or ERR (nothing pending). */
int kp_crt__key(struct kp_crt *c, wint_t *ch);
/* A mouse event, in screen cells from the top left (0, 0). */
enum kp_mouse_kind {
	KP_MOUSE_NONE = 0, KP_MOUSE_CLICK, KP_MOUSE_DOUBLE,
	KP_MOUSE_WHEEL_UP, KP_MOUSE_WHEEL_DOWN,
};
struct kp_mouse {
	enum kp_mouse_kind kind;
	int x, y;
};
/* Ask the terminal for clicks, double-clicks of the first button and the
 * wheel (curses mousemask), or for none (on 0): the terminal's own
 * selection then works. Returns 1 if the terminal reports the mouse. */
int kp_crt__mouse(struct kp_crt *c, int on);
/* After a KEY_MOUSE key: the event (getmouse); kind NONE for any other
 * button or state. */
void kp_crt__mouse_event(struct kp_crt *c, struct kp_mouse *m);
/* Ctrl-Z: restore the terminal, stop the process (SIGSTOP) and, once
 * continued, take the terminal again; the caller then redraws. */
void kp_crt__suspend(struct kp_crt *c);
/* Show the screen as drawn (doupdate). */
void kp_crt__show(struct kp_crt *c);
/* Whether screen row y already holds the line whose content hash is
 * hash (then its drawing is skipped: curses is not touched, and the row
 * costs nothing at the next doupdate); else remember hash for y and
 * return 0. hash 0 never matches. Forgotten when the screen is resized.
 * Every line is drawn through it (line.c), so nothing else writes rows. */
int kp_crt__row_same(struct kp_crt *c, int y, uint64_t hash);
/* Forget what is on the terminal and repaint all of it next time. */
void kp_crt__repaint(struct kp_crt *c);

#endif /* KP_TUI_CRT_H */
