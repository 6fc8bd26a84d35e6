# Network benchmark (`make bench-net`, part of `make bench`): iperf2 TCP
# both ways, UDP echo round trips and guest instructions per received
# packet (-icount), net_alloc=stock vs native and virtio-net vs e1000 vs
# e1000e in one run (tools/bench-net).
# Writes build/bench/net.md and build/bench/net.json.
.PHONY: bench-net
BENCH_TARGETS += bench-net

bench-net: deps-kernel $(BUILD)/kernel.elf
	tools/bench-net

# Multiqueue (`make bench-net-mq`, not part of `make bench`: needs root for
# a network namespace and a multi_queue tap, ~10 minutes): one CPU vs four
# CPUs with one queue pair vs four, iperf2 -P 4, UDP echo flows, TCP echo
# connections, the lwIP core lock's statistics and the host CPU QEMU spends
# per frame (tools/bench-net-mq). Writes build/bench/net-mq.md and .json.
# BENCH_NET_MQ_ARGS passes options, e.g. "--rounds 3 --modes native,stock".
.PHONY: bench-net-mq
BENCH_NET_MQ_ARGS ?=

bench-net-mq: deps-kernel $(BUILD)/kernel.elf
	tools/bench-net-mq $(BENCH_NET_MQ_ARGS)
