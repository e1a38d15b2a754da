// SPDX-License-Identifier: GPL-2.0-only
/* loop.c — kp_tui__run: the poll loop of the live view.
 *
 * One thread (the main one): poll() on the terminal, the signalfd of
 * sig.h (SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP) and the
 * collector's fd. The collector's queue is drained at most every
 * KP_PUMP_MS (and at once before each refresh), so a busy queue does not
 * spin the loop and drawing never waits on sampling: the collector's own
 * thread keeps filling the queue while we draw.
 */
#include "tui/tui.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <curses.h>

#include "tui/app.h"
#include "pump/python.h"
#include "tui/sig.h"

#define KP_PUMP_MS 50
/* The first frames come sooner than -d: a refresh every KP_EARLY_MS for
 * the first KP_EARLY_SPAN_MS of sampling, so that the hot functions are
 * on screen about half a second after the start (top and htop show data
 * at once), not after a whole interval; then every -d. */
#define KP_EARLY_MS 100
#define KP_EARLY_SPAN_MS 500

static uint64_t now_ms(void)
{
	return kp_tui__now_ns() / 1000000ULL;
}

/* A Python process of a version kptop cannot read: said once. */
static void python_unknown(struct kp_tui *t)
{
	struct kp_python_stats ps;

	if (!t->cfg.python)
		return;
	kp_python__stats(t->cfg.python, &ps);
	if (ps.unknown_version <= t->py_unknown)
		return;
	t->py_unknown = ps.unknown_version;
	kp_tui__message(t, 1, "pid %u runs Python %s, which kptop cannot read: "
			"its native stacks are shown", ps.last_unknown_pid,
			ps.last_unknown);
}

static void pump(struct kp_tui *t)
{
	struct kp_err e = { 0 };
	int rc;

	if (!t->cfg.collector || !t->cfg.pump)
		return;
	rc = kp_pump__run(t->cfg.pump, 0, &e);
	if (rc < 0)
		kp_tui__message(t, 1, "%s", e.msg[0] ? e.msg : kp_strerror(rc));
	python_unknown(t);
}

/* Every key pending. A key that changes the view has it rebuilt before
 * the next key is read (Enter after a filter acts on the filtered rows);
 * redraws wait for the end of the burst. Returns KP_ACT_REDRAW,
 * KP_ACT_QUIT, KP_ACT_NONE or a negative errno. */
static int read_keys(struct kp_tui *t)
{
	enum kp_act act = KP_ACT_NONE;
	wint_t ch;
	int r, rc, n = 0;

	while ((r = kp_crt__key(t->crt, &ch)) != ERR) {
		n++;
		int key = r == KEY_CODE_YES ? KP_KEY((int)ch) : (int)ch;
		enum kp_act a = kp_tui__key(t, key);

		if (a == KP_ACT_QUIT)
			return KP_ACT_QUIT;
		if (a == KP_ACT_REVIEW)
			rc = kp_tui__review(t);
		else if (a == KP_ACT_REFRESH) {
			pump(t);	/* what a flush queued, say */
			rc = kp_tui__refresh(t);
		}
		else
			rc = 0;
		if (rc < 0)
			return rc;
		if (a != KP_ACT_NONE)
			act = KP_ACT_REDRAW;
	}
	/* Readable again and again without a key: the input is at its end
	 * (not a terminal any more). Quit rather than spin. */
	t->empty_reads = n ? 0 : t->empty_reads + 1;
	return t->empty_reads > 100 ? KP_ACT_QUIT : act;
}

/* When the refresh after one at now is due. */
static uint64_t next_refresh_at(const struct kp_tui *t, uint64_t now)
{
	unsigned d = t->cfg.delay_ms;

	if (t->cfg.collector && now < t->start_ms + KP_EARLY_SPAN_MS &&
	    d > KP_EARLY_MS)
		d = KP_EARLY_MS;
	return now + d;
}

