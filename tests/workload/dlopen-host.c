// SPDX-License-Identifier: GPL-2.0-only
/* dlopen-host.c — loads a library after a delay and runs code in it:
 *   dlopen-host LIBRARY [DELAY_S] [SPIN_S]
 * Sleeps DELAY_S (default 0.3), dlopens LIBRARY, calls its kp_spin(SPIN_S)
 * (default 1.0) and prints "dlopen-host pid=P". For the collector's test
 * that a library mapped after kptop started is known. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double delay = argc > 2 ? atof(argv[2]) : 0.3;
	double spin = argc > 3 ? atof(argv[3]) : 1.0;
	struct timespec ts = { (time_t)delay, (long)((delay - (long)delay) * 1e9) };
	uint64_t (*fn)(double);
	void *h;

	if (argc < 2) {
		fprintf(stderr, "usage: %s LIBRARY [DELAY_S] [SPIN_S]\n", argv[0]);
		return 2;
	}
	nanosleep(&ts, NULL);
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen-host: %s\n", dlerror());
		return 1;
	}
	*(void **)&fn = dlsym(h, "kp_spin");
	if (!fn) {
		fprintf(stderr, "dlopen-host: %s\n", dlerror());
		return 1;
	}
	printf("dlopen-host v=%llx\n", (unsigned long long)fn(spin));
	dlclose(h);
	return 0;
}
