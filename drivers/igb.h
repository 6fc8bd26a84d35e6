/*
 * igb: Intel's server and embedded gigabit family -- the 82576 (QEMU's
 * `-device igb`), the I350 and the I210/I211 -- with advanced
 * descriptors. The part is brought up by igb_hw.c; igb.c is the
 * per-packet path. See docs/igb.md for what was tested where.
 */
#ifndef DRIVERS_IGB_H
#define DRIVERS_IGB_H

#include <stdbool.h>

/*
 * IGB_RX_RING / IGB_TX_RING: descriptors per ring. 256 advanced
 * descriptors of 16 bytes fill one 4 KiB page (one order-0 allocation on
 * the queue's node, trivially aligned to the 128 bytes the part asks),
 * as e1000's legacy rings do, so the drivers compare at the same depth.
 * Powers of two (index wrap is a mask).
 */
#define IGB_RX_RING  256
#define IGB_TX_RING  256
/*
 * IGB_RX_BUF: bytes the part may write per RX buffer (SRRCTL.BSIZEPKT =
 * 2 KiB): a whole 1514-byte frame, so every frame is one descriptor.
 * NETDEV_RX_HEADROOM comes on top, as for e1000.
 */
#define IGB_RX_BUF   2048
#define IGB_RX_ALLOC (NETDEV_RX_HEADROOM + IGB_RX_BUF)
/* Most frames one poll takes (the stack's budget is capped to it). */
#define IGB_POLL_MAX 64
/* Milliseconds between reads of the missed-packet counter. */
#define IGB_STATS_MS 1000

/**
 * igb_allow_untested - whether a part of the family this driver has not
 * been tested on (anything but QEMU's 82576) is driven (igb_untested=1)
 * or only named and stopped. Boot, before igb_probe().
 */
void igb_allow_untested(bool allow);

/**
 * igb_probe - bind every igb-family PCI function found, while the netdev
 * registry has room.
 * @queues: most queue pairs per device (queue i polled by CPU i, its
 * rings on CPU i's node); the part's own limit applies too.
 * Context: boot, after pci_init() and mm_init(), before the poll loops.
 * Return: devices registered (each failure and each part left alone is
 * reported on the console).
 */
int igb_probe(int queues);

#endif /* DRIVERS_IGB_H */
