// SPDX-License-Identifier: GPL-2.0-only
/* actions.c — the key table of the main screen: each key runs a small
 * handler that says what must happen next (htop's Action.c). The help
 * screen is drawn from the same table, so every key is listed. */
#include "tui/app.h"

#include <errno.h>
#include <string.h>
#include <curses.h>

#include "collect/collect.h"
#include "pump/pump.h"
#include "pump/python.h"
#include "tui/actions.h"
#include "tui/annotate.h"
#include "tui/rc.h"

typedef enum kp_act (*kp_action_fn)(struct kp_tui *t, int key);

struct kp_action {
	int keys[6];		/* 0-terminated */
	const char *names;	/* as the help screen shows them */
	const char *help;
	kp_action_fn fn;
};

static enum kp_act act_nav(struct kp_tui *t, int key)
{
	return kp_table__key(t, key);
}

static enum kp_act act_annotate(struct kp_tui *t, int key)
{
	return kp_annot_ui__open_selected(t);
}

static enum kp_act act_help(struct kp_tui *t, int key)
{
	t->screen = KP_SCREEN_HELP;
	t->help_back = KP_SCREEN_TABLE;
	t->help_top = 0;
	return KP_ACT_REDRAW;
}

static enum kp_act act_quit(struct kp_tui *t, int key)
{
	return KP_ACT_QUIT;
}

static enum kp_act act_refresh(struct kp_tui *t, int key)
{
	return KP_ACT_REFRESH;
}

static enum kp_act act_sampling(struct kp_tui *t, int key)
{
	int rc;

	if (!kp_act_live(t, "start/stop"))
		return KP_ACT_REDRAW;
	rc = t->sampling ? kp_collector__stop(t->cfg.collector)
			 : kp_collector__start(t->cfg.collector);
	if (rc < 0) {
		kp_tui__message(t, 1, "cannot %s sampling: %s",
				t->sampling ? "stop" : "start", kp_strerror(rc));
		return KP_ACT_REDRAW;
	}
	t->sampling = !t->sampling;
	kp_tui__message(t, 0, "sampling %s", t->sampling ? "started" : "stopped");
	return KP_ACT_REDRAW;
}

static enum kp_act act_flush(struct kp_tui *t, int key)
{
	int rc;

	if (!kp_act_live(t, "flush"))
		return KP_ACT_REDRAW;
	rc = kp_collector__flush(t->cfg.collector);
	if (rc < 0)
		kp_tui__message(t, 1, "flush failed: %s", kp_strerror(rc));
	else
		kp_tui__message(t, 0, "per-CPU buffers flushed");
	return KP_ACT_REFRESH;
}

static enum kp_act act_zero(struct kp_tui *t, int key)
{
	kp_model__zero(t->cfg.model);
	t->last_samples = 0;
	kp_tui__message(t, 0, "counts zeroed");
	return KP_ACT_REVIEW;
}

/* Python processes: their Python frames merged, or the native stacks;
 * the counts start again (stacks seen before keep their form). */
static enum kp_act act_python(struct kp_tui *t, int key)
{
	int raw = !kp_python__raw(t->cfg.python);

	if (!t->cfg.python)
		return KP_ACT_NONE;
	kp_python__set_raw(t->cfg.python, raw);
	kp_model__zero(t->cfg.model);
	t->last_samples = 0;
	kp_tui__message(t, 0, "Python processes: %s (counts zeroed)",
			raw ? "native stacks" : "Python frames");
	return KP_ACT_REVIEW;
}

static enum kp_act act_baseline(struct kp_tui *t, int key)
{
	if (kp_model__has_baseline(t->cfg.model)) {
		kp_model__baseline_clear(t->cfg.model);
		memcpy(t->sorts, t->sorts_before_baseline, sizeof(t->sorts));
		kp_tui__message(t, 0, "baseline cleared");
	} else {
		kp_model__baseline_mark(t->cfg.model);
		memcpy(t->sorts_before_baseline, t->sorts, sizeof(t->sorts));
		for (int k = 0; k < KP_VIEW_KIND_MAX; k++)
			t->sorts[k] = KP_SORT_DELTA;
		kp_tui__message(t, 0, "baseline set: rows show the change since now");
	}
	t->vopts.sort = t->sorts[t->vopts.kind];
	return KP_ACT_REVIEW;
}

static enum kp_act act_mode(struct kp_tui *t, int key)
{
	t->mode = (enum kp_time_mode)((t->mode + 1) % 3);
	kp_model__set_time_mode(t->cfg.model, t->mode, t->cfg.window_s);
	return KP_ACT_REFRESH;
}

