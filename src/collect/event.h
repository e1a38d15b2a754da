/* SPDX-License-Identifier: GPL-2.0-only */
/* event.h — the events kptop can sample on (-e), by perf's names.
 *
 * Owns: the table of event names and what perf_event_open(2) calls them
 * (type and config), and which of them need a hardware PMU. Pure
 * look-ups on a static table: no I/O, thread-safe.
 *
 * Who calls it: the options (-e checks its name before anything starts),
 * the collector (opens the event, falls back to cpu-clock when a
 * hardware event cannot be counted here).
 */
#ifndef KP_COLLECT_EVENT_H
#define KP_COLLECT_EVENT_H

#include <stdint.h>

#define KP_EVENT_DEFAULT "cpu-clock"

struct kp_event {
	const char *name;	/* perf's name, e.g. "page-faults" */
	uint32_t type;		/* PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE */
	uint64_t config;	/* PERF_COUNT_SW_* or PERF_COUNT_HW_* */
	int hardware;		/* needs a PMU: falls back to cpu-clock */
};

/* The event called name (perf's names and aliases: "cycles",
 * "cpu-cycles", "faults", "cs", ...), or NULL. */
const struct kp_event *kp_event_find(const char *name);

/* The canonical names, comma-separated, for an error message. */
const char *kp_event_names(void);

/* 1 when the event counts nanoseconds (cpu-clock, task-clock): its
 * period is a time. */
int kp_event_is_clock(const struct kp_event *e);

#endif /* KP_COLLECT_EVENT_H */
