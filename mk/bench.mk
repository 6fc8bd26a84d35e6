# Benchmarks (`make bench`): host benchmarks with peers in the same run.
#
# Each area adds its own fragment mk/bench-AREA.mk that appends a phony
# target to BENCH_TARGETS. A benchmark writes $(BENCH_OUT)/AREA.md (a
# section of tables) and $(BENCH_OUT)/AREA.json; tools/bench-report joins
# them into bench/RESULTS.md and bench/results.json. A full run takes
# ~10 minutes here (the page_frag rounds ~4, the network ~3).
#
#   BENCH_OUT=DIR      each area's AREA.md/.json (default build/bench)
#   BENCH_RESULTS=DIR  RESULTS.md and results.json (default bench/, committed)
#   BENCH_QUICK=1      the shortest real run of every area (make test runs
#                      it, ~1 minute): each case measured and each table
#                      written, from one round, at most 3 runs per figure,
#                      no callgrind counts (bench/bench_util.h), one NIC
#                      and mode for a second; figures not for reading
.PHONY: bench bench-report
BENCH_TARGETS :=
BENCH_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread \
	-Imm -Imm/host -Ibench -iquote .
BENCH_OUT ?= $(BUILD)/bench
BENCH_RESULTS ?= bench
BENCH_QUICK ?= 0
# The benchmarks read it from the environment (bench_quick()).
export BENCH_QUICK
# Non-empty in a quick run: the fragments choose their knobs' defaults by it.
BENCH_QUICK_ON := $(filter-out 0,$(BENCH_QUICK))
-include $(wildcard mk/bench-*.mk)

bench: deps-bench
	@mkdir -p $(BENCH_OUT)
	$(MAKE) $(BENCH_TARGETS)
	tools/bench-report $(BENCH_OUT) $(BENCH_RESULTS)
