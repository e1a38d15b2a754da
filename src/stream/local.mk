# SPDX-License-Identifier: GPL-2.0-only
## src/stream/ — the record vocabulary (record.h), the stream codec (stream.h, man/kptop-stream.5) and the fuzz replay driver.
noinst_LIBRARIES += libkpstream.a
libkpstream_a_SOURCES = \
	src/stream/record.h src/stream/sample-flags.h src/stream/stream.h src/stream/varint.h src/stream/stream-rd.h \
	src/stream/stream-blk.h src/stream/stream-blk.c \
	src/stream/stream-enc.c src/stream/stream-dec.c \
	src/stream/lost.h src/stream/lost.c

if HAVE_CMOCKA
check_PROGRAMS += tests/test-stream
TESTS += tests/test-stream
tests_test_stream_SOURCES = tests/test-stream.c
tests_test_stream_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_stream_LDADD = libkpstream.a libkputil.a $(CMOCKA_LIBS)
endif

## Fuzzing the decoder: make check replays fuzz/corpus/stream through the
## target linked with fuzz/replay.c; `make fuzz' (configure CC=clang
## --enable-fuzzing) builds it with libFuzzer. tests/gen-stream-seeds
## regenerates the synthetic seeds (not run by make check).
check_PROGRAMS += fuzz/fuzz-stream-replay
fuzz_fuzz_stream_replay_SOURCES = fuzz/fuzz.h fuzz/fuzz-stream.c fuzz/replay.c
fuzz_fuzz_stream_replay_LDADD = libkpstream.a libkputil.a
TESTS += tests/fuzz-stream.sh
EXTRA_DIST += tests/fuzz-stream.sh tests/fuzz-replay.sh fuzz/corpus/stream fuzz/README.md
EXTRA_PROGRAMS += tests/gen-stream-seeds
tests_gen_stream_seeds_SOURCES = tests/gen-stream-seeds.c
tests_gen_stream_seeds_LDADD = libkpstream.a libkputil.a
CLEANFILES += tests/gen-stream-seeds

if ENABLE_FUZZING
EXTRA_PROGRAMS += fuzz/fuzz-stream
fuzz_fuzz_stream_SOURCES = fuzz/fuzz.h fuzz/fuzz-stream.c \
	src/stream/stream-enc.c src/stream/stream-dec.c src/stream/stream-blk.c \
	src/util/kp_err.c src/util/crc32c.c
fuzz_fuzz_stream_CFLAGS = $(AM_CFLAGS) -g -fsanitize=fuzzer,address,undefined
fuzz_fuzz_stream_LDFLAGS = -fsanitize=fuzzer,address,undefined
FUZZ_TARGETS += fuzz/fuzz-stream
CLEANFILES += fuzz/fuzz-stream
endif

## bench/stream-bench: codec cost per record (`make bench').
EXTRA_PROGRAMS += bench/stream-bench
bench_stream_bench_SOURCES = bench/stream-bench.c
bench_stream_bench_LDADD = libkpstream.a libkputil.a
CLEANFILES += bench/stream-bench
bench-build: bench/stream-bench
