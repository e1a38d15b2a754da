## src/model/ — sources, tests and fuzz targets of the model layer.
noinst_LIBRARIES += libkputil.a
libkputil_a_SOURCES = src/util/kp_err.h src/util/kp_err.c
