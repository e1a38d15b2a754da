// SPDX-License-Identifier: GPL-2.0-only
/* faults.c — a workload whose page faults all happen in one known
 * function (tests/cli-event.sh, -e page-faults): round after round,
 * fault_pages() writes a byte to every page of a fresh 8 MiB anonymous
 * mapping, which is then unmapped. Runs for SECS seconds (default 10). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAP_BYTES (8ul << 20)

void fault_pages(volatile char *p, size_t len, size_t page);

__attribute__((noinline)) void fault_pages(volatile char *p, size_t len,
					   size_t page)
{
	for (size_t i = 0; i < len; i += page)
		p[i] = 1;	/* each write a page fault */
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 10);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	while (now() < end) {
		char *p = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("faults: mmap");
			return 1;
		}
		fault_pages(p, MAP_BYTES, page);
		munmap(p, MAP_BYTES);
	}
	return 0;
}
