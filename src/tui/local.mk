# SPDX-License-Identifier: GPL-2.0-only
## src/tui/ — sources, tests and fuzz targets of the tui layer.
## The live view (tui.h). Only this folder includes curses.
noinst_LIBRARIES += libkptui.a
libkptui_a_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS)
libkptui_a_SOURCES = \
	src/tui/tui.h src/tui/loop.c \
	src/tui/app.h src/tui/app.c \
	src/tui/crt.h src/tui/crt.c src/tui/term.c \
	src/tui/line.h src/tui/line.c \
	src/tui/expand.h src/tui/expand.c \
	src/tui/sig.h src/tui/sig.c \
	src/tui/header.c src/tui/table.c src/tui/help.c src/tui/prompt.c \
	src/tui/flame.h src/tui/flame.c src/tui/flame-keys.c \
	src/tui/actions.h src/tui/actions.c src/tui/views.c src/tui/mouse.c \
	src/tui/rc.h src/tui/rc.c \
	src/tui/annotate.h src/tui/annotate.c

## tmux tests of the live view (root + BPF; skip with 77 elsewhere).
TESTS += tests/tui-live.sh tests/tui-exit.sh tests/tui-term.sh tests/tui-first.sh tests/tui-mouse.sh tests/tui-rc.sh tests/readme-tour.sh
EXTRA_DIST += tests/tui-live.sh tests/tui-exit.sh tests/tui-term.sh tests/tui-first.sh tests/tui-mouse.sh tests/tui-rc.sh tests/tui-lib.sh tests/readme-tour.sh
## The flame graph: widths, zoom, search, flip, 80x24, NO_COLOR (root + BPF).
TESTS += tests/tui-flame.sh
EXTRA_DIST += tests/tui-flame.sh
## The annotate screen: a, the hot line and instruction, s, Esc (root + BPF).
TESTS += tests/tui-annotate.sh
EXTRA_DIST += tests/tui-annotate.sh
## The w key refuses another user's links, FIFOs and files (root + BPF).
TESTS += tests/tui-save-safe.sh
EXTRA_DIST += tests/tui-save-safe.sh
TESTS += tests/tui-offcpu.sh
EXTRA_DIST += tests/tui-offcpu.sh
## P: Python functions / native stacks (root + BPF, python3.11).
TESTS += tests/tui-python.sh tests/tui-python-drops.sh tests/tui-python-unknown.sh
EXTRA_DIST += tests/tui-python.sh tests/tui-python-drops.sh tests/tui-python-unknown.sh

## Unit tests of the view without a terminal: fakes of the model,
## collector and pump are linked in from the test itself.
if HAVE_CMOCKA
check_PROGRAMS += tests/test-tui
TESTS += tests/test-tui
tests_test_tui_SOURCES = tests/test-tui.c tests/fake-live.h tests/fake-live.c
tests_test_tui_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_tui_LDADD = libkptui.a libkpstream.a libkputil.a $(NCURSESW_LIBS) $(CMOCKA_LIBS)
endif
