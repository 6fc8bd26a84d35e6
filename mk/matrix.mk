# make matrix: boot the kernel on every machine shape tools/matrix lists
# (CPUs, memory, NUMA layouts, CPU models, pc/q35, SeaBIOS/OVMF, -kernel,
# ISO and PXE, NICs), check the boot report, selftest=mm,smp,irq and the
# network of each, and write build/matrix.md with the boot times.
#   MATRIX_ARGS   tools/matrix options: --only NAMES, --quick, --out PATH
# make test runs `tools/matrix --quick` (tests/tools/test_matrix.py).
.PHONY: matrix
MATRIX_ARGS ?=

matrix: deps-kernel $(KERNEL_ELF) $(KERNEL_ISO) $(PXE_TEST_DIR)/boot.ipxe
	tools/matrix $(MATRIX_ARGS)
