# SPDX-License-Identifier: GPL-2.0-only
## src/unwind/ — DWARF CFI unwinding (unwind.h): libkpunwind.a. Needs
## libelf/libdw and util only; the symbols layer does not use it.
noinst_LIBRARIES += libkpunwind.a
libkpunwind_a_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
libkpunwind_a_SOURCES = \
	src/unwind/unwind.h src/unwind/unwind-int.h \
	src/unwind/unwind.c src/unwind/unwind-cfi.c src/unwind/unwind-expr.c \
	src/unwind/unwind-rule.c src/unwind/unwind-memo.c src/unwind/unwind-jit.c \
	src/unwind/unwind-jitcfi.c src/unwind/cfi-scan.h src/unwind/cfi-scan.c src/unwind/cfi-scan-elf.c

## Workloads of the unwinder's end-to-end tests (the split workload is
## built by src/collect/local.mk): a qsort comparator burning CPU through
## libc, a recursion deeper than the stack copy (both without frame
## pointers), and a frame-pointer build whose hot function is a frameless leaf.
KP_UNWIND_WL_CFLAGS = -O2 -g -fno-ipa-icf -fno-inline-small-functions $(NOSAN_CFLAGS)
check_PROGRAMS += tests/workload/unwind-qsort tests/workload/unwind-deep \
	tests/workload/unwind-leaf tests/workload/unwind-noret
tests_workload_unwind_qsort_SOURCES = tests/workload/unwind-qsort.c
tests_workload_unwind_qsort_CFLAGS = $(AM_CFLAGS) $(KP_UNWIND_WL_CFLAGS) -fomit-frame-pointer
tests_workload_unwind_deep_SOURCES = tests/workload/unwind-deep.c
tests_workload_unwind_deep_CFLAGS = $(AM_CFLAGS) $(KP_UNWIND_WL_CFLAGS) -fomit-frame-pointer
tests_workload_unwind_noret_SOURCES = tests/workload/unwind-noret.c
tests_workload_unwind_noret_CFLAGS = $(AM_CFLAGS) $(KP_UNWIND_WL_CFLAGS) -fomit-frame-pointer
## jitcall: generated code (frame pointer, no CFI) between C frames built
## without frame pointers, named by a perf map and a jitdump.
check_PROGRAMS += tests/workload/jitcall
tests_workload_jitcall_SOURCES = tests/workload/jitcall.c tests/jit-cfi-code.h
tests_workload_jitcall_CFLAGS = $(AM_CFLAGS) $(KP_UNWIND_WL_CFLAGS) -fomit-frame-pointer
tests_workload_unwind_leaf_SOURCES = tests/workload/unwind-leaf.c
tests_workload_unwind_leaf_CFLAGS = $(AM_CFLAGS) $(KP_UNWIND_WL_CFLAGS) \
	-fno-omit-frame-pointer -momit-leaf-frame-pointer

## The snapshot recorder (tests/unwind-data/regen.sh): built on demand.
EXTRA_PROGRAMS += tests/capture-regs
tests_capture_regs_SOURCES = tests/capture-regs.c
tests_capture_regs_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_capture_regs_LDADD = $(LIBDW_LIBS) $(LIBELF_LIBS)
CLEANFILES += tests/capture-regs

## Recorded register + stack snapshots and the fixture binaries they were
## taken from (checked in: a rebuild would move their addresses).
KP_UNWIND_SNAPSHOTS = tests/unwind-data/regen.sh \
	tests/unwind-data/split-nofp tests/unwind-data/split-nofp.snap \
	tests/unwind-data/unwind-qsort tests/unwind-data/unwind-qsort.snap \
	tests/unwind-data/unwind-deep tests/unwind-data/unwind-deep.snap \
	tests/unwind-data/unwind-leaf tests/unwind-data/unwind-leaf.snap \
	tests/unwind-data/unwind-noret tests/unwind-data/unwind-noret.snap
EXTRA_DIST += $(KP_UNWIND_SNAPSHOTS)

