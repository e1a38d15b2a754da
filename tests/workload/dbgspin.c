// SPDX-License-Identifier: GPL-2.0-only
/* dbgspin.c — the debuginfod test's workload (tests/debuginfod.sh): two
 * static functions, named only by the binary's .symtab and DWARF, which
 * the test strips, keeping them on a debuginfod server alone. Spins in
 * kp_dbgd_hot for SECS seconds (argument, default 10). */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline, noclone)) static void kp_dbgd_hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;	/* KP_DBGD_HOT_LINE */
}

__attribute__((noinline, noclone)) static void kp_dbgd_outer(unsigned long n)
{
	kp_dbgd_hot(n);
	sink++;		/* not a tail call: its frame stays */
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);

	while (time(NULL) < end)
		kp_dbgd_outer(200000 + (unsigned long)argc);
	return 0;
}
