## src/model/ — the stream codec (stream.h, man/kptop-stream.5) and the fuzz replay driver.
