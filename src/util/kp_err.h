/* SPDX-License-Identifier: GPL-2.0-only */
/* kp_err.h — kptop's error convention, shared by every layer.
 *
 * Functions return 0 (or a count) on success and a negative errno, or one
 * of kptop's own codes below -KP_ERR_BASE, on failure. Where the caller
 * needs to know more than the code, the function takes a struct kp_err *
 * (may be NULL) and leaves a one-line message in it, naming the problem
 * and, where there is one, what to do. Never log an error and return 0.
 * Constructors return NULL with errno set and fill the kp_err.
 *
 * No global state; thread-safe as long as each thread has its own kp_err.
 */
#ifndef KP_UTIL_ERR_H
#define KP_UTIL_ERR_H

#include <stddef.h>

#define KP_ERR_BASE 10000

enum kp_errcode {
	KP_EFORMAT = -(KP_ERR_BASE + 1),   /* malformed input (stream, ELF, map) */
	KP_EVERSION = -(KP_ERR_BASE + 2),  /* unsupported stream major version */
	KP_ETRUNC = -(KP_ERR_BASE + 3),    /* input ends inside a record */
	KP_ENOBPF = -(KP_ERR_BASE + 4),    /* BPF cannot be used here */
	KP_ENOPERF = -(KP_ERR_BASE + 5),   /* perf events cannot be opened */
	KP_EBUILDID = -(KP_ERR_BASE + 6),  /* debug file's build-id does not match */
	KP_ENOSYM = -(KP_ERR_BASE + 7),    /* no symbol at that address */
	KP_ENOCFI = -(KP_ERR_BASE + 8),    /* no call frame information */
	KP_EUSAGE = -(KP_ERR_BASE + 9),    /* bad command-line usage */
};

#define KP_ERR_MSG 512

struct kp_err {
	int code;
	char msg[KP_ERR_MSG];
};

/* Record code and a printf-style message in e (if not NULL); returns code. */
int kp_err_set(struct kp_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A static description of code: strerror() for errnos, kptop's own text
 * for KP_E*. Never NULL. */
const char *kp_strerror(int code);

#endif /* KP_UTIL_ERR_H */
