// SPDX-License-Identifier: GPL-2.0-only
/* fuzz-jitdump.c — fuzz target of the jitdump reader (symbols/jitdump.h):
 * the bytes are a jitdump file (given through a memfd, as the reader
 * takes an fd), read into a table of at most 1 MiB; then every entry's
 * name, the source line at its start and the call frame information of
 * code at round addresses are looked up. A table must hold no more than
 * its limit, a name is never empty, a source line's file never NULL, call
 * frame information never empty nor longer than its limit. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/jitdump.h"
#include "symbols/jitmap.h"

#define FUZZ_TABLE_MAX (1u << 20)

static void probe(const struct kp_jittab *t)
{
	const char *file;
	uint32_t line;

	if (kp_jittab__bytes(t) > FUZZ_TABLE_MAX)
		abort();
	for (size_t i = 0; i < kp_jittab__count(t); i++)
		if (!kp_jittab__name(t, i)[0])
			abort();
	for (uint64_t a = 0; a < 0x10000; a += 0x1000) {
		const uint8_t *eh;
		size_t len;
		uint64_t at;

		if (kp_jittab__unwind(t, a, &eh, &len, &at) &&
		    (!eh || !len || len > KP_JIT_EH_MAX))
			abort();
	}
	for (uint64_t a = 0; a < 0x10000; a += 0x1001)
		if (kp_jittab__source(t, a, &file, &line) && !file)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_jittab *t = NULL;
	uint64_t bad = 0;
	int fd = memfd_create("fuzz-jitdump", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size &&
	    kp_jitdump__read(fd, FUZZ_TABLE_MAX, &t, &bad, NULL) == 0) {
		probe(t);
		kp_jittab__free(t);
	}
	close(fd);
	return 0;
}
