## src/symbols/ — sources, tests and fuzz targets of the symbols layer.
## libkpsymbols.a: ELF/DWARF names (this file) and the DWARF CFI unwinder
## (unwind.mk, included after this one, appends with +=).
noinst_LIBRARIES += libkpsymbols.a
libkpsymbols_a_SOURCES = \
	src/symbols/symbols.h src/symbols/symbols.c
libkpsymbols_a_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(LIBLZMA_CFLAGS)
