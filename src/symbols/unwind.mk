## src/symbols/ — DWARF CFI unwinding (unwind.h); adds to libkpsymbols.a.
libkpsymbols_a_SOURCES += \
	src/symbols/unwind.h src/symbols/unwind-int.h \
	src/symbols/unwind.c src/symbols/unwind-cfi.c src/symbols/unwind-expr.c