/* o: the off-CPU program on or off (attached, detached) while sampling. */
static enum kp_act act_offcpu(struct kp_tui *t, int key)
{
	int rc, on;

	if (!kp_act_live(t, "off-CPU"))
		return KP_ACT_REDRAW;
	on = !t->off_on;
	rc = kp_collector__set_offcpu(t->cfg.collector, on);
	if (rc < 0) {
		kp_tui__message(t, 1, "off-CPU: cannot turn it %s: %s", on ? "on" : "off",
				kp_strerror(rc));
		return KP_ACT_REDRAW;
	}
	t->off_on = on;
	kp_tui__message(t, 0, "off-CPU recording %s%s", on ? "on" : "off",
			on && kp_model__weight(t->cfg.model) == KP_WEIGHT_CPU ?
			" (O: weigh by off-CPU or wall time)" : "");
	return KP_ACT_REFRESH;
}

/* O: weigh by CPU samples, off-CPU time, wall time; the counts start over.
 * Reading a file: its records are not read again, so the weight is the
 * one --weight chose. */
static enum kp_act act_weight(struct kp_tui *t, int key)
{
	enum kp_weight w = (enum kp_weight)((kp_model__weight(t->cfg.model) + 1) %
					    KP_WEIGHT_MAX);

	if (!t->cfg.collector) {
		kp_tui__message(t, 1, "O: reading %s: choose the weight with "
				"kptop -i FILE --weight cpu|off|wall",
				t->cfg.input_path ? t->cfg.input_path : "a file");
		return KP_ACT_REDRAW;
	}
	kp_model__set_weight(t->cfg.model, w);
	kp_model__zero(t->cfg.model);
	t->last_samples = 0;
	kp_tui__message(t, 0, "weight: %s (counts zeroed)%s",
			w == KP_WEIGHT_CPU ? "CPU samples" : w == KP_WEIGHT_OFF ?
			"off-CPU microseconds" : "wall microseconds (CPU + off-CPU)",
			w != KP_WEIGHT_CPU && !t->off_on && t->cfg.collector ?
			"; o: record off-CPU time" : "");
	return KP_ACT_REVIEW;
}

static enum kp_act act_sort(struct kp_tui *t, int key)
{
	int n = kp_model__has_baseline(t->cfg.model) ? 4 : 3, s = (int)t->vopts.sort;

	switch (key) {
	case 'S': s = KP_SORT_SELF; break;
	case 'T': s = KP_SORT_TOTAL; break;
	case 'N': s = KP_SORT_NAME; break;
	case '<': s = (s + n - 1) % n; break;
	default: s = (s + 1) % n; break;
	}
	t->vopts.sort = t->sorts[t->vopts.kind] = (enum kp_sort)s;
	kp_tui__message(t, 0, "sorted by %s", kp_sort_name(t->vopts.sort));
	return KP_ACT_REVIEW;
}

static enum kp_act act_toggle(struct kp_tui *t, int key)
{
	int *flag = key == 'k' ? &t->filter.hide_kernel :
		    key == 'u' ? &t->filter.hide_user : &t->filter.show_idle;
	int rc;

	*flag = !*flag;
	rc = kp_tui__set_filter(t);
	if (rc < 0)
		kp_tui__message(t, 1, "filter: %s", kp_strerror(rc));
	else
		kp_tui__message(t, 0, "%s %s", key == 'k' ? "kernel frames" :
				key == 'u' ? "user frames" : "idle",
				(*flag) ^ (key == 'i') ? "hidden" : "shown");
	return KP_ACT_REVIEW;
}

static enum kp_act act_focus(struct kp_tui *t, int key)
{
	const struct kp_row *r = kp_tui__selected(t);

	if (t->filter.pid) {
		t->filter.pid = 0;
		kp_tui__message(t, 0, "focus cleared");
	} else if (!r || !r->pid) {
		kp_tui__message(t, 1, "p: the selected row has no single process");
		return KP_ACT_REDRAW;
	} else {
		t->filter.pid = r->pid;
		kp_tui__message(t, 0, "focus on pid %u (p or Esc to leave)", r->pid);
	}
	if (kp_tui__set_filter(t) < 0)
		kp_tui__message(t, 1, "cannot set the focus");
	return KP_ACT_REVIEW;
}

