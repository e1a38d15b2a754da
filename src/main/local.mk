# SPDX-License-Identifier: GPL-2.0-only
## src/main/ — main, options and the batch loop: kptop itself.
bin_PROGRAMS += kptop
kptop_SOURCES = src/main/kptop.c src/main/options.h src/main/options.c
kptop_CFLAGS = $(AM_CFLAGS)
kptop_LDADD = libkptui.a libkppush.a libkpreport.a libkppump.a libkpmodel.a \
	libkpsymbols.a libkpunwind.a libkpcollect.a libkpstream.a libkputil.a \
	$(NCURSESW_LIBS) $(LIBBPF_LIBS) $(LIBELF_LIBS) $(LIBDW_LIBS) \
	$(LIBLZMA_LIBS) $(LIBIBERTY_LIBS) $(ZLIB_LIBS) $(LIBDEBUGINFOD_LIBS) $(CAPSTONE_LIBS) \
	$(LIBCURL_LIBS) -lpthread -lm

## Command-line tests: no root needed.
TESTS += tests/man-options.sh tests/cli-usage.sh tests/cli-input.sh tests/layout.sh \
	tests/man-drops.sh tests/cli-reports.sh
EXTRA_DIST += tests/man-options.sh tests/cli-usage.sh tests/cli-input.sh tests/layout.sh tests/man-drops.sh \
	tests/cli-reports.sh \
	src/README.md tests/fixtures/stream-v1.1.kps

## --baseline: a differential SVG and the live view, from synthetic
## streams (no root, no BPF).
TESTS += tests/cli-baseline.sh
EXTRA_DIST += tests/cli-baseline.sh

## --format speedscope: its schema (ajv) and its importer (headless
## Chromium), npm packages installed into tests/npm-cache (no root, no BPF).
TESTS += tests/cli-speedscope.sh
EXTRA_DIST += tests/cli-speedscope.sh
clean-local: clean-npm-cache
clean-npm-cache:
	rm -rf tests/npm-cache
.PHONY: clean-npm-cache

## A synthetic stream for the CLI tests (no root, no BPF).
check_PROGRAMS += tests/mkstream
tests_mkstream_SOURCES = tests/mkstream.c
tests_mkstream_LDADD = libkpstream.a libkputil.a

## Batch end-to-end tests: root + BPF, the known-split workload.
TESTS += tests/batch-formats.sh tests/batch-replay.sh tests/batch-sigint.sh \
	tests/batch-pprof.sh tests/batch-exited.sh tests/batch-churn.sh \
	tests/batch-fork.sh tests/batch-intervals.sh
EXTRA_DIST += tests/batch-lib.sh tests/batch-formats.sh tests/batch-replay.sh \
	tests/batch-sigint.sh tests/batch-pprof.sh tests/batch-exited.sh \
	tests/batch-churn.sh tests/batch-fork.sh tests/batch-intervals.sh

## -e / -c: page faults in a known function, the cycles fallback
## (root + BPF).
TESTS += tests/cli-event.sh
EXTRA_DIST += tests/cli-event.sh

## --off-cpu and --weight in batch, on the off-CPU workload (root + BPF).
TESTS += tests/batch-offcpu.sh tests/batch-offcpu-dwarf.sh
EXTRA_DIST += tests/batch-offcpu.sh tests/batch-offcpu-dwarf.sh
## --weight wall in one pprof: wall, cpu and off_cpu sample types (go tool pprof).
TESTS += tests/batch-wall-pprof.sh
EXTRA_DIST += tests/batch-wall-pprof.sh tests/offcpu-lib.sh
check_PROGRAMS += tests/workload/faults
tests_workload_faults_SOURCES = tests/workload/faults.c
tests_workload_faults_CFLAGS = $(AM_CFLAGS) -O2 -g -fno-omit-frame-pointer $(NOSAN_CFLAGS)

## --format svg: xmllint, the 50/30/20 widths, a headless Chromium
## screenshot checked by its pixels (png-stat).
TESTS += tests/batch-svg.sh
EXTRA_DIST += tests/batch-svg.sh
check_PROGRAMS += tests/png-stat
tests_png_stat_SOURCES = tests/png-stat.c
tests_png_stat_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
tests_png_stat_LDADD = $(ZLIB_LIBS)

## A replay of a DWARF- or auto-mode run equals the live report, every
## format (pprof compared without its time and duration: pprof-strip).
TESTS += tests/batch-replay-dwarf.sh
EXTRA_DIST += tests/batch-replay-dwarf.sh
check_PROGRAMS += tests/workload/clockspin
tests_workload_clockspin_SOURCES = tests/workload/clockspin.c
tests_workload_clockspin_CFLAGS = $(AM_CFLAGS) -O2 $(NOSAN_CFLAGS)
check_PROGRAMS += tests/pprof-strip
tests_pprof_strip_SOURCES = tests/pprof-strip.c
tests_pprof_strip_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
tests_pprof_strip_LDADD = $(ZLIB_LIBS)

## --annotate: the known lines and instructions of tests/workload/annospin.c,
## live and from a saved stream after the binary was deleted (root, BPF).
check_PROGRAMS += tests/workload/annospin
tests_workload_annospin_SOURCES = tests/workload/annospin.c
tests_workload_annospin_CFLAGS = $(AM_CFLAGS) $(KP_WORKLOAD_CFLAGS) -fno-omit-frame-pointer
TESTS += tests/batch-annotate.sh
EXTRA_DIST += tests/batch-annotate.sh
