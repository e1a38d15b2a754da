## src/collect/ — sources, tests and fuzz targets of the collect layer.

## The known-split workload (tests/workload/split.c), used by the collect,
## batch, TUI and unwind tests: split-fp with frame pointers, split-nofp
## without (for DWARF unwinding).
KP_WORKLOAD_CFLAGS = -O2 -g -fno-ipa-icf -fno-inline-small-functions
check_PROGRAMS += tests/workload/split-fp tests/workload/split-nofp
tests_workload_split_fp_SOURCES = tests/workload/split.c
tests_workload_split_fp_CFLAGS = $(AM_CFLAGS) $(KP_WORKLOAD_CFLAGS) \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
tests_workload_split_nofp_SOURCES = tests/workload/split.c
tests_workload_split_nofp_CFLAGS = $(AM_CFLAGS) $(KP_WORKLOAD_CFLAGS) \
	-fomit-frame-pointer
