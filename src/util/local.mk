# SPDX-License-Identifier: GPL-2.0-only
## src/util/ — the error convention shared by every layer, and the
## checked writing of every file kptop writes.
noinst_LIBRARIES += libkputil.a
libkputil_a_SOURCES = src/util/kp_err.h src/util/kp_err.c \
	src/util/safefile.h src/util/safefile.c \
	src/util/crc32c.h src/util/crc32c.c \
	src/util/safedir.h src/util/safedir.c \
	src/util/cfi-rec.h src/util/cfi-rec.c \
	src/util/py-walk.h \
	src/util/srcline.h src/util/srcline.c \
	src/util/filemap.h src/util/filemap.c src/util/mappath.h

if HAVE_CMOCKA
## The checks and the rename of util/safefile (as any user).
check_PROGRAMS += tests/test-safefile
TESTS += tests/test-safefile
tests_test_safefile_SOURCES = tests/test-safefile.c
tests_test_safefile_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_safefile_LDADD = libkputil.a $(CMOCKA_LIBS)
## util/safedir: the private directory of a cache written by a library.
check_PROGRAMS += tests/test-safedir
TESTS += tests/test-safedir
tests_test_safedir_SOURCES = tests/test-safedir.c
tests_test_safedir_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_safedir_LDADD = libkputil.a $(CMOCKA_LIBS)
endif

## Every write of kptop refused where another user planted a link, a FIFO
## or a file (root; the fs.protected_* sysctls at 0 while it runs).
TESTS += tests/output-safe.sh
EXTRA_DIST += tests/output-safe.sh tests/safewrite-lib.sh
