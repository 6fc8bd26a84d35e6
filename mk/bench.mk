# Benchmarks (`make bench`): host benchmarks with peers in the same run.
# (Filled in by the page-allocator work.)
.PHONY: bench
bench:
