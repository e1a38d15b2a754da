/* SPDX-License-Identifier: GPL-2.0-only */
/* tui.h — the live view: an ncurses top for CPU profiles.
 *
 * Owns: the terminal (ncursesw setup and teardown, colours, resize), the
 * screens (main table, tree, help, prompts) and the keys.
 *
 * Who calls it: main() in src/main/kptop.c, after it has built the collector
 * (NULL with -i), the model and the pump. kp_tui__run() returns when the
 * user quits or a SIGINT/SIGTERM arrives; the terminal is always restored
 * before it returns, on every path. It never calls exit().
 *
 * Call it from the process's main thread: while it runs, SIGINT, SIGTERM,
 * SIGHUP, SIGWINCH and SIGTSTP (Ctrl-Z) are blocked there and read from a
 * signalfd; one landing on another thread (the collector's) is forwarded
 * to the main thread. The previous handlers and mask are restored on
 * return. It sets LC_CTYPE from the environment (UTF-8 names); numbers
 * stay in "C".
 * The collector, model and pump stay the caller's; the view sets the
 * model's filter (kp_model__set_filter) and time mode as keys ask.
 */
#ifndef KP_TUI_H
#define KP_TUI_H

#include "collect/collect.h"
#include "model/model.h"
#include "pump/pump.h"
#include "util/kp_err.h"

struct kp_symbols;

struct kp_tui_config {
	struct kp_collector *collector;	/* NULL when reading a file */
	struct kp_model *model;
	struct kp_pump *pump;
	const char *input_path;		/* -i FILE, or NULL */
	unsigned delay_ms;		/* -d, refresh interval */
	uint32_t freq_hz;
	unsigned window_s;		/* window length for the window mode */
	const char *save_default;	/* default file name offered by `w` */
	int show_idle;			/* --idle: start with idle samples shown */
	int no_mouse;			/* --no-mouse: leave the mouse to the terminal */
	int delay_set;			/* -d given: it wins over the settings file */
	struct kp_symbols *symbols;	/* for the header's JIT map counters; may be NULL */
	const char *baseline_path;	/* --baseline: the model has its baseline */
	struct kp_python *python;	/* P: Python frames or native stacks; may be NULL */
};

/* Whether the terminal named term (NULL: $TERM) can show the live view:
 * known to terminfo, with cursor addressing (cup) and a way to clear the
 * screen (clear). Reads terminfo only: nothing is written to the terminal.
 * Returns 0, or KP_EUSAGE with one line in err that names --batch. Call it
 * before anything is loaded (main does, before BPF). */
int kp_tui__check_term(const char *term, struct kp_err *err);

/* Run the live view. Returns 0 on a normal quit, or -errno with a message
 * in err (the terminal already restored). */
int kp_tui__run(const struct kp_tui_config *cfg, struct kp_err *err);

#endif /* KP_TUI_H */
