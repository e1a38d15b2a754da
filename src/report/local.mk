# SPDX-License-Identifier: GPL-2.0-only
## src/report/ — the batch report formats (report.h): libkpreport.a.
noinst_LIBRARIES += libkpreport.a
libkpreport_a_SOURCES = src/report/report.h src/report/format.c
libkpreport_a_SOURCES += src/report/report-int.h src/report/report.c \
	src/report/text.c src/report/tree.c src/report/folded.c \
	src/report/json.c src/report/pb.h src/report/pb.c src/report/pprof.c \
	src/report/outpath.c src/report/svg.c src/report/svg-js.c \
	src/report/speedscope.c
libkpreport_a_SOURCES += src/report/annotate.c
libkpreport_a_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)

if HAVE_CMOCKA
check_PROGRAMS += tests/test-report
TESTS += tests/test-report
tests_test_report_SOURCES = tests/test-report.c
tests_test_report_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(ZLIB_CFLAGS)
tests_test_report_LDADD = libkpreport.a libkpmodel.a libkpstream.a libkputil.a \
	$(CMOCKA_LIBS) $(ZLIB_LIBS) -lm
check_PROGRAMS += tests/test-svg
TESTS += tests/test-svg
tests_test_svg_SOURCES = tests/test-svg.c tests/model-fake.h
tests_test_svg_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_svg_LDADD = libkpreport.a libkpmodel.a libkpstream.a libkputil.a \
	$(CMOCKA_LIBS) $(ZLIB_LIBS) -lm
endif
