# Networking: lwIP (fetched at build time), its port and the NIC drivers.
# Included before mk/kernel.mk; appends to KERNEL_EXTRA_OBJS/KERNEL_EXTRA_CFLAGS.
# (Filled in by the networking work.)
