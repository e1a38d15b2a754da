## src/report/ — the batch report formats (report.h): libkpreport.a.
noinst_LIBRARIES += libkpreport.a
libkpreport_a_SOURCES = src/report/report.h src/report/format.c
libkpreport_a_SOURCES += src/report/report-int.h src/report/report.c \
	src/report/text.c src/report/tree.c src/report/folded.c \
	src/report/json.c src/report/pb.h src/report/pb.c src/report/pprof.c
libkpreport_a_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
