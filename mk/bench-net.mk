# Network benchmark (`make bench-net`, part of `make bench`): iperf2 TCP
# both ways, UDP echo round trips and guest instructions per received
# packet (-icount), net_alloc=stock vs native and virtio-net vs e1000 vs
# e1000e in one run (tools/bench-net).
# Writes $(BENCH_OUT)/net.md and net.json. BENCH_NET_ARGS passes options, e.g. "--nics virtio --rounds 1".
# BENCH_QUICK=1: one round of virtio-net, native, 1 s per rate (~25 s:
# lwiperf's guest->host test lasts 10 s whatever is asked).
.PHONY: bench-net
BENCH_TARGETS += bench-net
BENCH_NET_ARGS ?= $(if $(BENCH_QUICK_ON),--seconds 1 --rounds 1 --nics virtio \
	--modes native --packets 200 --ipv6 no)

bench-net: deps-kernel $(BUILD)/kernel.elf
	tools/bench-net $(BENCH_NET_ARGS) --out $(BENCH_OUT)

# Multiqueue (`make bench-net-mq`, not part of `make bench`: needs root for
# a network namespace and a multi_queue tap, ~10 minutes): one CPU vs four
# CPUs with one queue pair vs four, iperf2 -P 4, UDP echo flows, TCP echo
# connections, the lwIP core lock's statistics and the host CPU QEMU spends
# per frame (tools/bench-net-mq). Writes build/bench/net-mq.md and .json.
# BENCH_NET_MQ_ARGS passes options, e.g. "--rounds 3 --modes native,stock";
# the shortest real run: "--configs 1x1,4x4 --rounds 1 --seconds 1" (~10 s).
.PHONY: bench-net-mq
BENCH_NET_MQ_ARGS ?=

bench-net-mq: deps-kernel $(BUILD)/kernel.elf
	tools/bench-net-mq $(BENCH_NET_MQ_ARGS)