/* Returns 1 to quit. */
static int read_signals(struct kp_tui *t, struct kp_sig *sig)
{
	int what = kp_sig__read(sig);

	if (what & KP_SIG_STOP)
		kp_crt__suspend(t->crt);
	if (what & KP_SIG_RESIZE)
		kp_crt__check_resize(t->crt);
	return (what & KP_SIG_QUIT) != 0;
}

/* Every refresh flushes the collector and pumps. Between refreshes the
 * collector's fd (lazy: readable only past an eighth of the queue's
 * limit) is watched until it is readable; readable before next_pump: the
 * pump is due then, and the fd is left out of the polls until it has run
 * (it stays readable). So a quiet machine costs no wakeup between
 * refreshes, and a busy queue is pumped at most every KP_PUMP_MS. */
static int turn(struct kp_tui *t, struct kp_sig *sig, uint64_t *next_refresh,
		uint64_t *next_pump, int *pump_due)
{
	int cfd = t->cfg.collector ? kp_collector__fd(t->cfg.collector) : -1;
	uint64_t now = now_ms(), wake = *next_refresh;
	struct pollfd p[3] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = kp_sig__fd(sig), .events = POLLIN },
		{ .fd = *pump_due ? -1 : cfd, .events = POLLIN },
	};
	int act = KP_ACT_NONE;

	if (*pump_due && *next_pump < wake)
		wake = *next_pump;
	if (poll(p, 3, wake > now ? (int)(wake - now) : 0) < 0 && errno != EINTR)
		return kp_err_set(&t->err, -errno, "poll: %s", strerror(errno));
	if (p[2].revents)
		*pump_due = 1;
	if (*pump_due && now_ms() >= *next_pump) {
		pump(t);
		*pump_due = 0;
		*next_pump = now_ms() + KP_PUMP_MS;
	}
	if (p[1].revents && read_signals(t, sig))
		return 1;
	if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
		return 1;	/* the terminal went away */
	if (p[0].revents)
		act = read_keys(t);
	if (act < 0)
		return act;
	if (act < KP_ACT_REFRESH && now_ms() >= *next_refresh) {
		/* the collector drains on its own only when a buffer fills
		 * or its timer (up to 1 s) runs out: take everything now */
		if (t->cfg.collector)
			kp_collector__flush(t->cfg.collector);
		pump(t);
		kp_crt__check_resize(t->crt);
		act = t->cfg.collector ? KP_ACT_REFRESH : KP_ACT_REDRAW;
		*next_refresh = next_refresh_at(t, now_ms());
	} else if (act == KP_ACT_NONE && p[1].revents) {
		act = KP_ACT_REDRAW;	/* a resize */
	}
	return kp_tui__apply(t, (enum kp_act)act);
}

static int loop(struct kp_tui *t, struct kp_sig *sig)
{
	uint64_t next_refresh, next_pump = 0;
	int rc, pump_due = 0;

	if (t->cfg.collector)
		kp_collector__set_lazy_fd(t->cfg.collector, 1);
	rc = kp_tui__set_filter(t);
	if (rc < 0)
		return kp_err_set(&t->err, rc, "cannot set the filter: %s",
				  kp_strerror(rc));
	t->start_ms = now_ms();
	pump(t);
	rc = kp_tui__apply(t, KP_ACT_REFRESH);
	next_refresh = next_refresh_at(t, t->start_ms);
	while (rc == 0)
		rc = turn(t, sig, &next_refresh, &next_pump, &pump_due);
	return rc < 0 ? rc : 0;
}

int kp_tui__run(const struct kp_tui_config *cfg, struct kp_err *err)
{
	struct kp_tui *t;
	struct kp_sig *sig;
	int rc;

	if (!cfg || !cfg->model)
		return kp_err_set(err, -EINVAL, "kp_tui__run: no model");
	sig = kp_sig__new(err);
	if (!sig)
		return -errno;
	t = kp_tui__new(cfg, NULL, err);
	if (!t) {
		rc = -errno;
		goto out_sig;
	}
	rc = loop(t, sig);
	if (rc < 0 && err)
		*err = t->err;
	kp_tui__free(t);	/* endwin before the caller prints anything */
out_sig:
	kp_sig__free(sig);
	return rc;
}
