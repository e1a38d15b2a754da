# SPDX-License-Identifier: GPL-2.0-only
## bench/ — unwind benchmarks (not run by make check): `make bench'.
EXTRA_PROGRAMS += bench/unwind-bench
bench_unwind_bench_SOURCES = bench/unwind-bench.c $(KP_UNWIND_SRC)
bench_unwind_bench_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
bench_unwind_bench_LDADD = libkputil.a $(LIBDW_LIBS) $(LIBELF_LIBS)
CLEANFILES += bench/unwind-bench
EXTRA_DIST += bench/unwind-bench.sh
bench: bench-unwind
bench-build: bench/unwind-bench
bench-unwind: bench-build
	top_srcdir='$(abs_top_srcdir)' $(SHELL) $(top_srcdir)/bench/unwind-bench.sh
.PHONY: bench-unwind
## kptop's CPU per 1000 samples on Node (--perf-basic-prof) against perf.
EXTRA_DIST += bench/jit-bench.sh
bench: bench-jit
bench-jit: bench-build
	$(SHELL) $(top_srcdir)/bench/jit-bench.sh
.PHONY: bench-jit
