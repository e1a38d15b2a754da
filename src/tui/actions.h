/* SPDX-License-Identifier: GPL-2.0-only */
/* actions.h — key handlers shared between actions.c (the key table) and
 * views.c (views, tree, search, save). Internal to src/tui/.
 *
 * Each handler takes the tui and the key that ran it and returns what must
 * happen next; none of them draws. Not thread-safe.
 */
#ifndef KP_TUI_ACTIONS_H
#define KP_TUI_ACTIONS_H

#include "tui/app.h"

/* 1 when live; else a status message saying why `what` needs sampling. */
int kp_act_live(struct kp_tui *t, const char *what);
enum kp_act kp_act_view(struct kp_tui *t, int key);
enum kp_act kp_act_enter(struct kp_tui *t, int key);
enum kp_act kp_act_expand(struct kp_tui *t, int key);
enum kp_act kp_act_save(struct kp_tui *t, int key);
/* Select the next row after the selection whose name contains text. */
enum kp_act kp_act_find(struct kp_tui *t, const char *text);

#endif /* KP_TUI_ACTIONS_H */
