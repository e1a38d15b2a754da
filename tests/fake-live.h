/* SPDX-License-Identifier: GPL-2.0-only */
/* fake-live.h — link-time fakes of the collector and the pump for the
 * live view's test (tests/test-tui.c) and benchmark (bench/tui-bench.c):
 * one copy, so the two cannot drift.
 *
 * The collector and pump handles the view is given are a struct
 * kp_fake_live (cast to struct kp_collector * / struct kp_pump *). It
 * counts the calls, keeps the sampling and saving state, and hands
 * kp_pump__run() and the stats to the hooks its user sets. The symbols
 * layer's kp_symbols__stats (the header's JIT counters) reports zeros. Not
 * thread-safe; no global state.
 */
#ifndef KP_TESTS_FAKE_LIVE_H
#define KP_TESTS_FAKE_LIVE_H

#include <stdint.h>

#include "collect/collect.h"
#include "pump/pump.h"

struct kp_fake_live {
	int sampling, starts, stops, flushes;
	int off_on;		/* kp_collector__set_offcpu */
	int saving, save_starts, save_stops;
	char path[256];
	int fd;			/* kp_collector__fd; -1: none */
	int no_save;		/* save_start fails with -ENOSYS */
	uint64_t lost_queue_full;	/* in the stats, to see a highlighted counter */
	uint64_t save_bytes;	/* what kp_pump__saving reports */
	/* kp_pump__run: calls run(ctx) while sampling, when set */
	int (*run)(void *ctx);
	void *ctx;
};

/* A fake with no fd, not sampling, not saving. */
void kp_fake_live__init(struct kp_fake_live *f);

static inline struct kp_collector *kp_fake_live__collector(struct kp_fake_live *f)
{
	return (struct kp_collector *)(void *)f;
}

static inline struct kp_pump *kp_fake_live__pump(struct kp_fake_live *f)
{
	return (struct kp_pump *)(void *)f;
}

#endif /* KP_TESTS_FAKE_LIVE_H */
