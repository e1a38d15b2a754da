# SPDX-License-Identifier: GPL-2.0-only
## src/model/ — the model: processes, call trees, views (model.h).
noinst_LIBRARIES += libkpmodel.a
libkpmodel_a_SOURCES = src/model/model.h src/model/model-int.h \
	src/model/model-util.h src/model/scratch.h src/model/intern.h \
	src/model/proc-int.h src/model/trie.h src/model/stk.h src/model/feed.h \
	src/model/pending.h src/model/time-int.h src/model/baseline.h \
	src/model/summary.h src/model/filter-int.h src/model/view-cache.h \
	src/model/merge.h src/model/view-int.h src/model/mem.h \
	src/model/util.c src/model/intern.c src/model/symtabs.c src/model/proc.c \
	src/model/cgroup.c src/model/feed.c \
	src/model/tree.c src/model/time.c src/model/summary.c \
	src/model/baseline.c src/model/filter.c src/model/view.c \
	src/model/view-cache.c src/model/view-group.c src/model/view-tree.c \
	src/model/view-flame.c \
	src/model/stacks.c src/model/pending.c src/model/model.c src/model/merge.c \
	src/model/mem.c src/model/fold.c src/model/rename.c \
	src/model/offcpu.h src/model/offcpu.c src/model/jitgen.h src/model/jitgen.c
libkpmodel_a_SOURCES += src/model/annot.h src/model/annotate.c src/model/codes.c

if HAVE_CMOCKA
check_PROGRAMS += tests/test-model
TESTS += tests/test-model
tests_test_model_SOURCES = tests/test-model.c tests/model-fake.h
tests_test_model_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_model_LDADD = libkpmodel.a libkputil.a $(CMOCKA_LIBS)
check_PROGRAMS += tests/test-view-cache
TESTS += tests/test-view-cache
check_PROGRAMS += tests/test-annotate
TESTS += tests/test-annotate
tests_test_annotate_SOURCES = tests/test-annotate.c tests/model-fake.h
tests_test_annotate_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_annotate_LDADD = libkpmodel.a libkputil.a $(CMOCKA_LIBS)
check_PROGRAMS += tests/test-flame
TESTS += tests/test-flame
tests_test_flame_SOURCES = tests/test-flame.c tests/model-fake.h
tests_test_flame_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_flame_LDADD = libkpmodel.a libkputil.a $(CMOCKA_LIBS)
tests_test_view_cache_SOURCES = tests/test-view-cache.c tests/model-fake.h
tests_test_view_cache_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_view_cache_LDADD = libkpmodel.a libkputil.a $(CMOCKA_LIBS)
# The same two suites with new stacks named late (kp_model_opts.defer_stacks).
check_PROGRAMS += tests/test-model-defer tests/test-view-cache-defer tests/test-pending
TESTS += tests/test-model-defer tests/test-view-cache-defer tests/test-pending
tests_test_pending_SOURCES = tests/test-pending.c tests/model-fake.h
tests_test_pending_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_pending_LDADD = libkpmodel.a libkputil.a $(CMOCKA_LIBS)
tests_test_model_defer_SOURCES = tests/test-model.c tests/model-fake.h
tests_test_model_defer_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -DKP_FAKE_DEFER
tests_test_model_defer_LDADD = libkpmodel.a libkputil.a $(CMOCKA_LIBS)
tests_test_view_cache_defer_SOURCES = tests/test-view-cache.c tests/model-fake.h
tests_test_view_cache_defer_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -DKP_FAKE_DEFER
tests_test_view_cache_defer_LDADD = libkpmodel.a libkputil.a $(CMOCKA_LIBS)
endif
if HAVE_CMOCKA
check_PROGRAMS += tests/test-churn
TESTS += tests/test-churn
tests_test_churn_SOURCES = tests/test-churn.c tests/model-fake.h
tests_test_churn_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_churn_LDADD = libkpmodel.a libkputil.a $(CMOCKA_LIBS)
endif
if HAVE_CMOCKA
check_PROGRAMS += tests/test-offcpu-frames
TESTS += tests/test-offcpu-frames
tests_test_offcpu_frames_SOURCES = tests/test-offcpu-frames.c tests/model-fake.h
tests_test_offcpu_frames_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_offcpu_frames_LDADD = libkpmodel.a libkputil.a $(CMOCKA_LIBS)
endif
