## bench/ — benchmarks (never run by `make check'): `make bench'.
bench:
.PHONY: bench
