## src/model/ — the stream codec (stream.h, man/kptop-stream.5) and the fuzz replay driver.
noinst_LIBRARIES += libkpstream.a
libkpstream_a_SOURCES = \
	src/model/record.h src/model/stream.h src/model/varint.h \
	src/model/stream-enc.c src/model/stream-dec.c
