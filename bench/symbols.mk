## bench/ — symbols benchmarks (not run by make check): `make bench'.
## bench/symbols-bench: load time/memory of libc and libstdc++ and the
## cost per lookup of a 100k-sample profile (cold and cached).
EXTRA_PROGRAMS += bench/symbols-bench
bench_symbols_bench_SOURCES = bench/symbols-bench.c
bench_symbols_bench_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
bench_symbols_bench_LDADD = $(KP_SYMBOLS_LIBS) -ldl
CLEANFILES += bench/symbols-bench
bench-build: bench/symbols-bench
