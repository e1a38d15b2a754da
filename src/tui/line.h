/* SPDX-License-Identifier: GPL-2.0-only */
/* line.h — one screen line built in a buffer, then put on the screen in
 * one call (mvadd_wchnstr), as htop's RichString does.
 *
 * Owns: a cell buffer as wide as the screen. Text is UTF-8; it is cut by
 * display width (wcwidth), never in the middle of a character, and bytes
 * that are not valid or not printable in the locale show as '?'.
 *
 * Who calls it: every screen (header, table, help, prompt, status).
 * kp_line__new returns NULL with errno set; __free(NULL) is a no-op.
 * Not thread-safe.
 */
#ifndef KP_TUI_LINE_H
#define KP_TUI_LINE_H

#include <stddef.h>

#include "tui/crt.h"

struct kp_line;

struct kp_line *kp_line__new(struct kp_crt *crt);
void kp_line__free(struct kp_line *l);

/* Start a line `width` columns wide filled with role's background.
 * Returns -ENOMEM if the buffer cannot grow. */
int kp_line__reset(struct kp_line *l, int width, enum kp_role fill);
/* Columns used so far. */
int kp_line__col(const struct kp_line *l);
/* Append UTF-8 text, at most maxw columns (-1: up to the end of the
 * line). Returns the columns written. */
int kp_line__put(struct kp_line *l, enum kp_role r, const char *s, int maxw);
int kp_line__putf(struct kp_line *l, enum kp_role r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Text cut to exactly w columns: padded with spaces, or cut with a
 * trailing '~' (or '…' in UTF-8) when it does not fit. right: pad on the
 * left instead. */
void kp_line__field(struct kp_line *l, enum kp_role r, const char *s, int w,
		    int right);
/* Append one character one column wide (a block element, a mark). */
void kp_line__putc(struct kp_line *l, enum kp_role r, wchar_t wc);
/* Pad with spaces up to column col. */
void kp_line__pad(struct kp_line *l, enum kp_role r, int col);
/* Put the line on screen row y, the full width, in one call. */
void kp_line__flush(struct kp_line *l, int y);

/* Display width of UTF-8 text (invalid bytes count as one column). */
int kp_text_width(const char *s);

#endif /* KP_TUI_LINE_H */
