## src/util/ — the error convention shared by every layer, and the
## checked writing of every file kptop writes.
noinst_LIBRARIES += libkputil.a
libkputil_a_SOURCES = src/util/kp_err.h src/util/kp_err.c \
	src/util/safefile.h src/util/safefile.c

if HAVE_CMOCKA
## The checks and the rename of util/safefile (as any user).
check_PROGRAMS += tests/test-safefile
TESTS += tests/test-safefile
tests_test_safefile_SOURCES = tests/test-safefile.c
tests_test_safefile_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_safefile_LDADD = libkputil.a $(CMOCKA_LIBS)
endif
