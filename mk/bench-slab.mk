# Slab benchmark (`make bench` or `make bench-slab`): bench/slab_bench.c
# built once per allocator (ours and each malloc peer), run in interleaved
# rounds, joined by bench/slab_report.py into $(BENCH_OUT)/slab.{md,json}.
.PHONY: bench-slab
BENCH_TARGETS += bench-slab

SLAB_BENCH_PEERS := glibc mimalloc jemalloc tcmalloc
SLAB_BENCH_LIBS_glibc :=
SLAB_BENCH_LIBS_mimalloc := -lmimalloc
SLAB_BENCH_LIBS_jemalloc := -ljemalloc
SLAB_BENCH_LIBS_tcmalloc := -ltcmalloc_minimal
SLAB_BENCH_BINS := $(BUILD)/bench/slab_bench_slab \
	$(addprefix $(BUILD)/bench/slab_bench_,$(SLAB_BENCH_PEERS))
# Rounds of the whole set; each figure is the median over rounds.
SLAB_BENCH_ROUNDS ?= $(if $(BENCH_QUICK_ON),1,3)

$(BUILD)/bench/slab_bench_slab: bench/slab_bench.c bench/bench_util.h \
		$(BUILD)/host/plain/libmm.a $(MM_HEADERS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -DBENCH_SLAB -DBENCH_NAME='"slab"' $< \
		$(BUILD)/host/plain/libmm.a -o $@

$(BUILD)/bench/slab_bench_%: bench/slab_bench.c bench/bench_util.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -DBENCH_NAME='"$*"' $< \
		$(SLAB_BENCH_LIBS_$*) -o $@

bench-slab: $(SLAB_BENCH_BINS)
	python3 bench/slab_report.py --rounds $(SLAB_BENCH_ROUNDS) \
		--out $(BENCH_OUT)/slab $(SLAB_BENCH_BINS)

# `make slab-instr`: instructions per slab/kmalloc operation on the host
# under callgrind (bench/slab_instr.c), the host twin of bench-kernel's
# -icount figures. Not part of `make bench` (no peers, no times).
.PHONY: slab-instr
$(BUILD)/bench/slab_instr: bench/slab_instr.c $(BUILD)/host/plain/libmm.a \
		$(MM_HEADERS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) $< $(BUILD)/host/plain/libmm.a -o $@

slab-instr: $(BUILD)/bench/slab_instr
	$(BUILD)/bench/slab_instr
