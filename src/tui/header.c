// SPDX-License-Identifier: GPL-2.0-only
/* header.c — the header (state, rates, time mode, drops and JIT maps
 * refused, debuginfod fetches, saving, filter) and the status line of
 * the main screen. */
#include "tui/app.h"

#include <stdio.h>
#include <string.h>

#include "collect/collect.h"
#include "pump/pump.h"
#include "pump/python.h"
#include "stream/lost.h"
#include "symbols/symbols.h"

static const char *mode_text(const struct kp_tui *t, char *buf, size_t n)
{
	switch (t->mode) {
	case KP_TIME_DECAY:
		return "decaying";
	case KP_TIME_WINDOW:
		snprintf(buf, n, "window %us", t->cfg.window_s);
		return buf;
	default:
		return "cumulative";
	}
}

static void pair(struct kp_line *l, const char *label, const char *value)
{
	kp_line__put(l, KP_ROLE_LABEL, label, -1);
	kp_line__put(l, KP_ROLE_VALUE, value, -1);
	kp_line__put(l, KP_ROLE_DEFAULT, "  ", -1);
}

/* The event when it is not cpu-clock (-e), a hardware event that fell
 * back to cpu-clock, then the rate: "999 Hz" or "every N" (-c). */
static void put_rate(struct kp_line *l, const struct kp_model_summary *s,
		     unsigned hz)
{
	char buf[96];

	if (s->event[0] && (strcmp(s->event, "cpu-clock") || s->event_asked[0])) {
		snprintf(buf, sizeof(buf), "%s ", s->event);
		kp_line__put(l, KP_ROLE_VALUE, buf, -1);
	}
	if (s->event_asked[0]) {
		snprintf(buf, sizeof(buf), "(no %s here) ", s->event_asked);
		kp_line__put(l, KP_ROLE_WARN, buf, -1);
	}
	if (s->period)
		snprintf(buf, sizeof(buf), "every %llu", (unsigned long long)s->period);
	else
		snprintf(buf, sizeof(buf), "%u Hz", hz);
	pair(l, "", buf);
}

static void line_state(struct kp_tui *t, const struct kp_model_summary *s, int y)
{
	struct kp_line *l = t->line;
	char buf[64];
	unsigned hz = t->cfg.freq_hz ? t->cfg.freq_hz : s->freq_hz;

	kp_line__put(l, KP_ROLE_VALUE, "kptop ", -1);
	if (!t->cfg.collector) {
		kp_line__put(l, KP_ROLE_MESSAGE, "reading ", -1);
		kp_line__put(l, KP_ROLE_VALUE, t->cfg.input_path ? t->cfg.input_path : "a file", 40);
		kp_line__put(l, KP_ROLE_DEFAULT, "  ", -1);
	} else {
		kp_line__put(l, t->sampling ? KP_ROLE_DOWN : KP_ROLE_WARN,
			     t->sampling ? "sampling  " : "stopped  ", -1);
	}
	put_rate(l, s, hz);
	if (kp_model__weight(t->cfg.model) != KP_WEIGHT_CPU)
		pair(l, "Weight ", kp_model__weight(t->cfg.model) == KP_WEIGHT_OFF ?
		     "off-CPU us" : "wall us");
	if (t->cfg.collector && t->off_on) {
		snprintf(buf, sizeof(buf), "on %.0f sw/s", t->switch_rate);
		pair(l, "Off-CPU ", buf);
	}
	snprintf(buf, sizeof(buf), "%u", s->ncpus);
	pair(l, "CPUs ", buf);
	if (t->cfg.collector) {
		snprintf(buf, sizeof(buf), "%.0f/s", t->sample_rate);
		pair(l, "Samples ", buf);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->samples);
		pair(l, "Total ", buf);
	} else {
		double span = s->last_ns > s->first_ns ? (s->last_ns - s->first_ns) / 1e9 : 0;

		snprintf(buf, sizeof(buf), "%llu in %.1fs",
			 (unsigned long long)s->samples, span);
		pair(l, "Samples ", buf);
	}
	snprintf(buf, sizeof(buf), "%.1f%%", t->cpu_pct);
	pair(l, "kptop CPU ", buf);
	kp_line__flush(l, y);
}

static void drop(struct kp_line *l, const char *label, uint64_t n)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)n);
	kp_line__put(l, KP_ROLE_LABEL, label, -1);
	kp_line__put(l, KP_ROLE_LABEL, " ", -1);
	kp_line__put(l, n ? KP_ROLE_WARN : KP_ROLE_VALUE, buf, -1);
	kp_line__put(l, KP_ROLE_DEFAULT, "  ", -1);
}

/* Python stacks not read whole and code not named (kptop(1), PYTHON),
 * from the records as the reports count them, live and in a replay. */
