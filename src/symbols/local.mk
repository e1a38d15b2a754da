## src/symbols/ — sources, tests and fuzz targets of the symbols layer.
## libkpsymbols.a: ELF/DWARF names (this file) and the DWARF CFI unwinder
## (unwind.mk, included after this one, appends with +=).
noinst_LIBRARIES += libkpsymbols.a
libkpsymbols_a_SOURCES = \
	src/symbols/symbols.h src/symbols/symbols.c src/symbols/symbols-int.h \
	src/symbols/user.c src/symbols/module.h src/symbols/module.c \
	src/symbols/symtab.h src/symbols/symtab.c \
	src/symbols/elfread.h src/symbols/elfread.c \
	src/symbols/debuginfo.h src/symbols/debuginfo.c \
	src/symbols/dwarfsrc.h src/symbols/dwarfsrc.c \
	src/symbols/demangle.h src/symbols/demangle.c \
	src/symbols/kallsyms.h src/symbols/kallsyms.c \
	src/symbols/jitmap.h src/symbols/jitmap.c \
	src/symbols/procfs.h src/symbols/procfs.c
libkpsymbols_a_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(LIBLZMA_CFLAGS) $(ZLIB_CFLAGS)
## Link line for anything that uses libkpsymbols.a.
KP_SYMBOLS_LIBS = libkpsymbols.a libkputil.a $(LIBDW_LIBS) $(LIBELF_LIBS) \
	$(LIBLZMA_LIBS) $(ZLIB_LIBS) $(LIBIBERTY_LIBS)
