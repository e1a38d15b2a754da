/* SPDX-License-Identifier: GPL-2.0-only */
/* fuzz.h — the libFuzzer entry points every fuzz/fuzz-*.c target defines.
 *
 * A target defines LLVMFuzzerTestOneInput (and, if it needs one-time set
 * up, LLVMFuzzerInitialize). The same object links either with libFuzzer
 * (clang -fsanitize=fuzzer, `make fuzz') or with fuzz/replay.c, a main
 * that feeds it every file of a seed corpus (`make check'). A target must
 * not keep state between calls, must free all it allocates, and signals a
 * bug only by crashing (abort()), never by its return value.
 */
#ifndef KP_FUZZ_H
#define KP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif /* KP_FUZZ_H */
