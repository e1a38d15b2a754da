# SPDX-License-Identifier: GPL-2.0-only
## bench/ — symbols benchmarks (not run by make check): `make bench'.
## bench/symbols-bench: load time/memory of libc and libstdc++ and the
## cost per lookup of a 100k-sample profile (cold and cached).
EXTRA_PROGRAMS += bench/symbols-bench
bench_symbols_bench_SOURCES = bench/symbols-bench.c
bench_symbols_bench_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
bench_symbols_bench_LDADD = $(KP_SYMBOLS_LIBS) -ldl
CLEANFILES += bench/symbols-bench
bench-build: bench/symbols-bench
## bench/jitmap-bench: time and memory of a 200 MB perf map, for one
## process and six sharing it (hard links), within the JIT budget or not.
EXTRA_PROGRAMS += bench/jitmap-bench
bench_jitmap_bench_SOURCES = bench/jitmap-bench.c
bench_jitmap_bench_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
bench_jitmap_bench_LDADD = $(KP_SYMBOLS_LIBS)
CLEANFILES += bench/jitmap-bench
bench-build: bench/jitmap-bench
## bench/dwcache-bench: the CPU time of a first full name of libc with no
## DWARF cache, a cold one and a warm one (the persistent DWARF cache).
## bench/dwcache-live.sh: the live view's CPU in its first 10 s, cold and
## warm (root, tmux, libc6-dbg).
EXTRA_PROGRAMS += bench/dwcache-bench
bench_dwcache_bench_SOURCES = bench/dwcache-bench.c
bench_dwcache_bench_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
bench_dwcache_bench_LDADD = $(KP_SYMBOLS_LIBS) -ldl
CLEANFILES += bench/dwcache-bench
EXTRA_DIST += bench/dwcache-live.sh
bench-build: bench/dwcache-bench
