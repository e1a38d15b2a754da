/* SPDX-License-Identifier: GPL-2.0-only */
/* rc.h — the live view's settings that last: $XDG_CONFIG_HOME/kptop/kptoprc
 * (without XDG_CONFIG_HOME: ~/.config/kptop/kptoprc), a commented text
 * file of "key = value" lines (see kptop(1), FILES).
 *
 * Owns: the file's format, its path, reading it (a regular file owned by
 * kptop's effective uid, never through a link) and writing it (through
 * util/safefile.h, directories created 0700). Who calls it: app.c at
 * start (read) and the W key (actions.c, write). A bad line or file is a
 * warning for the caller to show, never an error that stops kptop.
 */
#ifndef KP_TUI_RC_H
#define KP_TUI_RC_H

#include <stddef.h>

#include "model/model.h"
#include "util/kp_err.h"

struct kp_rc {
	enum kp_view_kind view;
	enum kp_sort sorts[KP_VIEW_KIND_MAX];
	unsigned delay_ms;
	enum kp_time_mode mode;
	int hide_kernel, hide_user;
};

/* The file's path into buf; -ENOENT when neither XDG_CONFIG_HOME nor
 * HOME is set (then there is no file). */
int kp_rc__path(char *buf, size_t n);
/* Read path over rc (what it does not set is left as it was). Returns 0,
 * 1 when there is no file, or a negative errno with a one-line warning
 * in warn (the lines before the bad one are applied). */
int kp_rc__read(const char *path, struct kp_rc *rc, struct kp_err *warn);
/* Write rc to path, creating its directory (0700) when missing. */
int kp_rc__write(const char *path, const struct kp_rc *rc, struct kp_err *err);

#endif /* KP_TUI_RC_H */
