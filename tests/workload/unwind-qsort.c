// SPDX-License-Identifier: GPL-2.0-only
/* unwind-qsort.c — a call through libc for the DWARF unwinder's tests:
 * main -> sort_rounds -> qsort (libc) -> ... -> cmp_slow, where the
 * comparator burns CPU. Built -O2 -fomit-frame-pointer, so only CFI
 * (ours and libc's) gives the whole stack.
 *
 * Usage: unwind-qsort [SECONDS] (default 2). Prints "qsort sum=X". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINL __attribute__((noinline, noclone, used))
#define NELEM 4096

int cmp_slow(const void *a, const void *b);
uint64_t sort_rounds(uint32_t *v, double seconds);

NOINL int cmp_slow(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	volatile uint64_t burn = x;

	for (int i = 0; i < 200; i++)
		burn = burn * 6364136223846793005ull + 1442695040888963407ull;
	return (x > y) - (x < y);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINL uint64_t sort_rounds(uint32_t *v, double seconds)
{
	double end = now() + seconds;
	uint64_t sum = 0, seed = 1;

	while (now() < end) {
		for (int i = 0; i < NELEM; i++) {
			seed = seed * 6364136223846793005ull + 1;
			v[i] = (uint32_t)(seed >> 33);
		}
		qsort(v, NELEM, sizeof(*v), cmp_slow);
		sum += v[NELEM / 2];
	}
	return sum;
}

int main(int argc, char **argv)
{
	static uint32_t v[NELEM];
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;

	printf("qsort sum=%llu\n", (unsigned long long)sort_rounds(v, seconds));
	return 0;
}
