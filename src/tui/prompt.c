// SPDX-License-Identifier: GPL-2.0-only
/* prompt.c — a one-line editor at the bottom of the screen, for the save
 * path, the search and the filter. Enter accepts, Esc cancels. */
#include "tui/app.h"

#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <curses.h>

static const char *label(enum kp_prompt_kind k)
{
	switch (k) {
	case KP_PROMPT_SAVE: return "Save to: ";
	case KP_PROMPT_SEARCH: return "Search: ";
	default: return "Filter (name substring, empty: none): ";
	}
}

void kp_prompt__open(struct kp_tui *t, enum kp_prompt_kind kind,
		     const char *initial)
{
	t->screen = KP_SCREEN_PROMPT;
	t->prompt_kind = kind;
	snprintf(t->prompt, sizeof(t->prompt), "%s", initial ? initial : "");
}

void kp_prompt__draw(struct kp_tui *t, int y)
{
	struct kp_line *l = t->line;
	int cols = kp_crt__cols(t->crt), room, w;
	const char *s = t->prompt;

	kp_line__reset(l, cols, KP_ROLE_DEFAULT);
	kp_line__put(l, KP_ROLE_MESSAGE, label(t->prompt_kind), -1);
	room = cols - kp_line__col(l) - 1;
	/* Show the end of a long text: drop characters from its start. */
	for (w = kp_text_width(s); w > room && *s; w = kp_text_width(s)) {
		int n = mblen(s, MB_CUR_MAX);

		s += n > 0 ? n : 1;
	}
	kp_line__put(l, KP_ROLE_VALUE, s, -1);
	kp_line__put(l, KP_ROLE_SELECTED, " ", -1);	/* the cursor */
	kp_line__flush(l, y);
}

static void backspace(char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		n--;
		if (((unsigned char)s[n] & 0xc0) != 0x80)
			break;
	}
	s[n] = '\0';
}

static void append(char *s, size_t cap, int key)
{
	char mb[MB_LEN_MAX];
	mbstate_t st;
	size_t n = strlen(s), k;

	memset(&st, 0, sizeof(st));
	k = wcrtomb(mb, (wchar_t)key, &st);
	if (k == (size_t)-1 || n + k + 1 > cap)
		return;
	memcpy(s + n, mb, k);
	s[n + k] = '\0';
}

enum kp_act kp_prompt__key(struct kp_tui *t, int key)
{
	switch (key) {
	case KP_ESC:
		t->screen = KP_SCREEN_TABLE;
		return KP_ACT_REDRAW;
	case '\r':
	case '\n':
	case KP_KEY(KEY_ENTER):
		t->screen = KP_SCREEN_TABLE;
		return kp_actions__prompt_done(t, t->prompt_kind, t->prompt);
	case KP_KEY(KEY_BACKSPACE):
	case 127:
	case 8:
		backspace(t->prompt);
		return KP_ACT_REDRAW;
	case KP_CTRL('u'):
		t->prompt[0] = '\0';
		return KP_ACT_REDRAW;
	default:
		if (key & KP_KEYCODE || key < ' ')
			return KP_ACT_NONE;
		append(t->prompt, sizeof(t->prompt), key);
		return KP_ACT_REDRAW;
	}
}
