# In-kernel allocator benchmark (`make bench-kernel`, part of `make bench`):
# boots build/kernel.elf under QEMU -icount with bench=all (kernel/selftest/mm_bench.c)
# and writes $(BENCH_OUT)/kernel.{md,json} through bench/kernel_report.py.
# Figures are guest instructions per operation: deterministic; two boots
# check that. ~20 s here.
.PHONY: bench-kernel
BENCH_TARGETS += bench-kernel
KERNEL_BENCH_RUNS ?= $(if $(BENCH_QUICK_ON),1,2)

bench-kernel: $(BUILD)/kernel.elf
	@mkdir -p $(BENCH_OUT)
	python3 bench/kernel_report.py --qemu-run tools/qemu-run \
		--kernel $(BUILD)/kernel.elf --runs $(KERNEL_BENCH_RUNS) \
		--out $(BENCH_OUT)/kernel
