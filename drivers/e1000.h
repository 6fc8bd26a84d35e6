/*
 * e1000: the Intel 8254x gigabit NIC (82540EM is what QEMU's `-device
 * e1000` emulates). Probes every supported function on the PCI bus and
 * registers each as a netdev. See e1000.c; registers in e1000_regs.h.
 */
#ifndef DRIVERS_E1000_H
#define DRIVERS_E1000_H

/*
 * Tunables, each with its reason.
 *
 * E1000_RX_RING / E1000_TX_RING: descriptors per ring. 256 legacy
 * descriptors of 16 bytes fill exactly one 4 KiB page (one order-0
 * allocation, trivially aligned), the ring length is a multiple of the
 * 128 bytes the device requires, and it matches virtio-net's 256-entry
 * queues so the two drivers are compared at the same depth. Must be a
 * power of two (index wrap is a mask).
 */
#define E1000_RX_RING  256
#define E1000_TX_RING  256
/*
 * E1000_RX_BUF: bytes per RX buffer, and RCTL.BSIZE is set to match. 2048
 * is the smallest hardware size that holds a full 1514-byte frame (plus
 * the 4-byte CRC if a part does not strip it). The device may fill all
 * of it, so the stack's NETDEV_RX_HEADROOM (netdev.h) comes on top: each
 * buffer allocates E1000_RX_ALLOC (2112) bytes, 15 to a 32 KiB frag block
 * (16 without the headroom).
 */
#define E1000_RX_BUF   2048
#define E1000_RX_ALLOC (NETDEV_RX_HEADROOM + E1000_RX_BUF)
/* Most frames taken per poll call (the stack's budget is capped to it):
 * the batch waits on the stack while the ring is refilled first. */
#define E1000_POLL_MAX 64
/* Milliseconds between reads of the missed-packet counter (a register read
 * costs a device access; once a second is plenty for a statistic). */
#define E1000_STATS_MS 1000

/**
 * e1000_probe - bind every supported 8254x PCI function found, while the
 * netdev registry has room (the rest are left stopped and named).
 * @node: NUMA node of the CPU that will poll the devices: the descriptor
 * rings are allocated there (RX buffers come from the poller's own
 * per-CPU frag cache on its first poll).
 * Context: boot, after pci_init() and mm_init(), before the poll loop.
 * Return: number of devices registered (0 when none, or all failed; each
 * failure is reported on the console).
 */
int e1000_probe(int node);

#endif /* DRIVERS_E1000_H */
