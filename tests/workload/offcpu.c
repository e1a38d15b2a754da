// SPDX-License-Identifier: GPL-2.0-only
/* offcpu.c — the off-CPU workload (tests/collect-offcpu.sh, the off-CPU
 * batch and TUI tests): for SECS seconds (default 10), in one process,
 *   spinner  burns CPU in spin_here()
 *   piper    blocks in read() on a pipe, called from wait_pipe(); the
 *            feeder thread writes a byte into it every 10 ms
 *   sleeper  sleeps 20 ms at a time in nanosleep(), from nap_here()
 *   locker   waits in pthread_mutex_lock(), from take_lock(), for a
 *            mutex the holder thread keeps 30 ms of every 31
 * Each thread has its own name (pthread_setname_np), so the records of a
 * thread are found by its comm. Prints "TIDS spinner=N piper=N sleeper=N
 * locker=N feeder=N holder=N" on standard output once all run.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double end_at;
static int pipefd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile pid_t tids[6];
static volatile uint64_t sink;

void spin_here(void);
int wait_pipe(void);
void nap_here(void);
void take_lock(void);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void named(int i, const char *name)
{
	pthread_setname_np(pthread_self(), name);
	tids[i] = (pid_t)syscall(SYS_gettid);
}

__attribute__((noinline)) void spin_here(void)
{
	uint64_t v = sink;

	for (int i = 0; i < 100000; i++)
		v = v * 6364136223846793005ull + 1;
	sink = v;
}

__attribute__((noinline)) int wait_pipe(void)
{
	char c;

	return (int)read(pipefd[0], &c, 1);
}

__attribute__((noinline)) void nap_here(void)
{
	ms_sleep(20);
}

__attribute__((noinline)) void take_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

static void *spinner(void *a)
{
	named(0, "spinner");
	while (now() < end_at)
		spin_here();
	return a;
}

static void *piper(void *a)
{
	named(1, "piper");
	while (wait_pipe() == 1)
		;
	return a;
}

static void *sleeper(void *a)
{
	named(2, "sleeper");
	while (now() < end_at)
		nap_here();
	return a;
}

static void *locker(void *a)
{
	named(3, "locker");
	while (now() < end_at) {
		take_lock();
		ms_sleep(1);	/* let the holder take it again */
	}
	return a;
}

static void *feeder(void *a)
{
	named(4, "feeder");
	while (now() < end_at) {
		ms_sleep(10);
		if (write(pipefd[1], "x", 1) != 1)
			break;
	}
	close(pipefd[1]);	/* piper reads EOF and ends */
	return a;
}

static void *holder(void *a)
{
	named(5, "holder");
	while (now() < end_at) {
		pthread_mutex_lock(&lock);
		ms_sleep(30);
		pthread_mutex_unlock(&lock);
		ms_sleep(1);
	}
	return a;
}

int main(int argc, char **argv)
{
	void *(*fn[6])(void *) = { spinner, piper, sleeper, locker, feeder, holder };
	pthread_t t[6];

	end_at = now() + (argc > 1 ? atof(argv[1]) : 10);
	if (pipe(pipefd)) {
		perror("offcpu: pipe");
		return 1;
	}
	for (int i = 0; i < 6; i++)
		if (pthread_create(&t[i], NULL, fn[i], NULL)) {
			perror("offcpu: pthread_create");
			return 1;
		}
	for (int i = 0; i < 6; i++)
		while (!tids[i])
			ms_sleep(1);
	printf("TIDS spinner=%d piper=%d sleeper=%d locker=%d feeder=%d holder=%d\n",
	       tids[0], tids[1], tids[2], tids[3], tids[4], tids[5]);
	fflush(stdout);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	return 0;
}
