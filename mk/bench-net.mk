# Network benchmark (`make bench-net`, part of `make bench`): iperf2 TCP
# both ways, UDP echo round trips and guest instructions per received
# packet (-icount), net_alloc=stock vs native and virtio-net vs e1000 vs
# e1000e in one run (tools/bench-net).
# Writes build/bench/net.md and build/bench/net.json.
.PHONY: bench-net
BENCH_TARGETS += bench-net

bench-net: deps-kernel $(BUILD)/kernel.elf
	tools/bench-net