if HAVE_CMOCKA
check_PROGRAMS += tests/test-unwind
TESTS += tests/test-unwind
## The unwinder's sources are compiled in, as in the fuzz targets.
tests_test_unwind_SOURCES = tests/test-unwind.c tests/smaps-rss.h tests/jit-cfi-code.h src/unwind/unwind.c \
	src/unwind/unwind-jit.c src/unwind/unwind-jitcfi.c \
	src/unwind/unwind-cfi.c src/unwind/unwind-expr.c src/unwind/unwind-rule.c \
	src/unwind/unwind-memo.c src/unwind/cfi-scan.c \
	src/unwind/cfi-scan-elf.c
tests_test_unwind_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'
tests_test_unwind_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
tests_test_unwind_LDADD = libkputil.a $(LIBDW_LIBS) $(LIBELF_LIBS) $(CMOCKA_LIBS)
endif

## The end-to-end driver: collector + unwinder + symbols, no model
## (bench/unwind-bench.sh measures the pieces with it).
check_PROGRAMS += tests/unwind-drive
tests_unwind_drive_SOURCES = tests/unwind-drive.c
tests_unwind_drive_CFLAGS = $(AM_CFLAGS) $(LIBBPF_CFLAGS)
tests_unwind_drive_LDADD = libkpcollect.a libkpstream.a libkpsymbols.a libkpunwind.a libkputil.a \
	$(LIBBPF_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) $(LIBLZMA_LIBS) $(ZLIB_LIBS) \
	$(LIBIBERTY_LIBS) $(LIBDEBUGINFOD_LIBS) $(CAPSTONE_LIBS) -lpthread

## End-to-end tests with BPF (root): kptop --batch --unwind dwarf|fp
## --format folded on the workloads above.
KP_UNWIND_SH_TESTS = tests/unwind-dwarf.sh tests/unwind-leaf.sh tests/unwind-libc.sh \
	tests/unwind-deep.sh tests/unwind-auto.sh tests/unwind-jit.sh
TESTS += $(KP_UNWIND_SH_TESTS)
EXTRA_DIST += $(KP_UNWIND_SH_TESTS) tests/unwind-lib.sh

## Fuzzing the unwinder with hostile CFI (.eh_frame_hdr, .eh_frame,
## .debug_frame), registers and stack bytes: make check replays
## fuzz/corpus/unwind (made by fuzz/unwind-seeds.py); `make fuzz'
## (CC=clang --enable-fuzzing) builds it with libFuzzer.
KP_UNWIND_SRC = src/unwind/unwind.c src/unwind/unwind-cfi.c src/unwind/unwind-expr.c \
	src/unwind/unwind-rule.c src/unwind/unwind-memo.c \
	src/unwind/unwind-jit.c src/unwind/unwind-jitcfi.c \
	src/unwind/cfi-scan.c src/unwind/cfi-scan-elf.c
check_PROGRAMS += fuzz/fuzz-unwind-replay
fuzz_fuzz_unwind_replay_SOURCES = fuzz/fuzz.h fuzz/fuzz-unwind.c fuzz/replay.c $(KP_UNWIND_SRC)
fuzz_fuzz_unwind_replay_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
fuzz_fuzz_unwind_replay_LDADD = libkputil.a $(LIBDW_LIBS) $(LIBELF_LIBS)
TESTS += tests/fuzz-unwind.sh
EXTRA_DIST += tests/fuzz-unwind.sh fuzz/corpus/unwind fuzz/unwind-seeds.py
if ENABLE_FUZZING
EXTRA_PROGRAMS += fuzz/fuzz-unwind
fuzz_fuzz_unwind_SOURCES = fuzz/fuzz.h fuzz/fuzz-unwind.c $(KP_UNWIND_SRC) src/util/kp_err.c \
	src/util/cfi-rec.c
fuzz_fuzz_unwind_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) -g \
	-fsanitize=fuzzer,address,undefined
fuzz_fuzz_unwind_LDFLAGS = -fsanitize=fuzzer,address,undefined
fuzz_fuzz_unwind_LDADD = $(LIBDW_LIBS) $(LIBELF_LIBS)
fuzz_fuzz_unwind_SOURCES += src/util/filemap.c
FUZZ_TARGETS += fuzz/fuzz-unwind
CLEANFILES += fuzz/fuzz-unwind
endif
