// SPDX-License-Identifier: GPL-2.0-only
#include "util/kp_err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kp_err_set(struct kp_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

const char *kp_strerror(int code)
{
	switch (code) {
	case KP_EFORMAT: return "malformed input";
	case KP_EVERSION: return "unsupported stream version";
	case KP_ETRUNC: return "input ends inside a record";
	case KP_ENOBPF: return "BPF cannot be used";
	case KP_ENOPERF: return "perf events cannot be opened";
	case KP_EBUILDID: return "build-id mismatch";
	case KP_ENOSYM: return "no symbol at that address";
	case KP_ENOCFI: return "no call frame information";
	case KP_EUSAGE: return "bad usage";
	}
	if (code < 0 && code > -KP_ERR_BASE)
		return strerror(-code);
	return "unknown error";
}
