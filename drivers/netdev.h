/*
 * netdev: the small interface between NIC drivers and the network stack.
 *
 * A driver fills in a struct netdev (name, MAC, ops) and registers it. The
 * stack (net/) attaches a receive callback and a TX-completion callback and
 * then only ever calls the ops. Buffers cross the interface as plain
 * (address, length) pairs: drivers know nothing of lwIP or pbufs, and the
 * stack never touches device registers. Modelled on Unikraft's uknetdev.
 *
 * Ownership:
 *  - RX: the driver hands the stack a buffer it got from napi_alloc_frag();
 *    from then on the stack owns it and frees it with page_frag_free().
 *  - TX: the stack passes a scatter list plus an opaque cookie; the driver
 *    reads the bytes (DMA) until the device is done, then gives the cookie
 *    back through tx_done. The stack frees the bytes then, not before.
 *
 * Context: everything here runs in the poll context of the one CPU that
 * polls this device (the same CPU that runs lwIP).
 */
#ifndef DRIVERS_NETDEV_H
#define DRIVERS_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETDEV_MAX	 4
#define NETDEV_MAX_SG	 16   /* segments in one transmitted frame */
#define NETDEV_FRAME_MAX 1514 /* Ethernet header + 1500 bytes MTU, no FCS */

struct netdev;

/* One TX segment: bytes at addr (identity-mapped, so also the DMA address). */
struct netdev_sg {
	const void *addr;
	uint32_t len;
};

/* Counters, read by /stats.json. Only the polling CPU writes them. */
struct netdev_stats {
	uint64_t rx_packets, rx_bytes;
	uint64_t rx_dropped;	 /* stack had no memory, or link down */
	uint64_t rx_bad_len;	 /* device reported a length we refuse */
	uint64_t rx_refill_fail; /* napi_alloc_frag() returned NULL */
	uint64_t rx_errors;	 /* device flagged the frame bad (CRC...) */
	uint64_t rx_missed;	 /* device had no free RX buffer (e1000) */
	uint64_t tx_packets, tx_bytes;
	uint64_t tx_busy;	 /* ring full: frame refused */
	uint64_t tx_completed;	 /* frames the device finished */
	uint64_t rx_bufs_posted; /* RX buffers currently owned by the device */
	uint64_t tx_inflight;	 /* frames given to the device, not yet done */
	/* completions naming a buffer the device was not given (skipped) */
	uint64_t bad_completions;
	uint64_t link_changes; /* link went up or down (e1000, e1000e) */
};

struct netdev_ops {
	/* Queue one frame of nsg segments; cookie comes back via tx_done.
	 * Returns 0, or -1 when the ring is full (nothing queued). */
	int (*xmit)(struct netdev *dev, const struct netdev_sg *sg, int nsg,
		    void *cookie);
	/* Reap completions and received frames (at most budget of them).
	 * Returns frames received plus transmissions completed (0: idle). */
	int (*poll)(struct netdev *dev, int budget);
	/* Current link state as the device reports it. */
	bool (*link_up)(struct netdev *dev);
};

struct netdev {
	char name[8];	  /* "eth0" */
	const char *kind; /* "virtio", "virtio-legacy", "e1000", "e1000e" */
	uint8_t mac[6];
	uint16_t mtu;
	int node; /* NUMA node whose CPU polls it (RX buffers come from it) */
	int dev_node; /* NUMA node of the device itself: its PCI host
			bridge's, as the firmware says (pci_dev.node) */
	const struct netdev_ops *ops;
	void *priv; /* driver state */

	/* Set by the stack before the first poll. */
	void (*rx)(struct netdev *dev, void *frame, uint32_t len);
	void (*tx_done)(struct netdev *dev, void *cookie);
	void *stack; /* the stack's per-device state (a netif) */

	struct netdev_stats stats;
};

/**
 * netdev_register - add a probed device to the list the stack binds to.
 * @dev: filled-in device; its name is assigned here ("eth0", "eth1", ...).
 * Context: boot, before the poll loops start.
 * Return: 0, or -1 when NETDEV_MAX devices are already registered.
 */
int netdev_register(struct netdev *dev);

/* Number of registered devices, and the i-th one (NULL past the end). */
int netdev_count(void);
struct netdev *netdev_get(int i);

/**
 * netdev_stats_json - the counters of every device as one JSON object
 * keyed by device name. snprintf semantics: returns the length that would
 * have been written, never writes past buf[size-1].
 */
int netdev_stats_json(char *buf, size_t size);

#endif /* DRIVERS_NETDEV_H */
