# SPDX-License-Identifier: GPL-2.0-only
## bench/ — tui benchmarks (not run by make check).
## bench/tui-bench: one frame (model refresh, view, draw) of each view,
## the flame graph too, with 100k functions (-n 450000: a tree of about
## 1M nodes), each after new samples, then the time to write the SVG
## flame graph of the same model; also a development driver
## (bench/tui-bench --ui).
## bench/tui-idle.sh: kptop's own CPU while idle-refreshing vs top.
EXTRA_PROGRAMS += bench/tui-bench
bench_tui_bench_SOURCES = bench/tui-bench.c tests/fake-live.h tests/fake-live.c
bench_tui_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_tui_bench_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS)
bench_tui_bench_LDADD = libkptui.a libkpreport.a libkpmodel.a libkpstream.a libkputil.a \
	$(NCURSESW_LIBS) $(ZLIB_LIBS) -lm
EXTRA_DIST += bench/tui-idle.sh
CLEANFILES += bench/tui-bench
bench-build: bench/tui-bench
## bench/tui-first-frame.sh: how soon the live view shows the hot
## function after its start (min / median of 5 runs).
EXTRA_DIST += bench/tui-first-frame.sh
## bench/annotate-cpu.sh: kptop's CPU at 999 Hz with the annotate screen
## open against the functions view (root, tmux).
EXTRA_DIST += bench/annotate-cpu.sh
