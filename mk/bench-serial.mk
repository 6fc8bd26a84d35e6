# The serial fraction of the packet path (`make bench-serial`, root, ~5
# minutes; not part of `make bench`): tools/bench-serial boots the guest
# under -icount with 1, 2, 4 and 8 vCPUs and as many virtio-net queue
# pairs (RSS) on a multiqueue tap in a network namespace it creates and
# removes, once with one lwIP for every CPU (net_stack=shared) and once
# with one per CPU (net_stack=percpu), loads it with wrk (HTTP
# keep-alive), and counts the share of the packet work done holding a
# lock shared between CPUs, with the speedup Amdahl's law allows from
# it: bench/serial-fraction.{md,json}. Counted, not timed: the host's
# load does not move the figures. The insn_profile TCG plugin
# (mk/bench-insn-profile.mk) counts every vCPU's instructions exactly.
# SERIAL_ARGS passes options, e.g. SERIAL_ARGS="--cpus 1,2 --stacks percpu".
.PHONY: bench-serial
SERIAL_ARGS ?= --out bench/serial-fraction

bench-serial: deps-kernel $(BUILD)/kernel.elf $(BUILD)/tools/insn_profile.so
	tools/bench-serial $(SERIAL_ARGS)