static enum kp_act act_escape(struct kp_tui *t, int key)
{
	if (t->filter.pid) {
		t->filter.pid = 0;
		kp_tui__message(t, 0, "focus cleared");
	} else if (t->filter_name[0]) {
		t->filter_name[0] = '\0';
		kp_tui__message(t, 0, "filter cleared");
	} else if (t->vopts.kind == KP_VIEW_BOTTOMUP && t->vopts.root_fn) {
		t->vopts.root_fn = 0;
		t->vopts.kind = t->prev_kind;
		t->vopts.sort = t->sorts[t->vopts.kind];
		return KP_ACT_REVIEW;
	} else {
		return KP_ACT_NONE;
	}
	kp_tui__set_filter(t);
	return KP_ACT_REVIEW;
}

static enum kp_act act_search(struct kp_tui *t, int key)
{
	if (key == 'n' || key == KP_KEY(KEY_F(3))) {
		if (t->search[0])
			return kp_act_find(t, t->search);
		if (key == 'n') {
			kp_tui__message(t, 0, "no search yet: press / first");
			return KP_ACT_REDRAW;
		}
	}
	kp_prompt__open(t, KP_PROMPT_SEARCH, t->search);
	return KP_ACT_REDRAW;
}

static enum kp_act act_filter(struct kp_tui *t, int key)
{
	kp_prompt__open(t, KP_PROMPT_FILTER, t->filter_name);
	return KP_ACT_REDRAW;
}

static enum kp_act act_settings(struct kp_tui *t, int key)
{
	struct kp_err e = { 0 };
	struct kp_rc rc;
	char path[4096];
	int r = kp_rc__path(path, sizeof(path));

	if (r < 0) {
		kp_tui__message(t, 1, "W: neither XDG_CONFIG_HOME nor HOME is set");
		return KP_ACT_REDRAW;
	}
	kp_tui__settings(t, &rc);
	if (kp_rc__write(path, &rc, &e) < 0)
		kp_tui__message(t, 1, "%s", e.msg);
	else
		kp_tui__message(t, 0, "settings saved to %s", path);
	return KP_ACT_REDRAW;
}

