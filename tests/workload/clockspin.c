// SPDX-License-Identifier: GPL-2.0-only
/* clockspin.c — reads the clock in a loop for the given seconds (default
 * 1), so that most of its samples fall in the [vdso]: in its exported
 * __vdso_clock_gettime and in the code without a name it calls, whose
 * start only the vdso's unwind tables give ("[vdso] @0xSTART").
 * Used by tests/batch-replay-dwarf.sh: a replay must name that code as
 * the live run did, after the process is gone.
 * Usage: clockspin [SECONDS] */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
