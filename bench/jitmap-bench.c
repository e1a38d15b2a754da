// SPDX-License-Identifier: GPL-2.0-only
/* jitmap-bench — what a big JIT map (/tmp/perf-PID.map) costs kptop's
 * symbols layer (issue 18, part 4).
 *
 *   bench/jitmap-bench [MB [PROCS]]     (default: 200 MB, 6 processes)
 * Writes a map of MB megabytes (lines like V8's --perf-basic-prof:
 * "START SIZE LazyCompile:~fn_N /srv/app/mod_N.js:N", out of address
 * order) in a temporary directory, hard-linked as the map of PROCS fake
 * processes (a fake /proc), and measures, each case in a fresh child:
 *   time   of the lookup that reads the map(s), and the time until a
 *          lookup names the code (the same when read in the caller),
 *          wall clock, and the CPU time of the whole process (every
 *          thread: on a loaded machine the wall clock says little);
 *   rss    growth of VmRSS over the child's start, and VmHWM (peak);
 *   bytes  the module's own accounting (jit_bytes), and reads/refused.
 * Cases: one process and PROCS processes, with the default budget and
 * with 1 GiB; and one process read by the reader thread with a 100 ms
 * wait (the live view's setting). Not run by make check: `make bench'
 * builds it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbols/symbols.h"

#define BASE 0x7f0000000000ull
#define STEP 0x100ull

static char dir[64];

static double clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

static long status_kb(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key) + 1);
	if (f)
		fclose(f);
	return v;
}

/* The map: about mb megabytes; returns the number of lines. */
static unsigned write_map(const char *path, unsigned mb)
{
	FILE *f = fopen(path, "w");
	unsigned long long bytes = 0, target = (unsigned long long)mb << 20;
	unsigned n = 0, i;

	if (!f)
		return 0;
	while (bytes < target) {	/* lines of ~64 bytes */
		bytes += 64;
		n++;
	}
	for (i = 0; i < n; i++) {
		unsigned k = (unsigned)(((unsigned long long)i * 2654435761u) % n);
		int len = fprintf(f, "%llx %llx LazyCompile:~fn_%u /srv/app/mod_%u.js:%u\n",
				  BASE + STEP * k, STEP, k, k % 977, k % 4099);

		if (len < 0)
			break;
	}
	fclose(f);
	return n;
}

static int lookup(struct kp_symbols *s, unsigned pid, unsigned k)
{
	struct kp_sym_map m = { .pid = pid, .proc_start = 1, .start = BASE,
				.end = BASE + (1ull << 40), .path = "//anon" };
	struct kp_sym_frame f[2];

	return kp_symbols__user(s, &m, BASE + STEP * k + 1, f, 2);
}

static void one_case(const char *what, unsigned procs, unsigned long long budget,
		     unsigned wait_ms, unsigned n)
{
	char proc_root[96];
	struct kp_symbols_opts o = { .jit_dir = dir, .proc_root = proc_root,
				     .jit_budget = budget, .jit_wait_ms = wait_ms };
	struct kp_symbols_stats st;
	struct kp_symbols *s;
	long rss0 = status_kb("VmRSS:");
	double t0 = now_ms(), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID), first = 0, named = 0;
	int ok = 1;

	snprintf(proc_root, sizeof(proc_root), "%s/proc", dir);
	s = kp_symbols__new(&o, NULL);
	if (!s)
		exit(1);
	for (unsigned p = 1; p <= procs; p++) {
		int r = lookup(s, p, (n / 2 + p) % n);

		if (p == 1)
			first = now_ms() - t0;
		for (int i = 0; r == 0 && wait_ms && i < 60000; i++) {
			usleep(1000);	/* the reader thread: until it is read */
			r = lookup(s, p, (n / 2 + p) % n);
		}
		ok &= r == 1;
	}
	named = now_ms() - t0;
	kp_symbols__stats(s, &st);
	printf("%-34s first %7.1f ms  named %7.1f ms  cpu %7.1f ms  rss +%5ld MB  "
	       "peak %5ld MB  jit_bytes %6.1f MB  reads %llu refused %llu%s\n", what,
	       first, named, clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0,
	       (status_kb("VmRSS:") - rss0) / 1024, status_kb("VmHWM:") / 1024,
	       st.jit_bytes / 1048576.0, (unsigned long long)st.jit_reads,
	       (unsigned long long)st.jit_refused, ok ? "" : "  (unnamed)");
	fflush(stdout);
	kp_symbols__free(s);
}

static void run(const char *what, unsigned procs, unsigned long long budget,
		unsigned wait_ms, unsigned n)
{
	pid_t c;

	fflush(stdout);
	c = fork();

	if (c == 0) {
		one_case(what, procs, budget, wait_ms, n);
		_exit(0);
	}
	waitpid(c, NULL, 0);
}

int main(int argc, char **argv)
{
	unsigned mb = argc > 1 ? (unsigned)atoi(argv[1]) : 200;
	unsigned procs = argc > 2 ? (unsigned)atoi(argv[2]) : 6, n;
	char path[128], link_path[128], cmd[128], what[64];
	struct stat st;

	snprintf(dir, sizeof(dir), "/tmp/kp-jitbench.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0755);
	for (unsigned p = 1; p <= procs; p++) {
		snprintf(path, sizeof(path), "%s/proc/%u", dir, p);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	n = write_map(path, mb);
	for (unsigned p = 2; p <= procs; p++) {
		snprintf(link_path, sizeof(link_path), "%s/perf-%u.map", dir, p);
		if (link(path, link_path))
			return 1;
	}
	stat(path, &st);
	printf("map: %.1f MB, %u lines; %u processes share it (hard links)\n",
	       st.st_size / 1048576.0, n, procs);
	run("1 process, default budget", 1, 0, 0, n);
	run("1 process, budget 1 GiB", 1, 1ull << 30, 0, n);
	snprintf(what, sizeof(what), "%u processes, default budget", procs);
	run(what, procs, 0, 0, n);
	snprintf(what, sizeof(what), "%u processes, budget 1 GiB", procs);
	run(what, procs, 1ull << 30, 0, n);
	run("1 process, 1 GiB, reader, 100 ms", 1, 1ull << 30, 100, n);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
