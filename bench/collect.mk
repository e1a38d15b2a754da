## bench/ — collect benchmarks (not run by make check).
EXTRA_DIST += bench/collect-bench.sh
## make bench-collect: the collector against perf record / perf top.
bench-build: tests/collect-probe tests/workload/split-fp
bench-collect: bench-build
	$(SHELL) $(top_srcdir)/bench/collect-bench.sh -b $(abs_top_builddir)
bench: bench-collect
.PHONY: bench-collect
