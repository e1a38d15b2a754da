## bench/ — unwind benchmarks (not run by make check).
