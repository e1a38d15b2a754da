## bench/ — benchmarks (never run by `make check'): `make bench'.
bench:
.PHONY: bench
## `make check' builds them (never runs them): a change that breaks a
## benchmark's build fails there, not at the next `make bench'.
check-local: bench
