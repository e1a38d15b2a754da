/* SPDX-License-Identifier: GPL-2.0-only */
/* app.h — the tui object shared by the screens of the live view.
 *
 * Owns: the terminal (crt), the line buffer, the current view snapshot and
 * its options, the filter, the expanded-set of tree rows, the selection,
 * the screen on top (table, help, prompt), the status message and the
 * rate counters of the header. The model, pump and collector are borrowed
 * from kp_tui_config and never freed here.
 *
 * Who calls it: loop.c (kp_tui__run), the screens (header.c, table.c,
 * flame.c, help.c, prompt.c), the key handlers (actions.c, flame-keys.c)
 * and bench/tui-bench.c.
 * Each screen has _draw and _key; key handlers return what must happen
 * next (enum kp_act). Errors: 0 or negative errno with t->err filled.
 * Not thread-safe: one thread owns the tui.
 */
#ifndef KP_TUI_APP_H
#define KP_TUI_APP_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "model/model.h"
#include "tui/crt.h"
#include "tui/expand.h"
#include "tui/flame.h"
#include "tui/line.h"
#include "tui/tui.h"

/* What a key handler asks for next, in increasing order of cost. */
enum kp_act {
	KP_ACT_NONE = 0,	/* nothing changed */
	KP_ACT_REDRAW,		/* draw again from the same view */
	KP_ACT_REVIEW,		/* rebuild the view (sort, filter, expand...) */
	KP_ACT_REFRESH,		/* refresh the model, then rebuild and draw */
	KP_ACT_QUIT,
};

/* Keys: a character, or a curses KEY_* code tagged with KP_KEYCODE. */
#define KP_KEYCODE (1 << 24)
#define KP_KEY(code) (KP_KEYCODE | (code))
#define KP_CTRL(c) ((c) & 0x1f)
#define KP_ESC 27

enum kp_screen { KP_SCREEN_TABLE = 0, KP_SCREEN_HELP, KP_SCREEN_PROMPT,
		 KP_SCREEN_ANNOTATE };
enum kp_prompt_kind { KP_PROMPT_SAVE = 0, KP_PROMPT_SEARCH, KP_PROMPT_FILTER };

#define KP_TUI_TEXT 1024

#define KP_CPU_READINGS_MAX 64
struct kp_cpu_window {		/* kp_cpu_window__push */
	uint64_t ns[KP_CPU_READINGS_MAX];
	double cpu[KP_CPU_READINGS_MAX];
	unsigned n, head;	/* readings kept; the next slot */
};

struct kp_tui {
	struct kp_tui_config cfg;
	struct kp_crt *crt;
	struct kp_line *line;
	struct kp_expand *expand;
	struct kp_view *view;		/* NULL until the first refresh */
	struct kp_view_opts vopts;
	struct kp_filter filter;
	char filter_name[KP_TUI_TEXT];
	char search[KP_TUI_TEXT];
	char callers_name[256];		/* function whose callers are shown */
	enum kp_view_kind prev_kind;	/* to go back from the callers view */
	int expand_first;		/* open the first row of the next view */

	/* selected row, first row shown: below the view's nr_all, and below
	 * its nr_rows once the view is made again (kp_tui__review makes the
	 * rows up to the selection, kp_table__rows_wanted) */
	size_t sel, top;
	uint64_t sel_id;		/* kept across refreshes; 0: not made yet */
	int rows_all;			/* make every row (a search) */
	int table_rows;			/* rows the table shows (last draw) */
	int table_y;			/* screen row of the table's heading (last
					 * draw); the view tabs are the row above */
	int tab_end[KP_VIEW_KIND_MAX];	/* screen column after each view's tab */
	struct kp_flame_ui fl;		/* the flame graph (flame.h) */
	int empty_reads;		/* stdin readable but no key: at EOF? */
	uint64_t start_ms;		/* the loop's start (monotonic): early frames */

	enum kp_screen screen;
	enum kp_screen help_back;	/* the screen the help returns to */
	struct kp_annot_ui *an;		/* the annotate screen (annotate.h) */
	int help_top;
	enum kp_prompt_kind prompt_kind;
	char prompt[KP_TUI_TEXT];	/* UTF-8 text being edited */

	enum kp_time_mode mode;
	/* The sort of each view (trees start by total, the others by self);
	 * a baseline sorts every view by change until it is cleared. */
	enum kp_sort sorts[KP_VIEW_KIND_MAX];
	enum kp_sort sorts_before_baseline[KP_VIEW_KIND_MAX];
	int sampling;			/* 1 while the collector samples */

	/* Rates for the header, computed at each refresh. */
	uint64_t last_samples, last_ns;
	uint64_t py_unknown;		/* Python processes of unknown versions told */
	double sample_rate, cpu_pct;
	uint64_t last_switches;		/* --off-cpu: scheduler switches */
	double switch_rate;
	int off_on;			/* the off-CPU program is attached */
	struct kp_cpu_window cpu;

	char msg[256];
	uint64_t msg_until_ns;
	int msg_warn;
	struct kp_err err;		/* the error that ended the loop */
};

