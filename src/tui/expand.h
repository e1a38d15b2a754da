/* SPDX-License-Identifier: GPL-2.0-only */
/* expand.h — the set of expanded tree rows (by kp_row.id).
 *
 * Owns: an open-addressing hash set of 64-bit ids, kept by the tui across
 * refreshes and handed to the model through kp_view_opts.expanded.
 * Plain C, no curses. __new returns NULL with errno set; __free(NULL) is
 * a no-op. Not thread-safe.
 */
#ifndef KP_TUI_EXPAND_H
#define KP_TUI_EXPAND_H

#include <stddef.h>
#include <stdint.h>

struct kp_expand;

struct kp_expand *kp_expand__new(void);
void kp_expand__free(struct kp_expand *e);
int kp_expand__has(const struct kp_expand *e, uint64_t id);
/* Add or remove id; returns 0 or -ENOMEM. */
int kp_expand__set(struct kp_expand *e, uint64_t id, int on);
void kp_expand__clear(struct kp_expand *e);
size_t kp_expand__count(const struct kp_expand *e);
/* For kp_view_opts.expanded: ctx is the struct kp_expand. */
int kp_expand__cb(void *ctx, uint64_t id);

#endif /* KP_TUI_EXPAND_H */
