## src/report/ — the batch report formats (report.h): libkpreport.a.
noinst_LIBRARIES += libkpreport.a
libkpreport_a_SOURCES = src/report/report.h src/report/format.c
