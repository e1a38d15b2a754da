## src/kptop.c and the wiring between layers.
bin_PROGRAMS += kptop
kptop_SOURCES = src/kptop.c src/options.h src/options.c
kptop_CFLAGS = $(AM_CFLAGS)
kptop_LDADD = libkpreport.a libkputil.a -lm

## Command-line tests: no root needed.
TESTS += tests/man-options.sh tests/cli-usage.sh
EXTRA_DIST += tests/man-options.sh tests/cli-usage.sh

if HAVE_CMOCKA
## The pump over link-time fakes of the collector and the model.
check_PROGRAMS += tests/test-pump
TESTS += tests/test-pump
tests_test_pump_SOURCES = tests/test-pump.c src/pump.h src/pump-int.h \
	src/pump.c src/pump-state.h src/pump-state.c src/pump-save.c \
	src/pump-load.c
tests_test_pump_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_pump_LDADD = libkpstream.a libkputil.a $(CMOCKA_LIBS)
endif
