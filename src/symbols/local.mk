# SPDX-License-Identifier: GPL-2.0-only
## src/symbols/ — sources, tests and fuzz targets of the symbols layer.
## libkpsymbols.a: ELF/DWARF names, kernel symbols, JIT maps (the DWARF CFI
## unwinder is src/unwind/, libkpunwind.a).
noinst_LIBRARIES += libkpsymbols.a
libkpsymbols_a_SOURCES = \
	src/symbols/symbols.h src/symbols/symbols.c src/symbols/symbols-int.h \
	src/symbols/user.c src/symbols/module.h src/symbols/module.c \
	src/symbols/symtab.h src/symbols/symtab.c \
	src/symbols/elfread.h src/symbols/elfread.c \
	src/symbols/fdetab.h src/symbols/fdetab.c \
	src/symbols/debuginfo.h src/symbols/debuginfo.c \
	src/symbols/dwarfsrc.h src/symbols/dwarfsrc.c \
	src/symbols/dwarfidx.h src/symbols/dwarfidx.c \
	src/symbols/dwlines.h src/symbols/dwlines.c \
	src/symbols/demangle.h src/symbols/demangle.c \
	src/symbols/kallsyms.h src/symbols/kallsyms.c \
	src/symbols/jitmap.h src/symbols/jitmap.c src/symbols/jitcache.c \
	src/symbols/jitname.h src/symbols/jitname.c \
	src/symbols/jitdump.h src/symbols/jitdump.c \
	src/symbols/jitworker.h src/symbols/jitworker.c \
	src/symbols/procfs.h src/symbols/procfs.c
libkpsymbols_a_SOURCES += src/symbols/disasm.h src/symbols/disasm.c
libkpsymbols_a_SOURCES += src/symbols/buildid.h src/symbols/buildid.c
libkpsymbols_a_SOURCES += src/symbols/dwcache.h src/symbols/dwcache.c
libkpsymbols_a_SOURCES += src/symbols/pycode.h src/symbols/pycode.c \
	src/symbols/pylayout.c src/symbols/pydebug.c
libkpsymbols_a_SOURCES += src/symbols/debuginfod.h src/symbols/debuginfod.c \
	src/symbols/remote.c
libkpsymbols_a_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(LIBLZMA_CFLAGS) \
	$(ZLIB_CFLAGS) $(LIBDEBUGINFOD_CFLAGS) $(CAPSTONE_CFLAGS)
## Link line for anything that uses libkpsymbols.a.
KP_SYMBOLS_LIBS = libkpsymbols.a libkputil.a $(LIBDW_LIBS) $(LIBELF_LIBS) \
	$(LIBLZMA_LIBS) $(ZLIB_LIBS) $(LIBIBERTY_LIBS) $(LIBDEBUGINFOD_LIBS) $(CAPSTONE_LIBS) -lpthread

## Test fixtures: known functions, built for `make check' into the build
## dir; mkvariants.sh makes the stripped / separate-debug variants.
check_PROGRAMS += tests/fixtures/fx-prog-nopie tests/fixtures/fx-prog-pie \
	tests/fixtures/libfx.so
tests_fixtures_fx_prog_nopie_SOURCES = tests/fixtures/fx-prog.c
tests_fixtures_fx_prog_nopie_CFLAGS = -O2 -g -fno-pie
tests_fixtures_fx_prog_nopie_LDFLAGS = -no-pie
tests_fixtures_fx_prog_pie_SOURCES = tests/fixtures/fx-prog.c
tests_fixtures_fx_prog_pie_CFLAGS = -O2 -g -fPIE
tests_fixtures_fx_prog_pie_LDFLAGS = -pie
tests_fixtures_libfx_so_SOURCES = tests/fixtures/fx-lib.c
tests_fixtures_libfx_so_CFLAGS = -O2 -g -fPIC
tests_fixtures_libfx_so_LDFLAGS = -shared
EXTRA_DIST += tests/fixtures/mkvariants.sh
## ... and with its DWARF compressed (zlib), as Debian's -dbg packages are:
## the persistent DWARF cache's case (tests/test-dwcache).
check_PROGRAMS += tests/fixtures/fx-prog-gz
tests_fixtures_fx_prog_gz_SOURCES = tests/fixtures/fx-prog.c
tests_fixtures_fx_prog_gz_CFLAGS = -O2 -g -gz=zlib -fPIE
tests_fixtures_fx_prog_gz_LDFLAGS = -pie -Wl,--compress-debug-sections=zlib -Wl,--build-id

