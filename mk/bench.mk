# Benchmarks (`make bench`): host benchmarks with peers in the same run.
#
# Each area adds its own fragment mk/bench-AREA.mk that appends a phony
# target to BENCH_TARGETS. A benchmark writes build/bench/AREA.md (a section
# of tables) and build/bench/AREA.json; tools/bench-report joins them into
# bench/RESULTS.md and bench/results.json.
.PHONY: bench bench-report
BENCH_TARGETS :=
BENCH_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread \
	-Imm -Imm/host -Ibench
-include $(wildcard mk/bench-*.mk)

bench: deps-bench
	$(MAKE) $(BENCH_TARGETS)
	tools/bench-report
