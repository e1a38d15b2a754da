// SPDX-License-Identifier: GPL-2.0-only
/* unwind-leaf.c — a frame-pointer build whose hot function is a
 * frameless leaf: main -> outer -> middle -> leaf_spin. Built -O2
 * -fno-omit-frame-pointer -momit-leaf-frame-pointer: leaf_spin sets up no
 * frame, so a frame-pointer walk from a sample in it goes from leaf_spin
 * straight to outer and loses middle, unless kptop puts it back.
 *
 * Usage: unwind-leaf [SECONDS] (default 2). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINL __attribute__((noinline, noclone, used))

uint64_t leaf_spin(uint64_t v);
uint64_t middle(uint64_t v);
uint64_t outer(double seconds);

NOINL uint64_t leaf_spin(uint64_t v)
{
	for (int i = 0; i < 2000000; i++)
		v = (v ^ 0x94d049bb133111ebull) * 0x2545f4914f6cdd1dull;
	return v;
}

NOINL uint64_t middle(uint64_t v)
{
	v = leaf_spin(v);
	__asm__ __volatile__("" ::: "memory");	/* no tail call */
	return v + 1;
}

NOINL uint64_t outer(double seconds)
{
	struct timespec t0, t;
	uint64_t v = 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		v = middle(v);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return v;
}

int main(int argc, char **argv)
{
	printf("leaf v=%llu\n", (unsigned long long)outer(argc > 1 ? atof(argv[1]) : 2.0));
	return 0;
}
