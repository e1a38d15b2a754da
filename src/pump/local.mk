# SPDX-License-Identifier: GPL-2.0-only
## src/pump/ — records from the collector or a file into the model and the
## save file (pump.h), the model's resolver over symbols + unwinder
## (resolve.h) and --unwind auto (autodwarf.h): libkppump.a.
noinst_LIBRARIES += libkppump.a
libkppump_a_SOURCES = src/pump/pump.h src/pump/pump-int.h src/pump/pump.c \
	src/pump/pump-state.h src/pump/pump-state.c src/pump/pump-save.c \
	src/pump/pump-load.c src/pump/resolve.h src/pump/resolve.c \
	src/pump/autodwarf.h src/pump/autodwarf.c \
	src/pump/resolve-code.h src/pump/resolve-code.c src/pump/resolve-jit.h src/pump/resolve-jit.c
libkppump_a_SOURCES += src/pump/python.h src/pump/python-int.h \
	src/pump/python.c src/pump/python-code.c src/pump/python-ops.c \
	src/pump/python-class.c
libkppump_a_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)

if HAVE_CMOCKA
## The pump over link-time fakes of the collector and the model.
check_PROGRAMS += tests/test-pump
TESTS += tests/test-pump
tests_test_pump_SOURCES = tests/test-pump.c src/pump/pump.h src/pump/pump-int.h \
	src/pump/pump.c src/pump/pump-state.h src/pump/pump-state.c src/pump/pump-save.c \
	src/pump/pump-load.c
tests_test_pump_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_pump_LDADD = libkpstream.a libkputil.a $(CMOCKA_LIBS)

## The auto unwind glue over a fake resolver, and link-time fakes of the
## collector's mark and the symbols layer's safe path and leaf fix.
check_PROGRAMS += tests/test-autodwarf
TESTS += tests/test-autodwarf
tests_test_autodwarf_SOURCES = tests/test-autodwarf.c src/pump/autodwarf.h \
	src/pump/autodwarf.c
tests_test_autodwarf_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_autodwarf_LDADD = $(CMOCKA_LIBS)

## Python's code objects (python.c, python-code.c) over the model and
## its fake resolver, fed as a saved stream is; the collector faked.
check_PROGRAMS += tests/test-python
TESTS += tests/test-python
tests_test_python_SOURCES = tests/test-python.c tests/model-fake.h src/pump/python.h \
	src/pump/python-int.h src/pump/python.c src/pump/python-code.c src/pump/python-ops.c \
	src/pump/python-class.c
tests_test_python_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_python_LDADD = libkpmodel.a libkpstream.a $(KP_SYMBOLS_LIBS) $(CMOCKA_LIBS)
endif

## Python frames (issue 24) end to end with Debian's python3.11 (root +
## BPF).
KP_PYTHON_SH_TESTS = tests/python-split.sh tests/python-ctypes.sh tests/python-versions.sh \
	tests/python-native.sh tests/python-deep.sh
TESTS += $(KP_PYTHON_SH_TESTS)
EXTRA_DIST += $(KP_PYTHON_SH_TESTS) tests/python-check.py tests/workload/py-split.py \
	tests/workload/py-ctypes.py tests/workload/py-deep.py
