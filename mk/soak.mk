# make soak (tools/soak), per NIC and allocator mode, on a tap in a network
# namespace (needs root): first SOAK_HOSTILE_FRAMES hostile frames (default
# 1,000,000) over every phase, paced to the guest, the guest probed and its
# buffers checked after each phase; then every load at once (iperf both
# ways, wrk, TCP and UDP echo, ping flood, hostile frames) for SOAK_SECS
# (default 600; 0 skips it). Writes bench/soak.md. Not part of make test.
.PHONY: soak
SOAK_SECS ?= 600
SOAK_HOSTILE_FRAMES ?= 1000000
soak: deps-kernel $(KERNEL_ELF)
	SOAK_SECS=$(SOAK_SECS) SOAK_HOSTILE_FRAMES=$(SOAK_HOSTILE_FRAMES) \
		tools/soak $(SOAK_ARGS)
