# SPDX-License-Identifier: GPL-2.0-only
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
## make bench-python: what Python frames cost (issue 24): BPF time per run
## with a native and a Python workload, kptop's CPU per 1000 samples, the
## slowdown of a Python workload against perf record -g of python3.12.
EXTRA_DIST += bench/python-bench.sh bench/py-work.py
bench-python: bench-build kptop$(EXEEXT)
	bash $(top_srcdir)/bench/python-bench.sh -b $(abs_top_builddir)
.PHONY: bench-python
