# The NUMA experiment and the queue-scaling benchmark (tools/experiment-numa):
# not part of `make bench` or `make test` (each takes 10-20 minutes under
# TCG). Both create a network namespace with multiqueue taps, run inside
# it, and remove it afterwards (also on failure or Ctrl-C).
#
# experiment-numa: q35, 2 nodes x 2 CPUs, virtio-net behind pxb-pcie on
#   node 1, rx_alloc/tx_alloc = local, device, interleave and a one-CPU
#   baseline; writes bench/experiment-numa.{md,json,png}.
# bench-scaling: 1, 2 and 4 queue pairs; our kernel with net_stack=shared
#   and net_stack=percpu and the Linux reference guest (make linux-guest);
#   on each, iperf both ways, 64 UDP echo flows, HTTP keep-alive and
#   Connection: close with wrk -c64, and the host CPU of QEMU's threads
#   and of the clients around each; writes bench/scaling.{md,json,png}.
# NUMA_ARGS passes options, e.g. NUMA_ARGS="--rounds 1 --seconds 3";
#   --kinds shared,percpu,linux picks the guests, --pairs 1,2,4 the queue
#   pair counts, --nic virtio|igb the NIC (bench-scaling only; virtio-net
#   with RSS by default, e.g. NUMA_ARGS="--nic igb --out bench/scaling-igb").
.PHONY: experiment-numa bench-scaling
NUMA_ARGS ?=

experiment-numa: deps-kernel $(BUILD)/kernel.elf
	tools/experiment-numa $(NUMA_ARGS)

bench-scaling: deps-kernel deps-vslinux $(BUILD)/kernel.elf linux-guest
	tools/experiment-numa --scaling $(NUMA_ARGS)
