/* SPDX-License-Identifier: GPL-2.0-only */
/* sig.h — signals to the loop: SIGINT, SIGTERM, SIGHUP, SIGWINCH and
 * SIGTSTP arrive as reads on a signalfd owned by the live view.
 *
 * These signals are blocked in the calling thread (which must be the
 * process's main thread) while the object lives. A process-directed
 * signal may still be delivered to another thread that does not block it
 * (the collector's consumer): a tiny handler, installed for the same
 * lifetime, sends it on to the main thread (tgkill), where it waits for
 * the signalfd. No global state: the handler needs only getpid/gettid.
 * __free restores the mask and the handlers and drops what is pending.
 * Errors: NULL with errno set and a message in kp_err. Not thread-safe.
 */
#ifndef KP_TUI_SIG_H
#define KP_TUI_SIG_H

#include "util/kp_err.h"

struct kp_sig;

struct kp_sig *kp_sig__new(struct kp_err *err);
void kp_sig__free(struct kp_sig *s);
int kp_sig__fd(const struct kp_sig *s);
/* Read what arrived: a bit set of KP_SIG_QUIT / _RESIZE / _STOP. */
int kp_sig__read(struct kp_sig *s);
#define KP_SIG_QUIT 1
#define KP_SIG_RESIZE 2
#define KP_SIG_STOP 4	/* Ctrl-Z: give the terminal back, then stop */

#endif /* KP_TUI_SIG_H */
