// SPDX-License-Identifier: GPL-2.0-only
/* fuzz-pycode.c — fuzz target of what kptop reads of a Python process
 * (src/symbols/pycode.h): a code object, its strings and line table in
 * the memory of a process that may be hostile, and line lookups in that
 * table.
 *
 * Input: u32 code (the code object's address), then the process's memory
 * from address 0 (put in a memfd, read with pread as /proc/PID/mem is).
 * The 3.11 layout reads it; the table read (or, failing that, the input
 * itself) is then looked up at every instruction index up to 4096 and a
 * few past its end. Then the memory at 0x2000 is read as a 3.13
 * _Py_DebugOffsets (pydebug.c) and, where it is taken, the code object
 * again with the layout it gives. fuzz/corpus/pycode holds code objects
 * as CPython 3.11 lays them out, one with such offsets (made by
 * fuzz/pycode-seeds.py). */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/pycode.h"

static void lines(const uint8_t *lt, size_t len, uint32_t first)
{
	volatile uint32_t sink = 0;

	/* the same bytes in each format: 3.11's, 3.10's, 3.8's */
	for (uint32_t i = 0; i < 4096 && i <= len * 8 + 4; i++)
		sink += kp_py__line(0x30b, lt, len, first, i) +
			kp_py__line(0x30a, lt, len, first, i) + kp_py__line(0x308, lt, len, first, i);
	sink += kp_py__line(0x30b, lt, len, first, UINT32_MAX) +
		kp_py__line(0x30a, lt, len, first, UINT32_MAX) +
		kp_py__line(0x308, lt, len, first, UINT32_MAX);
	(void)sink;
}

#define DEBUG_AT 0x2000

/* code read with l: its strings are terminated, its table looked up. */
static void read_with(int fd, const struct kp_py_layout *l, uint32_t code,
		      const uint8_t *data, size_t size)
{
	struct kp_py_code c;

	if (kp_py__read_code(fd, l, code, &c) == 0) {
		if (strlen(c.qualname) >= sizeof(c.qualname) ||
		    strlen(c.filename) >= sizeof(c.filename))
			abort();
		lines(c.linetable, c.linetable_len, c.firstlineno);
		free(c.linetable);
	} else if (data) {
		lines(data, size, 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct kp_py_layout *l = kp_py__layout(0x30b);
	struct kp_py_layout dl;
	uint32_t code;
	int fd;

	if (size < 4 || !l)
		return 0;
	memcpy(&code, data, 4);
	fd = memfd_create("fuzz-pycode", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (write(fd, data + 4, size - 4) != (ssize_t)(size - 4))
		abort();
	read_with(fd, l, code, data + 4, size - 4);
	if (kp_py__debug_layout(fd, DEBUG_AT, 0x30d, &dl) == 0)
		read_with(fd, &dl, code, NULL, 0);
	close(fd);
	return 0;
}