## Code only .eh_frame can name: static functions, stripped whole
## (tests/fixtures/fx-fde.c); the unstripped build says where they start.
check_PROGRAMS += tests/fixtures/fx-fde
tests_fixtures_fx_fde_SOURCES = tests/fixtures/fx-fde.c
tests_fixtures_fx_fde_CFLAGS = -O2 -fno-pie -fno-omit-frame-pointer
tests_fixtures_fx_fde_LDFLAGS = -no-pie
check_DATA += tests/fixtures/fx-fde-stripped
tests/fixtures/fx-fde-stripped: tests/fixtures/fx-fde$(EXEEXT)
	$(AM_V_GEN)$${STRIP:-strip} -s -o $@ tests/fixtures/fx-fde$(EXEEXT)
CLEANFILES += tests/fixtures/fx-fde-stripped
## ... and through the batch reports (root, BPF): one row per function.
TESTS += tests/symbols-fde.sh
EXTRA_DIST += tests/symbols-fde.sh

check_DATA += tests/fixtures/fx-variants.stamp
tests/fixtures/fx-variants.stamp: tests/fixtures/fx-prog-pie$(EXEEXT) \
		tests/fixtures/fx-prog-nopie$(EXEEXT) $(top_srcdir)/tests/fixtures/mkvariants.sh
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/tests/fixtures/mkvariants.sh \
		tests/fixtures/fx-prog-pie$(EXEEXT) tests/fixtures \
		tests/fixtures/fx-prog-nopie$(EXEEXT) && touch $@