static void python_drops(struct kp_tui *t)
{
	struct kp_python_stats ps;
	struct kp_line *l = t->line;

	if (!t->cfg.python)
		return;
	kp_python__stats(t->cfg.python, &ps);
	if (ps.no_thread)
		drop(l, "py-no-thread", ps.no_thread);
	if (ps.truncated)
		drop(l, "py-cut", ps.truncated);
	if (ps.fault)
		drop(l, "py-read-failed", ps.fault);
	if (ps.code_unreadable)
		drop(l, "py-code-unreadable", ps.code_unreadable);
	if (ps.unplaced)
		drop(l, "py-unplaced", ps.unplaced);
}

static void line_drops(struct kp_tui *t, const struct kp_model_summary *s, int y)
{
	struct kp_line *l = t->line;
	uint64_t lost[KP_LOST_STAGE_MAX + 1];

	memcpy(lost, s->lost, sizeof(lost));
	if (t->cfg.collector) {
		struct kp_collect_stats st;

		kp_collector__stats(t->cfg.collector, &st);
		lost[KP_LOST_BPF_FULL] = st.lost_bpf_full;
		lost[KP_LOST_CPU_BUFFER] = st.lost_cpu_buffer;
		lost[KP_LOST_STACK] = st.stack_err_kernel + st.stack_err_user;
		lost[KP_LOST_QUEUE_FULL] = st.lost_queue_full;
		lost[KP_LOST_SIDEBAND] = st.lost_sideband;
		t->sampling = st.sampling;
	}
	kp_line__put(l, KP_ROLE_VALUE, "Drops ", -1);
	for (unsigned st = 1; st <= KP_LOST_STAGE_MAX; st++)
		if (lost[st] || kp_lost_stage_always_shown(st))
			drop(l, kp_lost_stage_name(st), lost[st]);
	if (t->cfg.symbols) {	/* perf maps refused, lines skipped */
		struct kp_symbols_stats ss;

		kp_symbols__stats(t->cfg.symbols, &ss);
		if (ss.jit_refused)
			drop(l, "jit-refused", ss.jit_refused);
		if (ss.jit_bad_lines)
			drop(l, "jit-bad-lines", ss.jit_bad_lines);
	}
	python_drops(t);
	kp_line__flush(l, y);
}

static void human_bytes(char *buf, size_t n, uint64_t b)
{
	if (b < 10 * 1024)
		snprintf(buf, n, "%llu B", (unsigned long long)b);
	else if (b < 10 * 1024 * 1024)
		snprintf(buf, n, "%.1f KiB", b / 1024.0);
	else
		snprintf(buf, n, "%.1f MiB", b / (1024.0 * 1024.0));
}

/* Debug files fetched from debuginfod servers, when that is on. */
static void debuginfod(struct kp_tui *t)
{
	struct kp_symbols_stats ss;
	struct kp_line *l = t->line;

	if (!t->cfg.symbols)
		return;
	kp_symbols__stats(t->cfg.symbols, &ss);
	if (!ss.debuginfod)
		return;
	kp_line__put(l, KP_ROLE_LABEL, "Debuginfod ", -1);
	kp_line__putf(l, KP_ROLE_VALUE, "done %llu ", (unsigned long long)ss.debuginfod_done);
	kp_line__putf(l, ss.debuginfod_failed ? KP_ROLE_WARN : KP_ROLE_VALUE,
		      "failed %llu ", (unsigned long long)ss.debuginfod_failed);
	kp_line__putf(l, KP_ROLE_VALUE, "pending %llu  ",
		      (unsigned long long)ss.debuginfod_pending);
}

