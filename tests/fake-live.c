// SPDX-License-Identifier: GPL-2.0-only
/* fake-live.c — the collector and pump fakes (see fake-live.h). */
#include "fake-live.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pump/python.h"
#include "symbols/symbols.h"

#define LIVE(h) ((struct kp_fake_live *)(void *)(h))
#define CLIVE(h) ((const struct kp_fake_live *)(const void *)(h))

void kp_fake_live__init(struct kp_fake_live *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->save_bytes = 1234;
}

int kp_collector__start(struct kp_collector *c)
{
	LIVE(c)->starts++;
	LIVE(c)->sampling = 1;
	return 0;
}

int kp_collector__stop(struct kp_collector *c)
{
	LIVE(c)->stops++;
	LIVE(c)->sampling = 0;
	return 0;
}

int kp_collector__flush(struct kp_collector *c)
{
	LIVE(c)->flushes++;
	return 0;
}

int kp_collector__set_offcpu(struct kp_collector *c, int on)
{
	LIVE(c)->off_on = on;
	return 0;
}

int kp_collector__fd(const struct kp_collector *c)
{
	return CLIVE(c)->fd;
}

void kp_collector__set_lazy_fd(struct kp_collector *c, int lazy)
{
	(void)c;
	(void)lazy;	/* the fake's fd is readable when its feed ticks */
}

void kp_collector__stats(struct kp_collector *c, struct kp_collect_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->sampling = LIVE(c)->sampling;
	out->lost_queue_full = LIVE(c)->lost_queue_full;
	out->off_on = LIVE(c)->off_on;
}

int kp_pump__run(struct kp_pump *p, int timeout_ms, struct kp_err *err)
{
	struct kp_fake_live *f = LIVE(p);

	(void)timeout_ms;
	(void)err;
	return f->sampling && f->run ? f->run(f->ctx) : 0;
}

int kp_pump__save_start(struct kp_pump *p, const char *path, struct kp_err *err)
{
	struct kp_fake_live *f = LIVE(p);

	if (f->no_save)
		return kp_err_set(err, -ENOSYS, "the fake pump does not save");
	f->save_starts++;
	f->saving = 1;
	snprintf(f->path, sizeof(f->path), "%s", path);
	return 0;
}

int kp_pump__save_stop(struct kp_pump *p, struct kp_err *err)
{
	(void)err;
	LIVE(p)->save_stops++;
	LIVE(p)->saving = 0;
	return 0;
}

int kp_pump__saving(const struct kp_pump *p, const char **path, uint64_t *bytes)
{
	const struct kp_fake_live *f = CLIVE(p);

	if (path)
		*path = f->path;
	if (bytes)
		*bytes = f->save_bytes;
	return f->saving;
}

/* The header shows the symbols layer's JIT counters: none here. */
void kp_symbols__stats(const struct kp_symbols *s, struct kp_symbols_stats *out)
{
	(void)s;
	memset(out, 0, sizeof(*out));
}

/* The P key switches Python frames: no Python here (cfg.python NULL). */
int kp_python__raw(const struct kp_python *py)
{
	(void)py;
	return 0;
}

void kp_python__set_raw(struct kp_python *py, int raw)
{
	(void)py;
	(void)raw;
}

void kp_python__stats(const struct kp_python *py, struct kp_python_stats *out)
{
	(void)py;
	memset(out, 0, sizeof(*out));
}
