// SPDX-License-Identifier: GPL-2.0-only
/* event.c — perf's event names and what perf_event_open(2) calls them. */
#include "collect/event.h"

#include <linux/perf_event.h>
#include <stddef.h>
#include <string.h>

#define SW(n, c) { n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, 0 }
#define HW(n, c) { n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, 1 }

/* Canonical names first (as `perf list` prints them), then aliases. */
static const struct kp_event events[] = {
	SW("cpu-clock", CPU_CLOCK),
	SW("task-clock", TASK_CLOCK),
	SW("page-faults", PAGE_FAULTS),
	SW("minor-faults", PAGE_FAULTS_MIN),
	SW("major-faults", PAGE_FAULTS_MAJ),
	SW("context-switches", CONTEXT_SWITCHES),
	SW("cpu-migrations", CPU_MIGRATIONS),
	SW("alignment-faults", ALIGNMENT_FAULTS),
	SW("emulation-faults", EMULATION_FAULTS),
	HW("cycles", CPU_CYCLES),
	HW("instructions", INSTRUCTIONS),
	HW("cache-references", CACHE_REFERENCES),
	HW("cache-misses", CACHE_MISSES),
	HW("branch-instructions", BRANCH_INSTRUCTIONS),
	HW("branch-misses", BRANCH_MISSES),
	HW("bus-cycles", BUS_CYCLES),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("ref-cycles", REF_CPU_CYCLES),
};

static const struct { const char *alias, *name; } aliases[] = {
	{ "faults", "page-faults" }, { "cs", "context-switches" },
	{ "migrations", "cpu-migrations" }, { "cpu-cycles", "cycles" },
	{ "branches", "branch-instructions" },
	{ "idle-cycles-frontend", "stalled-cycles-frontend" },
	{ "idle-cycles-backend", "stalled-cycles-backend" },
};

const struct kp_event *kp_event_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			name = aliases[i].name;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (!strcmp(name, events[i].name))
			return &events[i];
	return NULL;
}

const char *kp_event_names(void)
{
	return "cpu-clock, task-clock, page-faults, minor-faults, major-faults, "
	       "context-switches, cpu-migrations, alignment-faults, "
	       "emulation-faults, cycles, instructions, cache-references, "
	       "cache-misses, branch-instructions, branch-misses, bus-cycles, "
	       "stalled-cycles-frontend, stalled-cycles-backend, ref-cycles";
}

int kp_event_is_clock(const struct kp_event *e)
{
	return e->type == PERF_TYPE_SOFTWARE &&
	       (e->config == PERF_COUNT_SW_CPU_CLOCK ||
		e->config == PERF_COUNT_SW_TASK_CLOCK);
}
