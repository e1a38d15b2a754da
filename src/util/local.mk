## src/util/ — the error convention shared by every layer.
noinst_LIBRARIES += libkputil.a
libkputil_a_SOURCES = src/util/kp_err.h src/util/kp_err.c \
	src/util/crc32c.h src/util/crc32c.c
