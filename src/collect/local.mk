# SPDX-License-Identifier: GPL-2.0-only
## src/collect/ — sources, tests and fuzz targets of the collect layer.

## The known-split workload (tests/workload/split.c), used by the collect,
## batch, TUI and unwind tests: split-fp with frame pointers, split-nofp
## without (for DWARF unwinding), split-debugframe without frame pointers
## and with its CFI in .debug_frame only (no .eh_frame for its code).
KP_WORKLOAD_CFLAGS = -O2 -g -fno-ipa-icf -fno-inline-small-functions $(NOSAN_CFLAGS)
check_PROGRAMS += tests/workload/split-fp tests/workload/split-nofp \
	tests/workload/split-debugframe
tests_workload_split_fp_SOURCES = tests/workload/split.c
tests_workload_split_fp_CFLAGS = $(AM_CFLAGS) $(KP_WORKLOAD_CFLAGS) \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
tests_workload_split_nofp_SOURCES = tests/workload/split.c
tests_workload_split_nofp_CFLAGS = $(AM_CFLAGS) $(KP_WORKLOAD_CFLAGS) \
	-fomit-frame-pointer
tests_workload_split_debugframe_SOURCES = tests/workload/split.c
tests_workload_split_debugframe_CFLAGS = $(AM_CFLAGS) $(KP_WORKLOAD_CFLAGS) \
	-fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables

## The BPF program: kptop.bpf.c -> kptop.bpf.o (clang -target bpf) ->
## kptop.skel.h (bpftool gen skeleton), both written into the build dir.
KP_BPF_CFLAGS = -g -O2 -target bpf -D__TARGET_ARCH_x86 $(BPF_ARCH_INCLUDE) \
	-I$(top_srcdir)/src -I$(top_srcdir)/src/collect -Wall -Werror
src/collect/kptop.bpf.o: $(top_srcdir)/src/collect/kptop.bpf.c \
		$(top_srcdir)/src/collect/kp_bpf.h $(top_srcdir)/src/stream/sample-flags.h \
		$(top_srcdir)/src/collect/python.bpf.h $(top_srcdir)/src/collect/common.bpf.h \
		$(top_srcdir)/src/util/py-walk.h
	@$(MKDIR_P) src/collect
	$(AM_V_GEN)$(BPF_CLANG) $(KP_BPF_CFLAGS) -c $(top_srcdir)/src/collect/kptop.bpf.c -o $@
src/collect/kptop.skel.h: src/collect/kptop.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton src/collect/kptop.bpf.o name kptop_bpf > $@.tmp \
		&& mv $@.tmp $@
BUILT_SOURCES += src/collect/kptop.skel.h
CLEANFILES += src/collect/kptop.bpf.o src/collect/kptop.skel.h src/collect/kptop.skel.h.tmp
EXTRA_DIST += src/collect/kptop.bpf.c src/collect/python.bpf.h src/collect/common.bpf.h

## The off-CPU program (--off-cpu), the same way: offcpu.skel.h.
src/collect/offcpu.bpf.o: $(top_srcdir)/src/collect/offcpu.bpf.c \
		$(top_srcdir)/src/collect/kp_bpf.h $(top_srcdir)/src/stream/sample-flags.h \
		$(top_srcdir)/src/collect/common.bpf.h $(top_srcdir)/src/util/py-walk.h
	@$(MKDIR_P) src/collect
	$(AM_V_GEN)$(BPF_CLANG) $(KP_BPF_CFLAGS) -c $(top_srcdir)/src/collect/offcpu.bpf.c -o $@
src/collect/offcpu.skel.h: src/collect/offcpu.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton src/collect/offcpu.bpf.o name offcpu_bpf > $@.tmp \
		&& mv $@.tmp $@
BUILT_SOURCES += src/collect/offcpu.skel.h
CLEANFILES += src/collect/offcpu.bpf.o src/collect/offcpu.skel.h src/collect/offcpu.skel.h.tmp
EXTRA_DIST += src/collect/offcpu.bpf.c

## The collector library.
noinst_LIBRARIES += libkpcollect.a
libkpcollect_a_SOURCES = src/collect/collect.h src/collect/kp_bpf.h \
	src/collect/queue.h src/collect/queue.c \
	src/collect/emit.h src/collect/emit.c \
	src/collect/coalesce.h src/collect/coalesce.c \
	src/collect/snapshot.h src/collect/snapshot.c \
	src/collect/sideband.h src/collect/sideband.c \
	src/collect/internal.h src/collect/bpfload.c src/collect/collect.c \
	src/collect/event.h src/collect/event.c src/collect/offcpu.c
