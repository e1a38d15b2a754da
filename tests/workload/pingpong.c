// SPDX-License-Identifier: GPL-2.0-only
/* pingpong.c — switch-heavy workloads for bench/offcpu-bench.sh.
 *   pingpong pipe N      two processes pass a byte back and forth N times
 *                        through two pipes (run it under taskset -c 1 so
 *                        that every pass is a context switch)
 *   pingpong mutex T N [K]  T threads take and release one mutex N times
 *                        each, holding it for K increments and working
 *                        as long without it (default 200; thousands make
 *                        the waiters sleep on the futex, a switch each)
 * Prints "wall=SECONDS" when done. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long iters, hold = 200;
static volatile long shared;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int pipes(long n)
{
	int ab[2], ba[2];
	char c = 'x';
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	waitpid(pid, NULL, 0);
	return 0;
}

/* Held for hold increments, then as long outside: with more threads
 * than CPUs a thread finds it taken about half the time. */
static void *contend(void *a)
{
	volatile long mine = 0;

	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&lock);
		for (long k = 0; k < hold; k++)
			shared++;
		pthread_mutex_unlock(&lock);
		for (long k = 0; k < hold; k++)
			mine++;
	}
	return a;
}

static int mutexes(int t, long n)
{
	pthread_t th[64];

	iters = n;
	if (t < 1 || t > 64)
		return 1;
	for (int i = 0; i < t; i++)
		if (pthread_create(&th[i], NULL, contend, NULL))
			return 1;
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	double t0 = now();
	int rc;

	if (argc == 3 && !strcmp(argv[1], "pipe"))
		rc = pipes(atol(argv[2]));
	else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "mutex")) {
		if (argc == 5)
			hold = atol(argv[4]);
		rc = mutexes(atoi(argv[2]), atol(argv[3]));
	} else {
		fprintf(stderr, "usage: pingpong pipe N | pingpong mutex THREADS N [HOLD]\n");
		return 2;
	}
	if (!rc)
		printf("wall=%.4f\n", now() - t0);
	return rc;
}
