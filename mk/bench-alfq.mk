# ALF queue and qmempool benchmarks (`make bench` or `make bench-alfq`):
# bench/alf_bench.c (ALF vs DPDK rte_ring vs ck_ring) and
# bench/qmempool_bench.c (qmempool vs our slab vs glibc malloc vs DPDK
# rte_mempool), each with its peers in the same program. They write
# $(BENCH_OUT)/{alf,qmempool}.{md,json}. DPDK's EAL runs without hugepages
# (as root it starts with --no-huge --no-pci --no-shconf -m 256) under its
# own file prefix, removed afterwards.
.PHONY: bench-alfq
BENCH_TARGETS += bench-alfq

ALFQ_EAL := --no-huge --no-pci -l 0-1 --no-shconf -m 256 --no-telemetry \
	--file-prefix=alfq_bench
# DPDK's headers need GNU C (typeof, statement expressions).
ALFQ_BENCH_CFLAGS := $(filter-out -std=c11,$(BENCH_CFLAGS)) -std=gnu11
ALFQ_BENCH_BINS := $(BUILD)/bench/alf_bench $(BUILD)/bench/qmempool_bench

$(BUILD)/bench/alf_bench: bench/alf_bench.c bench/bench_util.h \
		$(BUILD)/host/plain/libmm.a $(MM_HEADERS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(ALFQ_BENCH_CFLAGS) $< $(BUILD)/host/plain/libmm.a \
		$$(pkg-config --cflags --libs libdpdk) -lck -o $@

$(BUILD)/bench/qmempool_bench: bench/qmempool_bench.c bench/bench_util.h \
		$(BUILD)/host/plain/libmm.a $(MM_HEADERS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(ALFQ_BENCH_CFLAGS) $< $(BUILD)/host/plain/libmm.a \
		$$(pkg-config --cflags --libs libdpdk) -o $@

bench-alfq: $(ALFQ_BENCH_BINS)
	rc=0; \
	mkdir -p $(BENCH_OUT); \
	$(BUILD)/bench/alf_bench $(BENCH_OUT)/alf $(ALFQ_EAL) || rc=1; \
	rm -rf /var/run/dpdk/alfq_bench; \
	$(BUILD)/bench/qmempool_bench $(BENCH_OUT)/qmempool $(ALFQ_EAL) || rc=1; \
	rm -rf /var/run/dpdk/alfq_bench; \
	exit $$rc
