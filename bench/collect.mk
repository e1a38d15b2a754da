## bench/ — collect benchmarks (not run by make check).
EXTRA_DIST += bench/collect-bench.sh
## make bench-collect: the collector against perf record / perf top.
bench-build: tests/collect-probe tests/workload/split-fp
bench-collect: bench-build
	$(SHELL) $(top_srcdir)/bench/collect-bench.sh -b $(abs_top_builddir)
bench: bench-collect
.PHONY: bench-collect
## make bench-offcpu: --off-cpu against bpftrace, perf record, BCC on a
## switch-heavy workload.
EXTRA_DIST += bench/offcpu-bench.sh
bench-build: tests/workload/pingpong
bench-offcpu: bench-build kptop
	$(SHELL) $(top_srcdir)/bench/offcpu-bench.sh -b $(abs_top_builddir)
.PHONY: bench-offcpu
