// SPDX-License-Identifier: GPL-2.0-only
/* jitspin.c — "JIT" code for the perf-map tests: a spin loop copied into
 * anonymous executable memory, named by /tmp/perf-PID.map, run for
 * SECONDS (default 30).
 *
 *   jitspin MODE [SECONDS]
 * MODE good: the map names the loop jit_spin_loop;
 *      junk: the same line, after JUNK_LINES lines that do not parse;
 *      link: the map is a symlink to such a file (kptop refuses it);
 *      reuse: the map names the loop jit_gen_old; on SIGUSR1, the loop is
 *      written again in its place and a line naming it jit_gen_new is
 *      appended (a runtime that put other code where code was; the
 *      last line at an address wins), and "reused" printed.
 * Prints "ready PID" once the map is written; removes its files at exit
 * (SIGTERM/SIGINT included). x86-64 only: exits 77 elsewhere. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define JUNK_LINES 3

static char map_path[64], real_path[64];
static volatile sig_atomic_t stop, replace;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		replace = 1;
	else
		stop = 1;
}

static int write_map(const char *path, const char *how, void *code, int junk,
		     const char *name)
{
	FILE *f = fopen(path, how);

	if (!f)
		return -1;
	for (int i = 0; junk && i < JUNK_LINES; i++)
		fprintf(f, "not a perf map line %d\n", i);
	fprintf(f, "%lx 40 %s\n", (unsigned long)(uintptr_t)code, name);
	return fclose(f);
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* mov ecx, 0x100000; 1: dec ecx; jnz 1b; ret */
	static const unsigned char loop[] = { 0xb9, 0x00, 0x00, 0x10, 0x00,
					      0xff, 0xc9, 0x75, 0xfc, 0xc3 };
	const char *mode = argc > 1 ? argv[1] : "good";
	int secs = argc > 2 ? atoi(argv[2]) : 30;
	int reuse = strcmp(mode, "reuse") == 0;
	struct sigaction sa;
	time_t end;
	void *code;
	int rc;

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("jitspin: mmap");
		return 1;
	}
	memcpy(code, loop, sizeof(loop));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	if (strcmp(mode, "link") == 0) {
		snprintf(real_path, sizeof(real_path), "/tmp/jitspin-%d.map", (int)getpid());
		rc = write_map(real_path, "w", code, 0, "jit_spin_loop") ||
		     symlink(real_path, map_path);
	} else {
		rc = write_map(map_path, "w", code, strcmp(mode, "junk") == 0,
			       reuse ? "jit_gen_old" : "jit_spin_loop");
	}
	if (rc) {
		perror("jitspin: writing the map");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	end = time(NULL) + secs;
	while (!stop && time(NULL) < end) {
		if (reuse == 1 && replace) {
			memcpy(code, loop, sizeof(loop));	/* "compiled" again */
			if (write_map(map_path, "a", code, 0, "jit_gen_new"))
				perror("jitspin: appending to the map");
			printf("reused\n");
			fflush(stdout);
			reuse = 2;
		}
		((void (*)(void))code)();
	}
	unlink(map_path);
	if (real_path[0])
		unlink(real_path);
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jitspin: x86-64 only\n");
	return 77;
#endif
}
