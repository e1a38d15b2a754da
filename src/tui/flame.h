/* SPDX-License-Identifier: GPL-2.0-only */
/* flame.h — the state of the live view's flame graph (view 8; its
 * screen is flame.c, its keys, search, zoom and mouse flame-keys.c).
 *
 * Owns: the zoom path (the ids of the boxes from a child of the root down
 * to the zoom box, kept across refreshes and view changes: the model
 * follows it as far as it still leads), the side the root is drawn on,
 * the search's compiled regular expression and which boxes of the
 * current view match it, and the first depth on screen. The boxes
 * themselves are the model's flame view (KP_VIEW_FLAME) in t->view, and
 * the selection is the table's (t->sel, t->sel_id): the keys that act on
 * a selected row (c, p) act on the selected box. The prototypes of the
 * screen are in app.h with the other screens'. Plain C and regex.h, no
 * curses. Not thread-safe.
 */
#ifndef KP_TUI_FLAME_H
#define KP_TUI_FLAME_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#define KP_FLAME_ZOOM_MAX 256

struct kp_flame_ui {
	uint64_t zoom[KP_FLAME_ZOOM_MAX];
	size_t zoom_len;
	int root_bottom;	/* 1: the root at the bottom (a flame), 0: at
				 * the top (an icicle) */
	int first;		/* the first depth on screen */
	regex_t re;		/* the search as a regular expression ... */
	int have_re;		/* ... when it is one */
	uint8_t *match;		/* per row of the view: its name matches */
	size_t cap_match;
	size_t nr_match;	/* boxes matching */
	double match_share;	/* their samples (nested ones once), a share
				 * of the view's */
	int y, h, cols;		/* the last draw: rows y+1 .. y+h-1 */
};

void kp_flame_ui__init(struct kp_flame_ui *f);
void kp_flame_ui__fini(struct kp_flame_ui *f);

#endif /* KP_TUI_FLAME_H */
