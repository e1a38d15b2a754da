## bench/ — report benchmarks (not run by make check).
