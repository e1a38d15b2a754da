## bench/ — collect benchmarks (not run by make check).
