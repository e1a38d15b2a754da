# SPDX-License-Identifier: GPL-2.0-only
## src/push/ — continuous profiling: profiles pushed to Pyroscope or Parca
## (push.h), with libcurl: libkppush.a.
noinst_LIBRARIES += libkppush.a
libkppush_a_SOURCES = src/push/push.h src/push/push.c src/push/app.c \
	src/push/render.h src/push/render.c src/push/spool.h src/push/spool.c \
	src/push/http.h src/push/http.c src/push/creds.h src/push/creds.c
libkppush_a_CFLAGS = $(AM_CFLAGS) $(LIBCURL_CFLAGS)

if HAVE_CMOCKA
## The application rule, the URL, the spool's entries and directory, base64.
check_PROGRAMS += tests/test-push
TESTS += tests/test-push
tests_test_push_SOURCES = tests/test-push.c
tests_test_push_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_push_LDADD = libkppush.a libkpreport.a libkpmodel.a libkpstream.a \
	libkputil.a $(CMOCKA_LIBS) $(LIBCURL_LIBS) $(ZLIB_LIBS) -lpthread -lm
endif

## The spool entry parser under the fuzzer (seeds: fuzz/corpus/spool).
check_PROGRAMS += fuzz/fuzz-spool-replay
fuzz_fuzz_spool_replay_SOURCES = fuzz/fuzz.h fuzz/fuzz-spool.c fuzz/replay.c
fuzz_fuzz_spool_replay_LDADD = libkppush.a libkputil.a
TESTS += tests/fuzz-spool.sh
EXTRA_DIST += tests/fuzz-spool.sh fuzz/corpus/spool
if ENABLE_FUZZING
EXTRA_PROGRAMS += fuzz/fuzz-spool
fuzz_fuzz_spool_SOURCES = fuzz/fuzz.h fuzz/fuzz-spool.c src/push/spool.c
fuzz_fuzz_spool_CFLAGS = $(AM_CFLAGS) -g -fsanitize=fuzzer,address,undefined
fuzz_fuzz_spool_LDADD = libkputil.a
fuzz_fuzz_spool_LDFLAGS = -fsanitize=fuzzer,address,undefined
FUZZ_TARGETS += fuzz/fuzz-spool
CLEANFILES += fuzz/fuzz-spool
endif

## End to end against tests/push-receiver.py (root + BPF, python3, go):
## Pyroscope and Parca, the server away and back, the spool's limit, a
## slow server, and every kind of failure.
TESTS += tests/push-pyroscope.sh tests/push-parca.sh tests/push-spool.sh \
	tests/push-slow.sh tests/push-errors.sh
EXTRA_DIST += tests/push-lib.sh tests/push-receiver.py tests/push-pyroscope.sh \
	tests/push-parca.sh tests/push-spool.sh tests/push-slow.sh tests/push-errors.sh

## The agent's unit, installed disabled (man kptop(1), PUSHING): its
## ExecStart names the installed kptop.
systemdsystemunit_DATA = kptop-agent.service
EXTRA_DIST += kptop-agent.service.in
CLEANFILES += kptop-agent.service
kptop-agent.service: $(top_srcdir)/kptop-agent.service.in Makefile
	$(AM_V_GEN)sed -e 's|@bindir[@]|$(bindir)|g' $(top_srcdir)/kptop-agent.service.in >$@
AM_DISTCHECK_CONFIGURE_FLAGS = \
	--with-systemdsystemunitdir=$$dc_install_base/$(systemdsystemunitdir)

## bench/push-agent.sh: kptop's CPU and RSS as a fleet agent at 19, 99
## and 999 Hz (root; run by hand, minutes per frequency).
EXTRA_DIST += bench/push-agent.sh
