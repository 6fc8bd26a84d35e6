# Networking: lwIP (fetched at build time), its port and the NIC drivers.
# Included before mk/kernel.mk; appends to KERNEL_EXTRA_OBJS/KERNEL_EXTRA_CFLAGS.
# (Filled in by the networking work.)

# tests/host/test_e1000.c compiles drivers/e1000.c and drivers/netdev.c
# into itself (it plays the NIC against the driver's rings): rebuild it
# when they change.
$(foreach v,$(HOST_VARIANTS) plain asan tsan,$(BUILD)/host/$(v)/tests/test_e1000): \
	$(wildcard drivers/e1000*.[ch] drivers/netdev.[ch] drivers/drv_port.h drivers/pci.h)