/* kptop's CPU in the header: the whole process's (every thread, as top
 * and /proc/PID/stat count it) over the last KP_CPU_WINDOW_NS exactly,
 * ending at this refresh, from the readings of the last refreshes (the
 * CPU time at the window's start taken between the two readings around
 * it); a reading from one 2 s refresh to the next swung from half to
 * twice the mean, and /proc's 10 ms ticks cannot check a 2 s figure. */
#define KP_CPU_WINDOW_NS (10ull * 1000000000ull)

/* Push a reading (monotonic ns, process CPU seconds); the percent of one
 * CPU over the window, or since the first reading while younger, or over
 * the last interval when that is longer; -1 before there are two. */
double kp_cpu_window__push(struct kp_cpu_window *w, uint64_t now_ns, double cpu_s);

/* Build the tui on a terminal (crt options: NULL = stdin/stdout). */
struct kp_tui *kp_tui__new(const struct kp_tui_config *cfg,
			   const struct kp_crt_opts *crt, struct kp_err *err);
void kp_tui__free(struct kp_tui *t);

/* Refresh the model (time mode), recompute rates, rebuild the view. */
int kp_tui__refresh(struct kp_tui *t);
/* Rebuild the view from the model as it is, keeping the selection. */
int kp_tui__review(struct kp_tui *t);
/* Draw the screen on top and show it. */
void kp_tui__draw(struct kp_tui *t);
/* One key to the screen on top. */
enum kp_act kp_tui__key(struct kp_tui *t, int key);
/* Do what an action asks (review/refresh); returns 0, 1 to quit, or
 * negative errno on a fatal error (t->err filled). */
int kp_tui__apply(struct kp_tui *t, enum kp_act a);

/* A status-line message for a few seconds (warn: highlighted). */
void kp_tui__message(struct kp_tui *t, int warn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The selected row, or NULL in an empty view. */
const struct kp_row *kp_tui__selected(const struct kp_tui *t);
/* The settings of the view as kptoprc keeps them (rc.h), and back;
 * apply warns in the status line when the file is bad. */
struct kp_rc;
void kp_tui__settings(const struct kp_tui *t, struct kp_rc *rc);
void kp_tui__load_settings(struct kp_tui *t);
/* Apply t->filter to the model (after any change to it). */
int kp_tui__set_filter(struct kp_tui *t);
uint64_t kp_tui__now_ns(void);

/* Screens. Each draws rows [y, y + h) or the whole screen. */
int kp_header__draw(struct kp_tui *t, int y);	/* returns lines used */
void kp_status__draw(struct kp_tui *t, int y);
void kp_table__draw(struct kp_tui *t, int y, int h);
enum kp_act kp_table__key(struct kp_tui *t, int key);
void kp_table__select(struct kp_tui *t, size_t i);
/* The sort the heading's column at screen column x stands for (as the
 * last draw laid it out), or -1 for a column that sorts nothing. */
int kp_table__sort_at(const struct kp_tui *t, int x);
/* A click, double-click or wheel turn on the screen (mouse.c). */
enum kp_act kp_mouse__act(struct kp_tui *t, const struct kp_mouse *m);
/* The view's max_rows: 0 (all) but for the flat view, where the rows up
 * to twice the selection or the screen's end (at least 2048) are made. */
size_t kp_table__rows_wanted(const struct kp_tui *t);
/* The flame graph (flame.c, flame-keys.c): its view options (zoom,
 * the narrowest box for this screen), the matches of the search after a
 * new view (0 or -ENOMEM), the screen, its keys (1 with *act set when
 * the key is the flame graph's; others go to the key table), a new
 * search's text (from the prompt) and a click at a screen cell. */
void kp_flame__opts(const struct kp_tui *t, struct kp_view_opts *o);
int kp_flame__reviewed(struct kp_tui *t);
void kp_flame__draw(struct kp_tui *t, int y, int h);
int kp_flame__key(struct kp_tui *t, int key, enum kp_act *act);
enum kp_act kp_flame__search(struct kp_tui *t, const char *text);
enum kp_act kp_flame__click(struct kp_tui *t, int x, int y, int twice);
void kp_help__draw(struct kp_tui *t);
enum kp_act kp_help__key(struct kp_tui *t, int key);
void kp_prompt__open(struct kp_tui *t, enum kp_prompt_kind kind,
		     const char *initial);
void kp_prompt__draw(struct kp_tui *t, int y);
enum kp_act kp_prompt__key(struct kp_tui *t, int key);

/* The key table (actions.c): dispatch, and the lines of the help screen. */
enum kp_act kp_actions__dispatch(struct kp_tui *t, int key);
/* Help entry i: returns 0 and sets *keys and *text, or -1 past the end. */
int kp_actions__help(int i, const char **keys, const char **text);
/* What the prompt's Enter does. */
enum kp_act kp_actions__prompt_done(struct kp_tui *t, enum kp_prompt_kind kind,
				    const char *text);
/* Short names of views and sorts for the header and status line. */
const char *kp_view_name(enum kp_view_kind k);
const char *kp_sort_name(enum kp_sort s);

#endif /* KP_TUI_APP_H */
