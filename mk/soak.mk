# make soak (tools/soak): every load at once (iperf both ways, wrk, TCP and
# UDP echo, ping flood, hostile frames) for SOAK_SECS (default 600) per NIC
# and allocator mode, on a tap in a network namespace (needs root). Writes
# bench/soak.md. Not part of make test.
.PHONY: soak
SOAK_SECS ?= 600
soak: deps-kernel $(KERNEL_ELF)
	SOAK_SECS=$(SOAK_SECS) tools/soak $(SOAK_ARGS)
