## src/kptop.c and the wiring between layers.
bin_PROGRAMS += kptop
kptop_SOURCES = src/kptop.c src/options.h src/options.c
kptop_CFLAGS = $(AM_CFLAGS)
kptop_LDADD = libkpreport.a libkputil.a -lm

## Command-line tests: no root needed.
TESTS += tests/man-options.sh tests/cli-usage.sh
EXTRA_DIST += tests/man-options.sh tests/cli-usage.sh
