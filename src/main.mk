## src/kptop.c and the wiring between layers.
bin_PROGRAMS += kptop
kptop_SOURCES = src/kptop.c
kptop_CFLAGS = $(AM_CFLAGS)
kptop_LDADD = libkputil.a
