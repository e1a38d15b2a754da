## bench/ — model benchmarks (not run by make check).
