// SPDX-License-Identifier: GPL-2.0-only
/* kpspin.c — a small shared library for the dlopen test: kp_spin() burns
 * CPU inside this library for the given time. */
#include <stdint.h>
#include <time.h>

uint64_t kp_spin(double seconds);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) uint64_t kp_spin(double seconds)
{
	double end = now() + seconds;
	uint64_t v = 0x1234;

	do {
		for (int i = 0; i < 200000; i++) {
			v = v * 6364136223846793005ull + 1442695040888963407ull;
			v ^= v >> 31;
		}
	} while (now() < end);
	return v;
}
