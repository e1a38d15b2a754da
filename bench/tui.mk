## bench/ — tui benchmarks (not run by make check).
