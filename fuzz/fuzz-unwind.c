/* fuzz-unwind.c — fuzz target of the DWARF unwinder: the bytes are a
 * sample as a saved stream could carry it, hostile: 8 bytes of mapping
 * base, 17 registers (DWARF numbering, little-endian), then the stack copy.
 * The CFI comes from a trusted file, the checked-in fixture
 * tests/unwind-data/split-nofp (its code segment: file offset 0x1000,
 * 0x1000 bytes), found under $top_srcdir or the source dir configured.
 * Every entry point runs: unwind, fix_leaf, reaches_entry, user_stack;
 * a fresh unwinder per input (no state between calls). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind.h"

#define NREGS 17
#define HDR (8 + NREGS * 8)

static void run(struct kp_unwinder *u, const struct kp_unwind_map *map,
		const uint64_t *regs, const uint8_t *stack, size_t len)
{
	uint64_t pcs[64], fp[65];
	enum kp_ustack_how how;
	int trunc, want, n, nfp = 0;

	n = kp_unwinder__unwind(u, 1, map, 1, regs, NREGS, stack, len, pcs, 64, &trunc);
	if (n > 64)
		__builtin_trap();
	if (n > 0 && kp_unwinder__reaches_entry(u, 1, map, 1, pcs, n) > 1)
		__builtin_trap();
	/* a frame-pointer stack made of the pc and the first stack words */
	fp[nfp++] = regs[16];
	for (size_t off = 0; off + 8 <= len && nfp < 8; off += 8, nfp++)
		memcpy(&fp[nfp], stack + off, 8);
	n = kp_unwinder__fix_leaf(u, 1, map, 1, regs, NREGS, stack, len, fp, nfp, 64);
	if (n < nfp || n > nfp + 1)
		__builtin_trap();
	n = kp_unwinder__user_stack(u, 1, map, 1, regs, NREGS, stack, len, fp, nfp,
				    pcs, 64, &trunc, &how, &want);
	if (n < 0 || n > 64)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = getenv("top_srcdir");
	char path[4096];
	struct kp_unwind_map map = { .pgoff = 0x1000, .path = path };
	uint64_t base, regs[NREGS];
	struct kp_unwinder *u;

	if (size < HDR)
		return 0;
	snprintf(path, sizeof(path), "%s/tests/unwind-data/split-nofp", dir ? dir : SRCDIR);
	memcpy(&base, data, 8);
	memcpy(regs, data + 8, sizeof(regs));
	map.start = base & 0x7ffffffff000ull;
	map.end = map.start + 0x1000;
	u = kp_unwinder__new(NULL);
	if (!u)
		return 0;
	run(u, &map, regs, data + HDR, size - HDR);
	kp_unwinder__free(u);
	return 0;
}
