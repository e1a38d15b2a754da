# SPDX-License-Identifier: GPL-2.0-only
## bench/ — benchmarks (never run by `make check'): `make bench' builds
## them (bench-build) and runs the scripted ones.
bench: bench-build
bench-build:
.PHONY: bench bench-build
## `make check' builds them (never runs them): a change that breaks a
## benchmark's build fails there, not at the next `make bench'. A
## fragment adds what its benchmarks need to bench-build, and its runs
## to bench.
check-local: bench-build
