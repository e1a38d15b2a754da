## bench/ — symbols benchmarks (not run by make check).
