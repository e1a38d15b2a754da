## bench/ — model benchmarks (not run by make check): `make bench'.
## bench/model-bench: aggregation throughput and memory on a synthetic
## stream (10M samples over 100k distinct stacks), flat/top-down view time.
EXTRA_PROGRAMS += bench/model-bench
bench_model_bench_SOURCES = bench/model-bench.c tests/model-fake.h
bench_model_bench_LDADD = libkpmodel.a libkputil.a
CLEANFILES += bench/model-bench
bench-build: bench/model-bench
