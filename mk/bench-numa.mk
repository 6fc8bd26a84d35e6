# The NUMA experiment and the queue-scaling benchmark (tools/experiment-numa):
# not part of `make bench` or `make test` (each takes 10-20 minutes under
# TCG). Both create a network namespace with multiqueue taps, run inside
# it, and remove it afterwards (also on failure or Ctrl-C).
#
# experiment-numa: q35, 2 nodes x 2 CPUs, virtio-net behind pxb-pcie on
#   node 1, rx_alloc/tx_alloc = local, device, interleave and a one-CPU
#   baseline; writes bench/experiment-numa.{md,json,png}.
# bench-scaling: 1, 2 and 4 queue pairs against the Linux reference guest
#   (make linux-guest); writes bench/scaling.{md,json,png}.
# NUMA_ARGS passes options, e.g. NUMA_ARGS="--rounds 1 --seconds 3".
.PHONY: experiment-numa bench-scaling
NUMA_ARGS ?=

experiment-numa: deps-kernel $(BUILD)/kernel.elf
	tools/experiment-numa $(NUMA_ARGS)

bench-scaling: deps-kernel deps-vslinux $(BUILD)/kernel.elf linux-guest
	tools/experiment-numa --scaling $(NUMA_ARGS)
