# make soak (tools/soak), per NIC and allocator mode, on a tap in a network
# namespace (needs root): first SOAK_HOSTILE_FRAMES hostile frames (default
# 1,000,000) over every phase, paced to the guest, the guest probed and its
# buffers checked after each phase; then every load at once (iperf both
# ways, wrk, TCP and UDP echo, ping flood, hostile frames) for SOAK_SECS
# (default 600; 0 skips it). Writes bench/soak.md (SOAK_OUT: another
# file). SOAK_ARGS passes options, e.g. "--nics virtio --allocs native".
# The full run takes about an hour: 4 variants of ~13 minutes, the
# hostile stage ~3 of them (it waits out lwIP's timers after each of its
# 13 phases: ~2.5 minutes however few its frames), then SOAK_SECS. make
# test runs the shortest real soak, every load at once for 3 s and no
# hostile stage: SOAK_HOSTILE_FRAMES=0 SOAK_SECS=3 SOAK_ARGS="--nics
# virtio --allocs native" (~10 s).
.PHONY: soak
SOAK_SECS ?= 600
SOAK_HOSTILE_FRAMES ?= 1000000
SOAK_OUT ?= bench/soak.md
soak: deps-kernel $(KERNEL_ELF)
	SOAK_SECS=$(SOAK_SECS) SOAK_HOSTILE_FRAMES=$(SOAK_HOSTILE_FRAMES) \
		tools/soak --out $(SOAK_OUT) $(SOAK_ARGS)