CLEANFILES += tests/fixtures/fx-variants.stamp tests/fixtures/fx-debuglink \
	tests/fixtures/fx-debuglink.debug tests/fixtures/fx-buildid \
	tests/fixtures/fx-mini tests/fixtures/fx-wrong.debug \
	tests/fixtures/debug/.build-id/*/*.debug

if HAVE_CMOCKA
check_PROGRAMS += tests/test-symbols
TESTS += tests/test-symbols
tests_test_symbols_SOURCES = tests/test-symbols.c tests/smaps-rss.h tests/elf-section.h
tests_test_symbols_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_test_symbols_LDADD = $(KP_SYMBOLS_LIBS) $(CMOCKA_LIBS) -ldl
check_PROGRAMS += tests/test-disasm
TESTS += tests/test-disasm
tests_test_disasm_SOURCES = tests/test-disasm.c
tests_test_disasm_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_disasm_LDADD = $(KP_SYMBOLS_LIBS) $(CMOCKA_LIBS)
check_PROGRAMS += tests/test-pycode
TESTS += tests/test-pycode
tests_test_pycode_SOURCES = tests/test-pycode.c
tests_test_pycode_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_pycode_LDADD = $(KP_SYMBOLS_LIBS) $(CMOCKA_LIBS)
check_PROGRAMS += tests/test-buildid
TESTS += tests/test-buildid
tests_test_buildid_SOURCES = tests/test-buildid.c
tests_test_buildid_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(LIBELF_CFLAGS)
tests_test_buildid_LDADD = $(KP_SYMBOLS_LIBS) $(CMOCKA_LIBS)
## The compact line tables against libdw's, and a module that ends
## libdw's state as it grows.
check_PROGRAMS += tests/test-dwlines
TESTS += tests/test-dwlines
tests_test_dwlines_SOURCES = tests/test-dwlines.c tests/elf-section.h
tests_test_dwlines_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_test_dwlines_LDADD = $(KP_SYMBOLS_LIBS) $(CMOCKA_LIBS)
## The persistent DWARF cache, on a fixture whose DWARF is compressed.
check_PROGRAMS += tests/test-dwcache
TESTS += tests/test-dwcache
tests_test_dwcache_SOURCES = tests/test-dwcache.c
tests_test_dwcache_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(LIBELF_CFLAGS)
tests_test_dwcache_LDADD = $(KP_SYMBOLS_LIBS) $(CMOCKA_LIBS)
endif

## Root tests: a deleted/replaced binary, a workload in a private mount
## namespace (symbols-probe names a function of a running process).
check_PROGRAMS += tests/symbols-probe
tests_symbols_probe_SOURCES = tests/symbols-probe.c
tests_symbols_probe_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_symbols_probe_LDADD = $(KP_SYMBOLS_LIBS)
TESTS += tests/symbols-deleted.sh tests/symbols-mntns.sh
EXTRA_DIST += tests/symbols-deleted.sh tests/symbols-mntns.sh

## Perf maps (good, junk, refused) of code run in anonymous memory: the
## counters in every report format and in the live view's header.
check_PROGRAMS += tests/workload/jitspin
tests_workload_jitspin_SOURCES = tests/workload/jitspin.c
TESTS += tests/jit-maps.sh
EXTRA_DIST += tests/jit-maps.sh
TESTS += tests/jit-reuse.sh
EXTRA_DIST += tests/jit-reuse.sh
## A real JIT: node --perf-basic-prof (runtime names, whole chains).
TESTS += tests/jit-node.sh
EXTRA_DIST += tests/jit-node.sh
## A real JVM, where a JDK is installed (jcmd Compiler.perfmap).
TESTS += tests/jit-java.sh
EXTRA_DIST += tests/jit-java.sh
## The perf map of a process in its own pid and mount namespace (jitcall,
## built in src/unwind/local.mk), and a symlink planted there.
TESTS += tests/jit-container.sh
EXTRA_DIST += tests/jit-container.sh
## CPython 3.12+ -X perf, where one is installed (skipped otherwise).
TESTS += tests/jit-python.sh
EXTRA_DIST += tests/jit-python.sh

## Debug files fetched from debuginfod servers: Debian's debuginfod over
## the debug file of a stripped workload, one that is down, one that
## never answers and one that answers late (tests/dbgd-sock).
check_PROGRAMS += tests/workload/dbgspin tests/dbgd-sock
tests_workload_dbgspin_SOURCES = tests/workload/dbgspin.c
tests_workload_dbgspin_CFLAGS = $(AM_CFLAGS) $(KP_WORKLOAD_CFLAGS) -fno-omit-frame-pointer
tests_dbgd_sock_SOURCES = tests/dbgd-sock.c
TESTS += tests/debuginfod.sh
EXTRA_DIST += tests/debuginfod.sh

## Fuzzing the ELF/symbol reader: make check replays fuzz/corpus/elf;
## `make fuzz' (CC=clang --enable-fuzzing) builds it with libFuzzer.
check_PROGRAMS += fuzz/fuzz-elf-replay
fuzz_fuzz_elf_replay_SOURCES = fuzz/fuzz.h fuzz/fuzz-elf.c fuzz/replay.c
fuzz_fuzz_elf_replay_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
fuzz_fuzz_elf_replay_LDADD = $(KP_SYMBOLS_LIBS)
TESTS += tests/fuzz-elf.sh
EXTRA_DIST += tests/fuzz-elf.sh fuzz/corpus/elf

## Fuzzing the jitdump reader: make check replays fuzz/corpus/jitdump
## (made by fuzz/jitdump-seeds.py).
check_PROGRAMS += fuzz/fuzz-jitdump-replay
fuzz_fuzz_jitdump_replay_SOURCES = fuzz/fuzz.h fuzz/fuzz-jitdump.c fuzz/replay.c
fuzz_fuzz_jitdump_replay_LDADD = $(KP_SYMBOLS_LIBS)
TESTS += tests/fuzz-jitdump.sh
EXTRA_DIST += tests/fuzz-jitdump.sh fuzz/corpus/jitdump fuzz/jitdump-seeds.py
if ENABLE_FUZZING
EXTRA_PROGRAMS += fuzz/fuzz-jitdump
fuzz_fuzz_jitdump_SOURCES = fuzz/fuzz.h fuzz/fuzz-jitdump.c src/symbols/jitdump.c \
	src/symbols/jitmap.c src/symbols/procfs.c
fuzz_fuzz_jitdump_CFLAGS = $(AM_CFLAGS) -g -fsanitize=fuzzer,address,undefined
fuzz_fuzz_jitdump_LDFLAGS = -fsanitize=fuzzer,address,undefined
FUZZ_TARGETS += fuzz/fuzz-jitdump
CLEANFILES += fuzz/fuzz-jitdump
endif

if ENABLE_FUZZING
EXTRA_PROGRAMS += fuzz/fuzz-elf
fuzz_fuzz_elf_SOURCES = fuzz/fuzz.h fuzz/fuzz-elf.c $(libkpsymbols_a_SOURCES) \
	src/util/kp_err.c src/util/cfi-rec.c src/util/safedir.c
fuzz_fuzz_elf_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) -g \
	-fsanitize=fuzzer,address,undefined
fuzz_fuzz_elf_LDFLAGS = -fsanitize=fuzzer,address,undefined
fuzz_fuzz_elf_LDADD = $(LIBDW_LIBS) $(LIBELF_LIBS) $(LIBLZMA_LIBS) $(ZLIB_LIBS) \
	$(LIBIBERTY_LIBS) $(LIBDEBUGINFOD_LIBS) $(CAPSTONE_LIBS) -lpthread
fuzz_fuzz_elf_SOURCES += src/util/filemap.c
FUZZ_TARGETS += fuzz/fuzz-elf
CLEANFILES += fuzz/fuzz-elf
endif

## Fuzzing the Python code object reader and line tables (pycode.h):
## make check replays fuzz/corpus/pycode (fuzz/pycode-seeds.py made it).
check_PROGRAMS += fuzz/fuzz-pycode-replay
fuzz_fuzz_pycode_replay_SOURCES = fuzz/fuzz.h fuzz/fuzz-pycode.c fuzz/replay.c
fuzz_fuzz_pycode_replay_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
fuzz_fuzz_pycode_replay_LDADD = $(KP_SYMBOLS_LIBS)
TESTS += tests/fuzz-pycode.sh
EXTRA_DIST += tests/fuzz-pycode.sh fuzz/corpus/pycode fuzz/pycode-seeds.py
## The CPython layouts against the installed headers of those versions.
TESTS += tests/py-layout.sh
EXTRA_DIST += tests/py-layout.sh tests/py-layout.c

if ENABLE_FUZZING
EXTRA_PROGRAMS += fuzz/fuzz-pycode
fuzz_fuzz_pycode_SOURCES = fuzz/fuzz.h fuzz/fuzz-pycode.c src/symbols/pycode.h \
	src/symbols/pycode.c src/symbols/pylayout.c src/symbols/pydebug.c src/symbols/elfread.h \
	src/symbols/elfread.c src/symbols/symtab.h src/symbols/symtab.c src/symbols/demangle.c \
	src/util/kp_err.c
fuzz_fuzz_pycode_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) -g \
	-fsanitize=fuzzer,address,undefined
fuzz_fuzz_pycode_LDFLAGS = -fsanitize=fuzzer,address,undefined
fuzz_fuzz_pycode_LDADD = $(LIBELF_LIBS) $(LIBIBERTY_LIBS)
FUZZ_TARGETS += fuzz/fuzz-pycode
CLEANFILES += fuzz/fuzz-pycode
endif
