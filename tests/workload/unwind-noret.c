// SPDX-License-Identifier: GPL-2.0-only
/* unwind-noret.c — a call to a noreturn function as the last instruction
 * of its caller, for the DWARF unwinder's tests: main -> run -> spin_exit.
 * The return address into run lies just past run's end (in padding or the
 * next function), so the unwinder must look the caller's CFI up at
 * return address - 1. Built -O2 -fomit-frame-pointer.
 *
 * Usage: unwind-noret [SECONDS] (default 2). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone, used))

void spin_exit(uint64_t v, double seconds) __attribute__((noreturn));
void run(double seconds);

NOINL void spin_exit(uint64_t v, double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			v = (v ^ 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	printf("noret v=%llu\n", (unsigned long long)v);
	fflush(stdout);
	_exit(0);
}

NOINL void run(double seconds)
{
	spin_exit((uint64_t)getpid() * 7, seconds);
}

int main(int argc, char **argv)
{
	run(argc > 1 ? atof(argv[1]) : 2.0);
}
