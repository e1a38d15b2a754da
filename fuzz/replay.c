// SPDX-License-Identifier: GPL-2.0-only
/* replay.c — runs a fuzz target's LLVMFuzzerTestOneInput over files.
 *
 * Usage: NAME-replay PATH...  where each PATH is a file or a directory
 * whose regular files (not recursive, hidden files skipped) are inputs.
 * Each input is read into a buffer of exactly its size, so that a build
 * with -fsanitize=address catches a read one byte past the end. Exits 0
 * when every input ran (a bug in the target crashes it), 1 when a path
 * cannot be read, no input was found at all, or an input ran longer than
 * REPLAY_INPUT_S seconds (as libFuzzer's -timeout: a slow input is a
 * finding too; it is named on stderr).
 *
 * Linked with any fuzz/fuzz-*.c in place of libFuzzer; see fuzz/fuzz.h.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define REPLAY_INPUT_S 2

/* The input being run, for the alarm's message (main's program only). */
static const char *running;

static void on_alarm(int sig)
{
	static const char msg[] = "replay: input ran longer than the limit: ";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) >= 0 && write(2, running, strlen(running)) >= 0)
		(void)!write(2, "\n", 1);
	_exit(1);
}

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return 0;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf = NULL;
	int rc = -1;

	if (!f || fstat(fileno(f), &st) < 0)
		goto out;
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf)
		goto out;
	if (st.st_size && fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		goto out;
	running = path;
	alarm(REPLAY_INPUT_S);
	LLVMFuzzerTestOneInput(buf, (size_t)st.st_size);
	alarm(0);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno ? errno : EIO));
	free(buf);
	if (f)
		fclose(f);
	return rc;
}

/* Runs every regular file of dir; returns the count or -1. */
static long run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	struct stat st;
	long n = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (run_file(path) < 0) {
			n = -1;
			break;
		}
		n++;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	struct stat st;
	long total = 0, n;
	int i;

	signal(SIGALRM, on_alarm);
	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) ? -1 : 1;
		if (n < 0)
			return 1;
		total += n;
	}
	if (total == 0) {
		fprintf(stderr, "replay: no inputs in %s\n", argc > 1 ? argv[1] : "(no paths)");
		return 1;
	}
	printf("replay: %ld inputs ran\n", total);
	return 0;
}
