## src/kptop.c and the wiring between layers: options, the pump
## (collector -> model -> stream file) and the batch loop.
bin_PROGRAMS += kptop
kptop_SOURCES = src/kptop.c src/options.h src/options.c \
	src/autodwarf.h src/autodwarf.c src/pump.h \
	src/pump-int.h src/pump.c src/pump-state.h src/pump-state.c \
	src/pump-save.c src/pump-load.c
kptop_CFLAGS = $(AM_CFLAGS)
kptop_LDADD = libkptui.a libkpreport.a libkpresolve.a libkpmodel.a \
	libkpsymbols.a libkpcollect.a libkpstream.a libkputil.a \
	$(NCURSESW_LIBS) $(LIBBPF_LIBS) $(LIBELF_LIBS) $(LIBDW_LIBS) \
	$(LIBLZMA_LIBS) $(LIBIBERTY_LIBS) $(ZLIB_LIBS) -lpthread -lm

## Command-line tests: no root needed.
TESTS += tests/man-options.sh tests/cli-usage.sh tests/cli-input.sh
EXTRA_DIST += tests/man-options.sh tests/cli-usage.sh tests/cli-input.sh

## A synthetic stream for the CLI tests (no root, no BPF).
check_PROGRAMS += tests/mkstream
tests_mkstream_SOURCES = tests/mkstream.c
tests_mkstream_LDADD = libkpstream.a libkputil.a

## Batch end-to-end tests: root + BPF, the known-split workload.
TESTS += tests/batch-formats.sh tests/batch-replay.sh tests/batch-sigint.sh \
	tests/batch-pprof.sh tests/batch-exited.sh tests/batch-churn.sh
EXTRA_DIST += tests/batch-lib.sh tests/batch-formats.sh tests/batch-replay.sh \
	tests/batch-sigint.sh tests/batch-pprof.sh tests/batch-exited.sh \
	tests/batch-churn.sh

if HAVE_CMOCKA
## The pump over link-time fakes of the collector and the model.
check_PROGRAMS += tests/test-pump
TESTS += tests/test-pump
tests_test_pump_SOURCES = tests/test-pump.c src/pump.h src/pump-int.h \
	src/pump.c src/pump-state.h src/pump-state.c src/pump-save.c \
	src/pump-load.c
tests_test_pump_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_pump_LDADD = libkpstream.a libkputil.a $(CMOCKA_LIBS)

## The auto unwind glue over a fake resolver, and link-time fakes of the
## collector's mark and the symbols layer's safe path and leaf fix.
check_PROGRAMS += tests/test-autodwarf
TESTS += tests/test-autodwarf
tests_test_autodwarf_SOURCES = tests/test-autodwarf.c src/autodwarf.h \
	src/autodwarf.c
tests_test_autodwarf_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_autodwarf_LDADD = $(CMOCKA_LIBS)
endif
