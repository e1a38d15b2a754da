// SPDX-License-Identifier: GPL-2.0-only
/* help.c — the help screen: every key of the key table, scrollable. */
#include "tui/app.h"

#include <curses.h>

static const char *const intro[] = {
	"kptop: where every CPU spends its time, sampled by BPF.",
	"Self%: samples in the function itself; Total%: with what it calls.",
	"With a baseline (b): the change of each row's share and samples.",
	"Drops: samples lost (BPF buffer full, per-CPU buffer, stack errors,",
	"queue full, side-band); a non-zero count is highlighted.",
	"",
};
#define NR_INTRO (int)(sizeof(intro) / sizeof(intro[0]))

static int nr_lines(void)
{
	const char *k, *txt;
	int n = 0;

	while (kp_actions__help(n, &k, &txt) == 0)
		n++;
	return NR_INTRO + n;
}

static void help_line(struct kp_tui *t, int i, int y, int cols)
{
	struct kp_line *l = t->line;
	const char *keys, *text;

	kp_line__reset(l, cols, KP_ROLE_DEFAULT);
	if (i < NR_INTRO) {
		kp_line__put(l, KP_ROLE_DEFAULT, intro[i], -1);
	} else if (kp_actions__help(i - NR_INTRO, &keys, &text) == 0) {
		kp_line__put(l, KP_ROLE_DEFAULT, "  ", -1);
		kp_line__field(l, KP_ROLE_KEY, keys, 14, 0);
		kp_line__put(l, KP_ROLE_DEFAULT, text, -1);
	}
	kp_line__flush(l, y);
}

void kp_help__draw(struct kp_tui *t)
{
	int rows = kp_crt__rows(t->crt), cols = kp_crt__cols(t->crt);
	int body = rows - 2, n = nr_lines();

	if (body < 1)
		return;
	if (t->help_top > n - body)
		t->help_top = n - body > 0 ? n - body : 0;
	kp_line__reset(t->line, cols, KP_ROLE_TITLE);
	kp_line__put(t->line, KP_ROLE_TITLE, "kptop help", -1);
	kp_line__flush(t->line, 0);
	for (int y = 0; y < body; y++)
		help_line(t, t->help_top + y, y + 1, cols);
	kp_line__reset(t->line, cols, KP_ROLE_BAR);
	kp_line__put(t->line, KP_ROLE_BAR, n > body ?
		     "Up/Down/PgUp/PgDn scroll, any other key returns" :
		     "Press any key to return", -1);
	kp_line__flush(t->line, rows - 1);
}

enum kp_act kp_help__key(struct kp_tui *t, int key)
{
	int page = kp_crt__rows(t->crt) - 3;

	switch (key) {
	case KP_KEY(KEY_UP):
		t->help_top = t->help_top > 0 ? t->help_top - 1 : 0;
		return KP_ACT_REDRAW;
	case KP_KEY(KEY_DOWN):
		t->help_top++;
		return KP_ACT_REDRAW;
	case KP_KEY(KEY_PPAGE):
		t->help_top = t->help_top > page ? t->help_top - page : 0;
		return KP_ACT_REDRAW;
	case KP_KEY(KEY_NPAGE):
	case ' ':
		t->help_top += page > 0 ? page : 1;
		return KP_ACT_REDRAW;
	default:
		t->screen = t->help_back;	/* the table, or annotate */
		t->help_back = KP_SCREEN_TABLE;
		return KP_ACT_REDRAW;
	}
}