static void line_scope(struct kp_tui *t, const struct kp_model_summary *s, int y)
{
	struct kp_line *l = t->line;
	const char *path = NULL;
	uint64_t bytes = 0;
	char buf[64];

	if (t->cfg.pump && kp_pump__saving(t->cfg.pump, &path, &bytes)) {
		human_bytes(buf, sizeof(buf), bytes);
		kp_line__put(l, KP_ROLE_WARN, "Saving ", -1);
		kp_line__put(l, KP_ROLE_VALUE, path ? path : "?", 40);
		kp_line__putf(l, KP_ROLE_DEFAULT, " %s  ", buf);
	}
	pair(l, "Mode ", mode_text(t, buf, sizeof(buf)));
	if (kp_model__has_baseline(t->cfg.model))
		kp_line__put(l, KP_ROLE_MESSAGE, "Baseline set  ", -1);
	kp_line__put(l, KP_ROLE_LABEL, "Sort ", -1);
	kp_line__putf(l, KP_ROLE_VALUE, "%s  ", kp_sort_name(t->vopts.sort));
	debuginfod(t);
	if (s->idle + s->total > 0) {	/* the idle task's share of the CPUs */
		kp_line__put(l, KP_ROLE_LABEL, "Idle ", -1);
		kp_line__putf(l, KP_ROLE_VALUE, "%.0f%%  ", 100.0 * s->idle / (s->idle + s->total));
	}
	if (s->model_bytes) {	/* what --max-memory bounds */
		human_bytes(buf, sizeof(buf), s->model_bytes);
		pair(l, "Model ", buf);
	}
	if (s->merged_procs) {	/* exited processes, one tree per command */
		kp_line__put(l, KP_ROLE_LABEL, "Merged ", -1);
		kp_line__putf(l, KP_ROLE_VALUE, "%llu  ", (unsigned long long)s->merged_procs);
	}
	if (s->folded_samples && s->samples) {
		kp_line__put(l, KP_ROLE_LABEL, "[other] ", -1);
		kp_line__putf(l, KP_ROLE_VALUE, "%.1f%%  ",
			      100.0 * (double)s->folded_samples / (double)s->samples);
	}
	if (t->filter.pid)
		kp_line__putf(l, KP_ROLE_MESSAGE, "Focus pid %u  ", t->filter.pid);
	if (t->filter_name[0]) {
		kp_line__put(l, KP_ROLE_LABEL, "Filter ", -1);
		kp_line__put(l, KP_ROLE_MESSAGE, t->filter_name, 30);
		kp_line__put(l, KP_ROLE_DEFAULT, "  ", -1);
	}
	if (t->filter.hide_kernel)
		kp_line__put(l, KP_ROLE_MESSAGE, "kernel hidden  ", -1);
	if (t->filter.hide_user)
		kp_line__put(l, KP_ROLE_MESSAGE, "user hidden  ", -1);
	if (t->filter.show_idle)
		kp_line__put(l, KP_ROLE_MESSAGE, "idle shown  ", -1);
	if (t->view) {
		kp_line__put(l, KP_ROLE_LABEL, "Rows ", -1);
		kp_line__putf(l, KP_ROLE_VALUE, "%zu  ", t->view->nr_all);
	}
	kp_line__flush(l, y);
}

static void line_tabs(struct kp_tui *t, int y)
{
	struct kp_line *l = t->line;

	for (int k = 0; k < KP_VIEW_KIND_MAX; k++) {
		int on = (int)t->vopts.kind == k;
		enum kp_role r = on ? KP_ROLE_TAB_ON : KP_ROLE_TAB;

		kp_line__put(l, KP_ROLE_DEFAULT, " ", -1);
		if (k == KP_VIEW_BOTTOMUP && on && t->vopts.root_fn)
			kp_line__putf(l, r, "%d Callers of %.30s", k + 1,
				      t->callers_name);
		else
			kp_line__putf(l, r, "%d %s", k + 1, kp_view_name(k));
		t->tab_end[k] = kp_line__col(l);	/* for a click (mouse.c) */
	}
	kp_line__flush(l, y);
}

int kp_header__draw(struct kp_tui *t, int y)
{
	struct kp_model_summary s;
	int cols = kp_crt__cols(t->crt);

	kp_model__summary(t->cfg.model, &s);
	kp_line__reset(t->line, cols, KP_ROLE_DEFAULT);
	line_state(t, &s, y);
	kp_line__reset(t->line, cols, KP_ROLE_DEFAULT);
	line_drops(t, &s, y + 1);
	kp_line__reset(t->line, cols, KP_ROLE_DEFAULT);
	line_scope(t, &s, y + 2);
	kp_line__reset(t->line, cols, KP_ROLE_DEFAULT);
	line_tabs(t, y + 3);
	return y + 4;
}

static const char *const status_keys[][2] = {
	{ "F1", "Help" }, { "s", "Stop" }, { "w", "Save" }, { "z", "Zero" },
	{ "b", "Base" }, { "m", "Mode" }, { "Tab", "View" }, { "/", "Search" },
	{ "\\", "Filter" }, { "<>", "Sort" }, { "q", "Quit" },
};

void kp_status__draw(struct kp_tui *t, int y)
{
	struct kp_line *l = t->line;
	size_t n = sizeof(status_keys) / sizeof(status_keys[0]);

	kp_line__reset(l, kp_crt__cols(t->crt), KP_ROLE_BAR);
	if (t->msg[0] && kp_tui__now_ns() < t->msg_until_ns) {
		kp_line__put(l, t->msg_warn ? KP_ROLE_WARN : KP_ROLE_MESSAGE, t->msg, -1);
		kp_line__flush(l, y);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *text = status_keys[i][1];

		if (i == 1 && t->cfg.collector && !t->sampling)
			text = "Start";
		if (i == 2 && t->cfg.pump && kp_pump__saving(t->cfg.pump, NULL, NULL))
			text = "StopSave";
		kp_line__put(l, KP_ROLE_KEY, status_keys[i][0], -1);
		kp_line__put(l, KP_ROLE_BAR, text, -1);
		kp_line__put(l, KP_ROLE_BAR, " ", -1);
	}
	kp_line__flush(l, y);
}