static const struct kp_action actions[] = {
	{ { 'h', '?', KP_KEY(KEY_F(1)) }, "h ? F1", "this help", act_help },
	{ { 'q', KP_KEY(KEY_F(10)) }, "q F10", "quit", act_quit },
	{ { 0 }, "Ctrl-C", "quit too (SIGINT, like SIGTERM)", act_quit },
	{ { 0 }, "Ctrl-Z", "suspend; fg brings the view back", act_refresh },
	{ { KP_KEY(KEY_UP), KP_KEY(KEY_DOWN) }, "Up Down", "select a row", act_nav },
	{ { KP_KEY(KEY_PPAGE), KP_KEY(KEY_NPAGE) }, "PgUp PgDn", "a page up / down", act_nav },
	{ { KP_KEY(KEY_HOME), KP_KEY(KEY_END) }, "Home End", "first / last row", act_nav },
	{ { '\t', 'v', KP_KEY(KEY_BTAB) }, "Tab v S-Tab", "next / previous view", kp_act_view },
	{ { '1', '2', '3', '4', '5' }, "1..8", "view: functions tree callers procs threads cgroups modules flame", kp_act_view },
	{ { '6', '7', '8' }, "", NULL, kp_act_view },
	{ { 't', KP_KEY(KEY_F(5)) }, "t F5", "call tree on / off", kp_act_view },
	{ { 'c' }, "c", "callers of the selected function (bottom-up)", kp_act_view },
	{ { 'a' }, "a", "annotate the selected function: its lines and instructions", act_annotate },
	{ { '\r', '\n', KP_KEY(KEY_ENTER) }, "Enter", "tree: expand / collapse; functions: callers; processes: focus", kp_act_enter },
	{ { '+', '=', KP_KEY(KEY_RIGHT) }, "+ Right", "expand the selected tree row", kp_act_expand },
	{ { '-', KP_KEY(KEY_LEFT) }, "- Left", "collapse it (or go to its parent)", kp_act_expand },
	{ { '*' }, "*", "expand / collapse the whole tree", kp_act_expand },
	{ { '>', '.', KP_KEY(KEY_F(6)) }, "< > F6", "sort by the next / previous column", act_sort },
	{ { '<', ',' }, "", NULL, act_sort },
	{ { 'S', 'T', 'N' }, "S T N", "sort by self / total / name", act_sort },
	{ { '/', KP_KEY(KEY_F(3)) }, "/ F3", "search: jump to the next row matching", act_search },
	{ { 'n' }, "n", "next match of the search", act_search },
	{ { '\\', KP_KEY(KEY_F(4)) }, "\\ F4", "filter functions by a name substring", act_filter },
	{ { KP_ESC }, "Esc", "back out of a focus, a filter or the callers view", act_escape },
	{ { 'p' }, "p", "focus on the selected row's process (again: all)", act_focus },
	{ { 'k' }, "k", "hide / show kernel frames", act_toggle },
	{ { 'u' }, "u", "hide / show user frames", act_toggle },
	{ { 'i' }, "i", "show / hide the idle task", act_toggle },
	{ { 's' }, "s", "stop / start sampling", act_sampling },
	{ { 'f' }, "f", "flush the per-CPU buffers now", act_flush },
	{ { 'w' }, "w", "save to a stream file (again: stop saving)", kp_act_save },
	{ { 'z' }, "z", "zero the counts", act_zero },
	{ { 'P' }, "P", "Python: its functions / the native stacks (zeroes the counts)", act_python },
	{ { 'W' }, "W", "save the view, sorts, delay, mode, hidden frames (kptoprc)", act_settings },
	{ { 'b' }, "b", "set / clear the baseline (rows show the change)", act_baseline },
	{ { 'm' }, "m", "time mode: cumulative, decaying, window", act_mode },
	{ { 'o' }, "o", "record off-CPU time on / off (--off-cpu)", act_offcpu },
	{ { 'O' }, "O", "weigh rows by CPU, off-CPU or wall time (zeroes the counts)", act_weight },
	{ { ' ', KP_CTRL('r') }, "Space", "refresh now", act_refresh },
	{ { KP_CTRL('l') }, "Ctrl-L", "repaint the screen", act_refresh },
	/* the flame graph's own keys (flame-keys.c takes them first) */
	{ { 0 }, "flame arrows", "8: the parent, the widest child, the box beside", act_refresh },
	{ { 0 }, "flame Enter", "zoom into the box; Esc or Backspace: out one level", act_refresh },
	{ { 0 }, "flame / n N", "search (substring or regex): matches and their share; next, previous", act_refresh },
	{ { 0 }, "flame r", "the root at the top or the bottom", act_refresh },
	{ { 0 }, "flame c p", "callers of the box's function; focus on its process", act_refresh },
	{ { 0 }, "flame a", "annotate the box's function", act_refresh },
	/* the annotate screen's own keys (annotate.c) */
	{ { 0 }, "annot n N", "next / previous hot instruction (Tab, S-Tab too)", act_refresh },
	{ { 0 }, "annot s", "source and instructions, source only, instructions only", act_refresh },
	{ { 0 }, "annot Enter", "follow a jump, or annotate a call's function", act_refresh },
	{ { 0 }, "annot Esc", "back to the function before, then to the table", act_refresh },
	{ { 0 }, "click", "select a row; a title: sort by it; a view name: switch", act_refresh },
	{ { 0 }, "dbl-click", "as Enter on the row; wheel: move 3 rows (--no-mouse: off)", act_refresh },
};

#define NR_ACTIONS (sizeof(actions) / sizeof(actions[0]))

enum kp_act kp_actions__dispatch(struct kp_tui *t, int key)
{
	for (size_t i = 0; i < NR_ACTIONS; i++)
		for (int k = 0; k < 6 && actions[i].keys[k]; k++)
			if (actions[i].keys[k] == key)
				return actions[i].fn(t, key);
	return KP_ACT_NONE;
}

int kp_actions__help(int i, const char **keys, const char **text)
{
	for (size_t k = 0; k < NR_ACTIONS; k++) {
		if (!actions[k].help)
			continue;
		if (i-- == 0) {
			*keys = actions[k].names;
			*text = actions[k].help;
			return 0;
		}
	}
	return -1;
}

int kp_act_live(struct kp_tui *t, const char *what)
{
	if (t->cfg.collector)
		return 1;
	kp_tui__message(t, 1, "%s: not sampling, reading %s", what,
			t->cfg.input_path ? t->cfg.input_path : "a file");
	return 0;
}

const char *kp_view_name(enum kp_view_kind k)
{
	static const char *const names[KP_VIEW_KIND_MAX] = {
		"Functions", "Tree", "Callers", "Processes", "Threads",
		"Cgroups", "Modules", "Flame",
	};

	return (unsigned)k < KP_VIEW_KIND_MAX ? names[k] : "?";
}

const char *kp_sort_name(enum kp_sort s)
{
	static const char *const names[] = { "self", "total", "name", "change" };

	return (unsigned)s < 4 ? names[s] : "?";
}
