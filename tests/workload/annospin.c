// SPDX-License-Identifier: GPL-2.0-only
/* annospin.c — annotate's known answers (tests/annotate.sh).
 *
 * divloop spends its time on one source line: a loop around a 64-bit
 * division (tens of cycles of latency each, the rest of the loop next to
 * nothing), written on one line, marked DIV_LINE. splitloop runs two
 * loops of the same body, each on a line of its own (LOOP_A, LOOP_B),
 * the first three times as long as the second: 75/25 of its time.
 *
 * Usage: annospin [SECONDS]   (default 3; fractions allowed)
 * Prints "annospin pid=P sum=X" when done.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone, used))

uint64_t divloop(uint64_t n);
uint64_t splitloop(uint64_t n);

volatile uint64_t sink;
volatile uint64_t divisor = 7;

NOINL uint64_t divloop(uint64_t n)
{
	uint64_t x = n | 1, d = divisor;

	for (uint64_t i = 0; i < n; i++) x = x / d + (i << 40); /* DIV_LINE */
	return x;
}

NOINL uint64_t splitloop(uint64_t n)
{
	uint64_t a = 1, b = 1;

	for (uint64_t i = 0; i < 3 * n; i++) a = a * 6364136223846793005ull + (i ^ a >> 7); /* LOOP_A */
	for (uint64_t i = 0; i < n; i++) b = b * 6364136223846793005ull + (i ^ b >> 7); /* LOOP_B */
	return a + b;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0, end = now() + secs;

	while (now() < end) {
		sink += divloop(200000);
		sink += splitloop(400000);
	}
	printf("annospin pid=%d sum=%llu\n", (int)getpid(), (unsigned long long)sink);
	return 0;
}
