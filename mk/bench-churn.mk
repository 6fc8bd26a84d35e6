# kmalloc cross-CPU churn benchmark (`make bench` or `make bench-churn`):
# bench/kmalloc_churn.c built once per allocator (our kmalloc and each
# malloc peer), run in interleaved rounds by bench/churn_report.py into
# $(BENCH_OUT)/kmalloc_churn.{md,json}. ~1 minute here.
.PHONY: bench-churn
BENCH_TARGETS += bench-churn

CHURN_BENCH_PEERS := glibc mimalloc jemalloc tcmalloc
CHURN_BENCH_LIBS_glibc :=
CHURN_BENCH_LIBS_mimalloc := -lmimalloc
CHURN_BENCH_LIBS_jemalloc := -ljemalloc
CHURN_BENCH_LIBS_tcmalloc := -ltcmalloc_minimal
CHURN_BENCH_BINS := $(BUILD)/bench/kmalloc_churn_kmalloc \
	$(addprefix $(BUILD)/bench/kmalloc_churn_,$(CHURN_BENCH_PEERS))
CHURN_BENCH_ROUNDS ?= $(if $(BENCH_QUICK_ON),1,3)

$(BUILD)/bench/kmalloc_churn_kmalloc: bench/kmalloc_churn.c bench/bench_util.h \
		$(BUILD)/host/plain/libmm.a $(MM_HEADERS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -DBENCH_KMALLOC -DBENCH_NAME='"kmalloc"' $< \
		$(BUILD)/host/plain/libmm.a -o $@

$(BUILD)/bench/kmalloc_churn_%: bench/kmalloc_churn.c bench/bench_util.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -DBENCH_NAME='"$*"' $< \
		$(CHURN_BENCH_LIBS_$*) -o $@

bench-churn: $(CHURN_BENCH_BINS)
	python3 bench/churn_report.py --rounds $(CHURN_BENCH_ROUNDS) \
		--out $(BENCH_OUT)/kmalloc_churn $(CHURN_BENCH_BINS)
