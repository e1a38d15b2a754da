# SPDX-License-Identifier: GPL-2.0-only
## bench/ — report benchmarks (not run by make check): `make bench'.
## bench/report-bench: time and size of each report format (svg and
## speedscope too) over a model
## with 100k distinct stacks. bench/report-batch.sh: kptop's own CPU per
## 1000 samples in batch mode (root; run by hand).
EXTRA_PROGRAMS += bench/report-bench
bench_report_bench_SOURCES = bench/report-bench.c
bench_report_bench_LDADD = libkpreport.a libkpmodel.a libkpstream.a libkputil.a $(ZLIB_LIBS) -lm
CLEANFILES += bench/report-bench
EXTRA_DIST += bench/report-batch.sh
bench-build: bench/report-bench
