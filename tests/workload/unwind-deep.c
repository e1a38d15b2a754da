// SPDX-License-Identifier: GPL-2.0-only
/* unwind-deep.c — a recursion far deeper than the copied user stack, for
 * the DWARF unwinder's tests: main -> recurse x DEPTH -> spin. Each level
 * keeps 256 bytes on the stack, so 200 levels need 50 KiB, beyond the
 * default 8 KiB copy: the unwind must stop truncated ("stack copy too
 * short"), never crash. Built -O2 -fomit-frame-pointer.
 *
 * Usage: unwind-deep [SECONDS] (default 2). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINL __attribute__((noinline, noclone, used))
#define DEPTH 200

uint64_t spin(uint64_t v);
uint64_t recurse(int depth, uint64_t v);

NOINL uint64_t spin(uint64_t v)
{
	for (int i = 0; i < 1000000; i++)
		v = (v ^ 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
	return v;
}

NOINL uint64_t recurse(int depth, uint64_t v)
{
	volatile uint8_t pad[256];

	memset((void *)pad, (int)v, sizeof(pad));
	if (depth == 0)
		return spin(v);
	v = recurse(depth - 1, v + pad[depth & 255]);
	__asm__ __volatile__("" ::: "memory");	/* no tail call */
	return v + pad[0];
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	struct timespec t0, t;
	uint64_t v = 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		v = recurse(DEPTH, v);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	printf("deep v=%llu\n", (unsigned long long)v);
	return 0;
}