nodist_libkpcollect_a_SOURCES = src/collect/kptop.skel.h src/collect/offcpu.skel.h
## The skeleton before the objects that include it, even for `make libkpcollect.a'.
src/collect/libkpcollect_a-bpfload.$(OBJEXT) src/collect/libkpcollect_a-collect.$(OBJEXT): \
	src/collect/kptop.skel.h
src/collect/libkpcollect_a-offcpu.$(OBJEXT): src/collect/offcpu.skel.h
libkpcollect_a_CFLAGS = $(AM_CFLAGS) $(LIBBPF_CFLAGS)
KP_COLLECT_LIBS = libkpcollect.a libkpstream.a libkputil.a $(LIBBPF_LIBS) -lpthread

if HAVE_CMOCKA
check_PROGRAMS += tests/test-queue
TESTS += tests/test-queue
tests_test_queue_SOURCES = tests/test-queue.c
tests_test_queue_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_queue_LDADD = libkpcollect.a $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/test-coalesce
TESTS += tests/test-coalesce
tests_test_coalesce_SOURCES = tests/test-coalesce.c
tests_test_coalesce_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_coalesce_LDADD = libkpcollect.a libkpstream.a libkputil.a $(CMOCKA_LIBS)
endif

## The collector's test driver (tests/collect-*.sh, bench/collect-bench.sh).
check_PROGRAMS += tests/collect-probe
tests_collect_probe_SOURCES = tests/collect-probe.c
tests_collect_probe_CFLAGS = $(AM_CFLAGS) $(LIBBPF_CFLAGS)
tests_collect_probe_LDADD = $(KP_COLLECT_LIBS)

## The off-CPU workload: spinning, pipe, nanosleep and mutex threads;
## offcpu-nofp the same without frame pointers (DWARF off-CPU stacks).
check_PROGRAMS += tests/workload/offcpu tests/workload/offcpu-nofp
tests_workload_offcpu_SOURCES = tests/workload/offcpu.c
tests_workload_offcpu_CFLAGS = $(AM_CFLAGS) $(KP_WORKLOAD_CFLAGS) -fno-omit-frame-pointer
tests_workload_offcpu_LDADD = -lpthread
tests_workload_offcpu_nofp_SOURCES = tests/workload/offcpu.c
tests_workload_offcpu_nofp_CFLAGS = $(AM_CFLAGS) $(KP_WORKLOAD_CFLAGS) -fomit-frame-pointer
tests_workload_offcpu_nofp_LDADD = -lpthread

## Switch-heavy workloads of bench/offcpu-bench.sh (built, never run).
check_PROGRAMS += tests/workload/pingpong
tests_workload_pingpong_SOURCES = tests/workload/pingpong.c
tests_workload_pingpong_CFLAGS = $(AM_CFLAGS) -O2 $(NOSAN_CFLAGS)
tests_workload_pingpong_LDADD = -lpthread

## A library dlopen'ed after collection started (tests/collect-dlopen.sh).
check_PROGRAMS += tests/workload/libkpspin.so tests/workload/dlopen-host
tests_workload_libkpspin_so_SOURCES = tests/workload/kpspin.c
tests_workload_libkpspin_so_CFLAGS = $(AM_CFLAGS) -O2 -g -fPIC -fno-omit-frame-pointer \
	$(NOSAN_CFLAGS)
tests_workload_libkpspin_so_LDFLAGS = -shared
tests_workload_dlopen_host_SOURCES = tests/workload/dlopen-host.c
tests_workload_dlopen_host_CFLAGS = $(AM_CFLAGS) $(NOSAN_CFLAGS)
tests_workload_dlopen_host_LDADD = -ldl

## Shell tests of the collector (root + BPF; exit 77 elsewhere).
KP_COLLECT_SH_TESTS = tests/collect-split.sh tests/collect-overload.sh \
	tests/collect-execstorm.sh tests/collect-dlopen.sh \
	tests/collect-stopstart.sh tests/collect-rights.sh tests/collect-filter.sh \
	tests/collect-idle.sh tests/collect-offcpu.sh tests/collect-stackcap.sh
TESTS += $(KP_COLLECT_SH_TESTS)
EXTRA_DIST += $(KP_COLLECT_SH_TESTS) tests/collect-lib.sh
