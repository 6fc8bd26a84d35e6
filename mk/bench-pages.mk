# Page allocator benchmark: PCP vs buddy lists, cross-CPU frees, bulk
# allocation, glibc malloc and mmap for context. Writes
# $(BENCH_OUT)/pages.md and pages.json.
.PHONY: bench-pages
BENCH_TARGETS += bench-pages

$(BUILD)/bench/page_alloc_bench: bench/page_alloc_bench.c bench/bench_util.h \
		$(BUILD)/host/plain/libmm.a $(MM_HEADERS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) $< $(BUILD)/host/plain/libmm.a -o $@

bench-pages: $(BUILD)/bench/page_alloc_bench
	@mkdir -p $(BENCH_OUT)
	$< $(BENCH_OUT)/pages.md $(BENCH_OUT)/pages.json
