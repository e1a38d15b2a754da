/* SPDX-License-Identifier: GPL-2.0-only */
/* spool.h — the push spool (private to src/push/): profiles waiting to
 * be pushed, one file each, in a private directory.
 *
 * Owns: the directory (checked and made by util/safedir: every directory
 * on the way root's or ours, the spool itself ours and 0700, empty or
 * marked by the file "kptop-spool"), its files and their index in
 * memory, oldest first. Files are written through util/safefile (a new
 * file, O_EXCL|O_NOFOLLOW, renamed into place whole, never onto an
 * existing name); a name that is not a regular file of ours is never
 * opened. Past max bytes the oldest entries are removed and counted.
 *
 * An entry's file, "SEQ.push" (SEQ: 20 decimal digits, rising), is a
 * text header then the body (man/kptop.1, PUSHING):
 *   kptop-push 1\n app NAME\n host NAME\n from SECS\n until SECS\n \n BODY
 * NAME: 1 to 127 of [A-Za-z0-9_.-]; SECS: decimal Unix seconds, from <
 * until; BODY: the gzip pprof (starts 1f 8b).
 *
 * Errors: 0 or a negative errno, a message in err. Not thread-safe: the
 * pusher holds its lock around every call.
 */
#ifndef KP_PUSH_SPOOL_H
#define KP_PUSH_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "util/kp_err.h"

#define KP_SPOOL_NAME_MAX 128

struct kp_spool_entry {
	char app[KP_SPOOL_NAME_MAX], host[KP_SPOOL_NAME_MAX];
	uint64_t from_s, until_s;
	const uint8_t *body;	/* points into the parsed buffer */
	size_t body_len;
};

/* Parse a whole entry file. 0 or KP_EFORMAT (message in err). Pure. */
int kp_spool_parse(const uint8_t *buf, size_t len, struct kp_spool_entry *e,
		   struct kp_err *err);

/* The header of e (without the body) into buf: its length, or
 * -ENAMETOOLONG / -EINVAL for a name the parser would refuse. */
int kp_spool_header(const struct kp_spool_entry *e, char *buf, size_t len);

struct kp_spool;

/* Open (make) dir; index what it holds already. NULL, errno, err. */
struct kp_spool *kp_spool__open(const char *dir, size_t max_bytes,
				struct kp_err *err);
void kp_spool__close(struct kp_spool *s);

/* Write e (header and body) as the newest entry; then drop the oldest
 * until the spool fits max_bytes again (never the new one), adding their
 * number to *dropped. */
int kp_spool__add(struct kp_spool *s, const struct kp_spool_entry *e,
		  uint64_t *dropped, struct kp_err *err);

/* The oldest entry: 1 and its sequence number, 0 when empty. */
int kp_spool__oldest(const struct kp_spool *s, uint64_t *seq);

/* Read entry seq into *buf (malloc'd, the caller frees) and *len. */
int kp_spool__read(struct kp_spool *s, uint64_t seq, uint8_t **buf,
		   size_t *len, struct kp_err *err);

/* Remove entry seq (if still there: it may have been dropped). */
void kp_spool__remove(struct kp_spool *s, uint64_t seq);

/* Entries and bytes in the spool now. */
void kp_spool__usage(const struct kp_spool *s, uint64_t *entries, uint64_t *bytes);

/* Its real path, for messages. */
const char *kp_spool__path(const struct kp_spool *s);

#endif /* KP_PUSH_SPOOL_H */
