// SPDX-License-Identifier: GPL-2.0-only
/* lost.c — the lost stages' names (see lost.h). */
#include "stream/lost.h"

#include "stream/record.h"

static const struct {
	const char *name;
	unsigned always : 1;
} stages[KP_LOST_STAGE_MAX + 1] = {
	[KP_LOST_BPF_FULL] = { "bpf-full", 1 },
	[KP_LOST_CPU_BUFFER] = { "cpu-buf", 1 },
	[KP_LOST_STACK] = { "stack-err", 1 },
	[KP_LOST_QUEUE_FULL] = { "queue-full", 1 },
	[KP_LOST_SIDEBAND] = { "side-band", 1 },
	[KP_LOST_UNWIND] = { "unwind", 0 },
	[KP_LOST_OFFCPU] = { "off-cpu", 0 },
};

const char *kp_lost_stage_name(unsigned stage)
{
	if (stage == 0 || stage > KP_LOST_STAGE_MAX || !stages[stage].name)
		return "?";
	return stages[stage].name;
}

int kp_lost_stage_always_shown(unsigned stage)
{
	return stage >= 1 && stage <= KP_LOST_STAGE_MAX && stages[stage].always;
}
