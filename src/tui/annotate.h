/* SPDX-License-Identifier: GPL-2.0-only */
/* annotate.h — the annotate screen of the live view (annotate.c): the
 * disassembly of one function with each instruction's share of the
 * function's samples and the source lines above their instructions
 * (kp_model__annotate), opened with `a` on a function row (functions,
 * tree, callers, flame), kept up to date at every refresh.
 *
 * Owns: the annotation shown (struct kp_annot), the selection, the
 * source-or-instructions mode, the functions opened before (a call
 * followed with Enter; Esc goes back to them, then to the table) and a
 * cache of source files (util/srcline.h).
 *
 * Who calls it: views.c / flame-keys.c (open), app.c (draw, keys,
 * refresh), help.c (back from the help). Errors: 0 or -errno; a
 * function that cannot be annotated leaves a status message. Not
 * thread-safe.
 */
#ifndef KP_TUI_ANNOTATE_H
#define KP_TUI_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "tui/app.h"

#define KP_ANNOT_BACK 16	/* functions remembered for Esc */

/* Open the annotation of function fn (a row's fn). */
enum kp_act kp_annot_ui__open(struct kp_tui *t, uint64_t fn);
/* The `a` key on the selected row of the table or the flame graph. */
enum kp_act kp_annot_ui__open_selected(struct kp_tui *t);
void kp_annot_ui__draw(struct kp_tui *t);
enum kp_act kp_annot_ui__key(struct kp_tui *t, int key);
/* Annotate again from the model (a refresh), keeping the selection. */
int kp_annot_ui__refresh(struct kp_tui *t);
void kp_annot_ui__free(struct kp_tui *t);

#endif /* KP_TUI_ANNOTATE_H */
