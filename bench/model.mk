# SPDX-License-Identifier: GPL-2.0-only
## bench/ — model benchmarks (not run by make check): `make bench'.
## bench/model-bench: aggregation throughput and memory on a synthetic
## stream (10M samples over 100k distinct stacks), flat/top-down view time.
EXTRA_PROGRAMS += bench/model-bench
bench_model_bench_SOURCES = bench/model-bench.c tests/model-fake.h
bench_model_bench_LDADD = libkpmodel.a libkputil.a
CLEANFILES += bench/model-bench
bench-build: bench/model-bench
## bench/churn-mem: the model's memory by structure while a saved stream
## of process churn is replayed (bench/churn-soak.sh saves one).
EXTRA_PROGRAMS += bench/churn-mem
bench_churn_mem_SOURCES = bench/churn-mem.c tests/model-fake.h
bench_churn_mem_LDADD = libkpmodel.a libkpstream.a libkputil.a
CLEANFILES += bench/churn-mem
bench-build: bench/churn-mem
## bench/annotate-bench: opening an annotation (5,000 instructions, libc's
## memcpy) cold and warm, and one refresh of it, with the real resolver.
EXTRA_PROGRAMS += bench/annotate-bench
bench_annotate_bench_SOURCES = bench/annotate-bench.c
bench_annotate_bench_CFLAGS = $(AM_CFLAGS) -O2 -fno-inline
bench_annotate_bench_LDADD = libkppump.a libkpmodel.a libkpunwind.a $(KP_SYMBOLS_LIBS) -ldl
CLEANFILES += bench/annotate-bench
bench-build: bench/annotate-bench
