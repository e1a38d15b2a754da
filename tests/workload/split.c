// SPDX-License-Identifier: GPL-2.0-only
/* split.c — the known-split test workload of kptop.
 *
 * Every round spends 5 units of work in hot_a, 3 in hot_b and 2 in hot_c
 * (a 50/30/20 split of CPU time), each reached through its own call chain:
 *   main -> run_rounds -> do_round -> level1 -> level2 -> level3 -> hot_X
 * and hot_X calls a tiny finish() so that it is not a frameless leaf (a
 * frame-pointer unwind from a leaf without a frame would skip level3).
 *
 * Built by `make check` as tests/workload/split-fp (frame pointers) and
 * tests/workload/split-nofp (-fomit-frame-pointer, for the DWARF unwinder).
 * Used by the collect, batch, TUI and unwind tests.
 *
 * Usage: split [SECONDS | --rounds N] [--linger] [--quiet]
 *   SECONDS    run rounds until this much wall time has passed (default 3;
 *              fractions allowed, e.g. 0.5)
 *   --rounds N run exactly N rounds instead (one round is ~1.5 ms here)
 *   --linger   after the work, print the result line and sleep until
 *              killed, so a profiler can still read /proc/PID/maps
 *   --fork     do the work in a forked child that never execs (as a
 *              prefork server's worker); the parent waits for it
 * Prints "split pid=P rounds=R wall=S cpu=S sum=X" when the work is done.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define NOINL __attribute__((noinline, noclone, used))
/* A compiler barrier after each call: no tail calls, no merged frames. */
#define KEEP() __asm__ __volatile__("" ::: "memory")
#define UNIT_ITERS 50000u

int main(int argc, char **argv);
uint64_t finish(uint64_t v);
uint64_t hot_a(uint64_t v, uint32_t units);
uint64_t hot_b(uint64_t v, uint32_t units);
uint64_t hot_c(uint64_t v, uint32_t units);
uint64_t level3(int which, uint64_t v, uint32_t units);
uint64_t level2(int which, uint64_t v, uint32_t units);
uint64_t level1(int which, uint64_t v, uint32_t units);
uint64_t do_round(uint64_t v);
uint64_t run_rounds(uint64_t v, long *rounds, double seconds);

NOINL uint64_t finish(uint64_t v)
{
	KEEP();
	return v * 31 + 7;
}

/* The same latency-bound chain in each hot function, different constants
 * so identical code folding cannot merge them. */
/* Each call runs units * UNIT_ITERS iterations plus a pseudo-random
 * up to 1/4 more (1/8 on average), drawn the same way for every hot
 * function, so the split
 * stays 50/30/20 on average while a round never has a fixed length: a
 * fixed round near a multiple of the sampling period would phase-lock
 * with the sampling timer and bias the shares by several points. */
static uint64_t jitter(uint32_t units)
{
	static uint64_t x = 0x2545f4914f6cdd1dull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x % ((uint64_t)units * UNIT_ITERS / 4 + 1);
}

#define SPIN(K1, K2) \
	for (uint64_t i = 0, n_ = (uint64_t)units * UNIT_ITERS + jitter(units); \
	     i < n_; i++) { \
		v = (v ^ (K1)) * (K2); \
		v ^= v >> 27; \
	}

NOINL uint64_t hot_a(uint64_t v, uint32_t units)
{
	SPIN(0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull);
	v = finish(v);
	KEEP();
	return v;
}

NOINL uint64_t hot_b(uint64_t v, uint32_t units)
{
	SPIN(0x94d049bb133111ebull, 0x2545f4914f6cdd1dull);
	v = finish(v);
	KEEP();
	return v;
}

NOINL uint64_t hot_c(uint64_t v, uint32_t units)
{
	SPIN(0xd6e8feb86659fd93ull, 0xa0761d6478bd642full);
	v = finish(v);
	KEEP();
	return v;
}

NOINL uint64_t level3(int which, uint64_t v, uint32_t units)
{
	if (which == 0)
		v = hot_a(v, units);
	else if (which == 1)
		v = hot_b(v, units);
	else
		v = hot_c(v, units);
	KEEP();
	return v + 1;
}

NOINL uint64_t level2(int which, uint64_t v, uint32_t units)
{
	v = level3(which, v, units);
	KEEP();
	return v + 2;
}

NOINL uint64_t level1(int which, uint64_t v, uint32_t units)
{
	v = level2(which, v, units);
	KEEP();
	return v + 3;
}

NOINL uint64_t do_round(uint64_t v)
{
	v = level1(0, v, 5);
	v = level1(1, v, 3);
	v = level1(2, v, 2);
	KEEP();
	return v;
}

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* *rounds > 0: exactly that many; else until `seconds` of wall time.
 * *rounds is set to the number of rounds run. */
NOINL uint64_t run_rounds(uint64_t v, long *rounds, double seconds)
{
	double end = now(CLOCK_MONOTONIC) + seconds;
	long want = *rounds, r;

	for (r = 0; want <= 0 || r < want; r++) {
		v = do_round(v);
		KEEP();
		if (want <= 0 && now(CLOCK_MONOTONIC) >= end) {
			r++;
			break;
		}
	}
	*rounds = r;
	return v;
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [SECONDS | --rounds N] [--linger] [--quiet] [--fork]\n", prog);
	return 2;
}

/* --fork: 0 in the child, which goes on; in the parent the child's exit
 * status once it is done (1 if fork failed). */
static int run_child(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		return 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 2 : 1;
}

int main(int argc, char **argv)
{
	double seconds = 3.0, w0, c0;
	long rounds = 0;
	int linger = 0, quiet = 0, forked = 0;
	uint64_t v;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--linger"))
			linger = 1;
		else if (!strcmp(argv[i], "--quiet"))
			quiet = 1;
		else if (!strcmp(argv[i], "--fork"))
			forked = 1;
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atol(argv[++i]);
		else if (argv[i][0] != '-' && atof(argv[i]) > 0)
			seconds = atof(argv[i]);
		else
			return usage(argv[0]);
	}
	if (forked) {
		int r = run_child();

		if (r)	/* the parent, after the child */
			return r == 2 ? 0 : 1;
	}
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	v = run_rounds(0x5eed, &rounds, seconds);
	if (!quiet)
		printf("split pid=%d rounds=%ld wall=%.3f cpu=%.3f sum=%016llx\n",
		       (int)getpid(), rounds, now(CLOCK_MONOTONIC) - w0,
		       now(CLOCK_PROCESS_CPUTIME_ID) - c0, (unsigned long long)v);
	fflush(stdout);
	while (linger)
		pause();
	return 0;
}
