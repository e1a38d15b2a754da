## src/model/ — the stream codec (stream.h, man/kptop-stream.5) and the fuzz replay driver.
noinst_LIBRARIES += libkpstream.a
libkpstream_a_SOURCES = \
	src/model/record.h src/model/stream.h src/model/varint.h \
	src/model/stream-enc.c src/model/stream-dec.c

if HAVE_CMOCKA
check_PROGRAMS += tests/test-stream
TESTS += tests/test-stream
tests_test_stream_SOURCES = tests/test-stream.c
tests_test_stream_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_stream_LDADD = libkpstream.a libkputil.a $(CMOCKA_LIBS)
endif
