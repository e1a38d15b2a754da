/* SPDX-License-Identifier: GPL-2.0-only */
/* creds.h — the files a pusher trusts (creds.c): the secrets of
 * --push-basic-auth and --push-bearer, and the CA certificates of
 * --push-cacert. kptop runs as root, so each is opened without following
 * a link and read only when its owner is kptop's user and no one else
 * can change it (nor, for a secret, read it): a file another user
 * planted or can rewrite would give away a token or let a third party
 * stand in for the server. push.c reads them once, at start; every
 * error is KP_EUSAGE with one line naming the file and the fix.
 */
#ifndef KP_PUSH_CREDS_H
#define KP_PUSH_CREDS_H

#include <stddef.h>

#include "util/kp_err.h"

#define KP_SECRET_MAX 4096		/* bytes of a secret's one line */
#define KP_CACERT_MAX (1u << 20)	/* bytes of a CA file */

/* The one line of a secret file (0600 or 0400, kptop's user's); *out
 * malloc'd, for the caller to wipe and free. opt names the option in
 * messages; "--push-basic-auth" also wants "user:password". */
int kp_creds__secret(const char *path, const char *opt, char **out, struct kp_err *err);
/* The PEM certificates of a CA file (kptop's user's, not writable by
 * group or others, at most KP_CACERT_MAX bytes, at least one
 * "-----BEGIN CERTIFICATE-----"); *out malloc'd, *len its bytes. */
int kp_creds__cacert(const char *path, char **out, size_t *len, struct kp_err *err);

#endif /* KP_PUSH_CREDS_H */
