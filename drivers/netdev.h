/*
 * netdev: the small interface between NIC drivers and the network stack.
 *
 * A driver fills in a struct netdev (name, MAC, its queues, ops) and
 * registers it. The stack (net/) attaches a receive callback and a
 * TX-completion callback and then only ever calls the ops. Buffers cross
 * the interface as plain (address, length) pairs: drivers know nothing of
 * lwIP or pbufs, and the stack never touches device registers. Modelled
 * on Unikraft's uknetdev.
 *
 * Queues. A device has nqueues RX/TX queue pairs (1 for a single-queue
 * NIC, one per CPU for a multiqueue virtio-net or igb). Queue i belongs
 * to the CPU in queues[i].cpu (the driver puts i on CPU i and allocates
 * its rings on that CPU's node); the stack polls each queue from a poller
 * on that CPU only. A CPU beyond nqueues owns no queue of the device.
 *
 * Receive-side scaling (a device with rss_table_len > 0, igb): the
 * device hashes each frame's flow (Toeplitz, under rss_key, over the IP
 * addresses and the TCP/UDP ports), hands the frame to the queue that
 * entry hash % rss_table_len of its redirection table names, and the
 * hash up with the frame (NETDEV_RX_HASH_*). The stack chooses the table
 * (set_rss_table), so a flow's frames reach the CPU that owns its
 * connection; rss_table is what the device holds now.
 *
 * Ownership:
 *  - RX: the driver hands the stack a buffer it got from napi_alloc_frag()
 *    on the queue's CPU; from then on the stack owns it and frees it with
 *    page_frag_free() (on whichever CPU lets go of it).
 *  - TX: the stack passes a scatter list plus an opaque cookie; the driver
 *    reads the bytes (DMA) until the device is done, then gives the cookie
 *    back through tx_done. The stack frees the bytes then, not before.
 *
 * Context, per queue:
 *  - rx_poll (and the rx callback it makes) runs only on the queue's CPU,
 *    in poll context, with no lock: the RX half of a queue has exactly one
 *    user.
 *  - xmit and tx_reap (and the tx_done callback they make) run under the
 *    stack's one guard of TX state (net/'s lwIP core lock): normally on
 *    the queue's own CPU, which sends its traffic on its own queue; a CPU
 *    that owns no queue of this device borrows one (netdev_tx_queue()),
 *    and the guard keeps that safe.
 *  - link_up: any CPU, any time (it reads the device).
 */
#ifndef DRIVERS_NETDEV_H
#define DRIVERS_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NICs bound, eth0..eth15: a server's ports with room to spare. A driver
 * asks netdev_room() before it brings a NIC up; one past the limit is left
 * stopped and named in one boot line (netdev_report_left_out). */
#define NETDEV_MAX	    16
#define NETDEV_MAX_SG	    16	 /* segments in one transmitted frame */
#define NETDEV_FRAME_MAX    1514 /* Ethernet header + 1500 bytes MTU, no FCS */
/* A received TCP segment coalesced by the device (virtio GUEST_TSO4/6) is
 * at most 65535 bytes (a pbuf's tot_len), handed up as a chain of at most
 * this many buffers (NETDEV_RX_MORE). */
#define NETDEV_RX_BIG_MAX   65535
#define NETDEV_RX_CHAIN_MAX 34
/*
 * Every buffer a driver hands up (the rx callback's frame) has at least
 * NETDEV_RX_HEADROOM bytes of its own napi_alloc_frag() allocation in
 * front of it, which the device never writes and the stack may use: the
 * native RX path keeps the frame's pbuf there (net/net_mem.c), so lwIP
 * grows a reply's headers in place instead of allocating a header pbuf.
 * Drivers post each RX buffer that far into what they allocated.
 */
#define NETDEV_RX_HEADROOM  64

/* rx callback flags. */
#define NETDEV_RX_CSUM_OK \
	1u		     /* TCP/UDP checksum checked (or not needed:
			      * the frame never crossed a wire) */
#define NETDEV_RX_MORE	  2u /* the frame continues in the next buffer */
/* The rx callback's hash is the device's flow hash of the frame: over the
 * IP addresses (L3), or over the addresses and TCP/UDP ports (L4). With
 * neither flag the hash is 0 and means nothing (virtio-net, e1000). */
#define NETDEV_RX_HASH_L3 4u
#define NETDEV_RX_HASH_L4 8u

/* netdev.offloads: what the driver does for the stack. */
#define NETDEV_OFF_TX_CSUM \
	1u			/* fills the TCP/UDP checksum of IPv4
			       * frames: the stack leaves it */
#define NETDEV_OFF_RX_CSUM   2u /* may flag RX frames NETDEV_RX_CSUM_OK */
#define NETDEV_OFF_RX_BIG    4u /* may hand up chains of NETDEV_RX_MORE */
/*
 * TSO of large segments: xmit takes a TCP segment of this family (IPv4,
 * IPv6) whose IP datagram is longer than mtu (a "large segment", at most
 * 65535 bytes, in at most NETDEV_MAX_SG pieces) and has the device cut
 * it into segments of mtu - (IP and TCP headers) payload bytes each, a
 * FIN at the end (on the last, or just after it: igb) and PSH on the
 * last. One xmit and one device frame for what would be many: the stack
 * may build such segments only while the bit is set.
 * Any frame longer than the MTU that the driver cannot cut (another
 * family, not an ACK data segment with at most PSH and FIN besides) is
 * refused (-1, counted in tx_bad_len), never sent as it is.
 */
#define NETDEV_OFF_TSO4	     8u
#define NETDEV_OFF_TSO6	     16u
/* Queue pairs per device: one per CPU up to this many. 16 covers the
 * machines this kernel is run on (QEMU tests use 4); CPUs beyond the
 * pairs own no queue and leave the packet work to those that do. */
#define NETDEV_MAX_QUEUES    16
/* RSS: the longest redirection table (igb's 128 entries) and the key
 * (40 bytes: enough for the IPv6 addresses and ports the hash covers). */
#define NETDEV_RSS_TABLE_MAX 128
#define NETDEV_RSS_KEY_LEN   40

/*
 * The RSS key a driver programs unless the stack chooses another: the one
 * the RSS verification examples in Intel's and Microsoft's documents use
 * (DPDK's default too), so a hash a device reports can be checked against
 * the published vectors. It is public, so a sender who wants to can aim
 * many flows at one queue.
 */
extern const uint8_t netdev_rss_default_key[NETDEV_RSS_KEY_LEN];

struct netdev;

/* One TX segment: bytes at addr (identity-mapped, so also the DMA address). */
struct netdev_sg {
	const void *addr;
	uint32_t len;
};

/*
 * Counters of one queue, read by /stats.json (without a lock; each field
 * is a naturally aligned 64-bit word with one writer at a time). The RX
 * half is written by the queue's CPU in rx_poll, the TX half under the
 * stack's TX guard. The device's totals are the sums over its queues.
 */
struct netdev_stats {
	/* RX half: the queue's CPU */
	uint64_t rx_packets, rx_bytes;
	uint64_t rx_dropped;	 /* stack had no memory, or link down */
	uint64_t rx_bad_len;	 /* device reported a length we refuse */
	uint64_t rx_refills;	 /* buffers posted to the ring (ever) */
	uint64_t rx_refill_fail; /* napi_alloc_frag() returned NULL */
	uint64_t rx_errors;	 /* device flagged the frame bad (CRC...) */
	uint64_t rx_missed;	 /* device had no free RX buffer (e1000) */
	uint64_t rx_bufs_posted; /* RX buffers currently owned by the device */
	/* RX completions naming a buffer the device was not given (skipped) */
	uint64_t rx_bad_completions;
	/* TX half: under the stack's TX guard */
	uint64_t tx_packets, tx_bytes;
	uint64_t tx_busy; /* ring full: frame refused */
	/* frame refused as no frame the driver may send: longer than the
	 * MTU and not a large segment it can cut (NETDEV_OFF_TSO4/6), or a
	 * piece the device cannot take */
	uint64_t tx_bad_len;
	uint64_t tx_completed; /* frames the device finished */
	uint64_t tx_inflight;  /* frames given to the device, not yet done */
	uint64_t tx_bad_completions; /* as rx_bad_completions, TX ring */
	/* TDT writes (e1000, e1000e): one per tx_flush that had frames,
	 * so tx_packets / tx_doorbells is the frames per VM exit */
	uint64_t tx_doorbells;
	/* link changes (LSC) signalled: by an interrupt, or found latched
	 * by irq_arm while the queue was masked (e1000, e1000e) */
	uint64_t link_interrupts;
	/* link went up or down (e1000, e1000e, igb; the link check runs
	 * under the stack's TX guard, on queue 0's CPU) */
	uint64_t link_changes;
	/* RSS, counted by the stack as frames come up (RX half): frames the
	 * device hashed, and those of them that came on another queue than
	 * the one rss_table names for their hash (0 while steering holds) */
	uint64_t rx_rss_hashed, rx_rss_other_queue;
	/* With net_rss_check=on: hashed frames whose hash the stack computed
	 * again in software (net/rss_check.c), and those of them where the
	 * two differ (0 while the stack's key and hash are the device's) */
	uint64_t rx_rss_hash_checked, rx_rss_hash_mismatch;
	/* Connections the guest opened (TX half: counted on the queue the
	 * opening CPU sends on): with a local port whose answers the table
	 * steers to this queue, and with the port left to lwIP (the CPU
	 * owns no queue, or no free port would do) on a device with RSS */
	uint64_t tcp_port_steered, tcp_port_unsteered;
	/* frames the queue's rx_poll handed up on another CPU than the
	 * queue's (counted by the stack; 0 while each queue is polled only
	 * by its own CPU, as the RX half's single writer requires) */
	uint64_t rx_other_cpu;
	/* offloads (virtio-net; rx_csum_valid also e1000e): RX half */
	uint64_t rx_csum_valid;	  /* device checked the sum: DATA_VALID, or
				 * e1000e's TCPCS/UDPCS without error */
	uint64_t rx_csum_partial; /* NEEDS_CSUM: never crossed a wire */
	uint64_t rx_gso_frames;	  /* coalesced TCP segments (GUEST_TSO4/6) */
	uint64_t rx_mrg_chains;	  /* frames over more than one buffer */
	uint64_t rx_bad_hdr;	  /* malformed device header: dropped */
	/* frames the stack's glue checked in software (net/rx_csum.c): sums
	 * right, and sums wrong (left to lwIP, which drops them) */
	uint64_t rx_csum_sw, rx_csum_sw_bad;
	/* packets the glue joined from consecutive TCP segments
	 * (net/rx_gro.c), and the frames in them */
	uint64_t rx_gro_packets, rx_gro_segs;
	/* TX half */
	uint64_t tx_csum_offloaded; /* frames whose sum the device fills */
	/* frames the device cuts into TCP segments (virtio-net HOST_TSO4/6,
	 * igb TSO: merged MSS segments or one large segment), and the
	 * segments it cuts them into (on the wire; a merged frame's equal
	 * the stack's frames in it, a large one's are more) */
	uint64_t tx_gso_frames, tx_gso_segs;
	/* of the stack's segments, those longer than the MSS it built for
	 * the device to cut (NETDEV_OFF_TSO4/6; the network glue counts) */
	uint64_t tx_large_segs;
	/* interrupts that masked this queue and woke its CPU (interrupt
	 * context; an INTx line shared by the queues counts on each). The
	 * poller compares it to see whether its armed interrupt fired. */
	uint64_t interrupts;
	/* device notifications (virtio-net): kicks of a ring with new
	 * buffers that were sent, and those the device said it needs none
	 * of (VIRTQ_USED_F_NO_NOTIFY, or with VIRTIO_F_EVENT_IDX its
	 * avail_event); RX half on the queue's CPU, TX under the TX guard */
	uint64_t rx_notifies, rx_notifies_suppressed;
	uint64_t tx_notifies, tx_notifies_suppressed;
};

/* One RX/TX queue pair. Aligned so two CPUs' counters never share a line. */
struct netdev_queue {
	int cpu;     /* the CPU that polls this pair */
	int node;    /* its NUMA node: rings and RX buffers come from there */
	void *stack; /* the stack's per-queue state (its pending RX batch) */
	/* How the queue signals work, set by irq_setup: "msix", "msi",
	 * "intx", or NULL (polled only); and the vector (-1: none). */
	const char *irq_mode;
	int irq_vector;
	struct netdev_stats stats;
} __attribute__((aligned(64)));

struct netdev_ops {
	/* Queue one frame of nsg segments on TX queue q; cookie comes back
	 * via tx_done. Returns 0, or -1 when the ring is full or the request
	 * malformed (nothing queued). Under the stack's TX guard. */
	int (*xmit)(struct netdev *dev, int q, const struct netdev_sg *sg,
		    int nsg, void *cookie);
	/* Take up to budget received frames from RX queue q, hand each to
	 * the rx callback, and refill the ring from napi_alloc_frag() (the
	 * first call fills it). Returns the RX descriptors consumed (0: none
	 * ready). Only on the queue's CPU, poll context. */
	int (*rx_poll)(struct netdev *dev, int q, int budget);
	/* Give every finished transmission of TX queue q back through
	 * tx_done. Returns how many. Under the stack's TX guard. */
	int (*tx_reap)(struct netdev *dev, int q);
	/* Has the device finished a transmission of queue q that tx_reap
	 * would give back? A hint read without the guard (it may be stale by
	 * the time tx_reap runs): lets the queue's CPU take the stack's lock
	 * only when there is something to reap. Any context. */
	bool (*tx_pending)(struct netdev *dev, int q);
	/* Current link state as the device reports it. */
	bool (*link_up)(struct netdev *dev);
	/* Has an interrupt reported a link change that link_up has not read
	 * yet? Lets queue 0's poller look at the link at once rather than
	 * at its next periodic look. Any context. NULL: never. */
	bool (*link_changed)(struct netdev *dev);
	/* Ring the doorbell once for the frames xmit queued on q since the
	 * last flush (xmit makes them visible but leaves the device
	 * notification, a device exit, to this; virtio-net with HOST_TSO4/6
	 * may even hold TCP segments back to merge them, and sends them
	 * here). The stack calls it before it lets go of the TX guard after
	 * any xmit. NULL: xmit notifies. Under the stack's TX guard. */
	void (*tx_flush)(struct netdev *dev, int q);

	/* Interrupts (NAPI style). The handler a driver installs only
	 * masks the queue's interrupt and wakes queues[q].cpu's poll loop.
	 * irq_setup: give every queue an interrupt delivered to its CPU
	 * (MSI-X, MSI, else the shared INTx line), each left masked; sets
	 * irq_mode and irq_vector and prints them. Boot, after probe.
	 * Returns 0, or -1 when none could be had (the queues stay polled).
	 * NULL: the device is polled only. */
	int (*irq_setup)(struct netdev *dev);
	/* irq_arm: unmask queue q's interrupt, then look at the rings once
	 * more: true when RX or TX work already waits (the caller polls
	 * again instead of sleeping), so work that came before the unmask is
	 * never left for an interrupt that will not come. Poll context of
	 * q's CPU. irq_disarm: mask it again (the poller found work while
	 * armed). */
	bool (*irq_arm)(struct netdev *dev, int q);
	void (*irq_disarm)(struct netdev *dev, int q);

	/* Receive-side scaling: make entry i of the redirection table name
	 * queue table[i % n], for every i < rss_table_len; n divides
	 * rss_table_len, each table[] value is below nqueues. Returns 0, or
	 * -1 when the request breaks those rules (nothing changed). Frames
	 * in flight may still land on the queue of the old entry. Boot, or
	 * under the stack's TX guard. NULL: no RSS. */
	int (*set_rss_table)(struct netdev *dev, const uint8_t *table, int n);
};

struct netdev {
	char name[8];	  /* "eth0" */
	const char *kind; /* "virtio", "virtio-legacy", "e1000", "e1000e",
			   "igb" */
	uint8_t mac[6];
	uint16_t mtu;
	int dev_node; /* NUMA node of the device itself: its PCI host
			bridge's, as the firmware says (pci_dev.node) */
	const struct netdev_ops *ops;
	void *priv; /* driver state */

	unsigned int offloads; /* NETDEV_OFF_*, set at probe */

	/* Set by the stack before the first poll. rx takes one buffer of a
	 * frame (flags NETDEV_RX_*; hash: see NETDEV_RX_HASH_L3): a frame of
	 * several buffers comes as consecutive calls, all but the last with
	 * NETDEV_RX_MORE, the flags and hash of the last holding for the
	 * frame. */
	void (*rx)(struct netdev *dev, int q, void *frame, uint32_t len,
		   unsigned int flags, uint32_t hash);
	void (*tx_done)(struct netdev *dev, int q, void *cookie);
	void *stack; /* the stack's per-device state (a netif) */

	int nqueues; /* queue pairs in use, 1..NETDEV_MAX_QUEUES */
	struct netdev_queue queues[NETDEV_MAX_QUEUES];

	/* RSS (see the top of this file): entries of the redirection table
	 * (a power of two; 0: the device has no RSS), the queue each names
	 * now, and the hash key. Set at probe, the table by set_rss_table. */
	int rss_table_len;
	uint8_t rss_table[NETDEV_RSS_TABLE_MAX];
	uint8_t rss_key[NETDEV_RSS_KEY_LEN];
	/* The key and table are the stack's software steering, not the
	 * device's (net_stack=percpu on a device without RSS): frames reach
	 * whichever queue, and the stack hands them to the table's. */
	bool rss_software;
};

/**
 * netdev_register - add a probed device to the list the stack binds to.
 * @dev: filled-in device (nqueues and each queue's cpu and node set); its
 * name is assigned here ("eth0", "eth1", ...).
 * Context: boot, before the poll loops start.
 * Return: 0, or -1 when NETDEV_MAX devices are already registered or the
 * queue count is out of range (reported); the driver then stops the
 * device and frees what it set up.
 */
int netdev_register(struct netdev *dev);

/**
 * netdev_room - whether another device can register (fewer than
 * NETDEV_MAX are). A driver asks before it touches a NIC; one with no
 * room it leaves stopped (bus mastering off) and names to
 * netdev_left_out(). Context: boot.
 */
bool netdev_room(void);

/**
 * netdev_left_out - note a NIC found with no room left: the PCI function
 * @d that driver @kind would have bound ("00:13.0 virtio-net 1af4:1041"
 * in the line). Stopping it is the driver's part.
 * Context: boot, from a driver's probe.
 */
struct pci_dev;
void netdev_left_out(const char *kind, const struct pci_dev *d);

/**
 * netdev_report_left_out - if any NIC was left out, one line naming them:
 *   netdev: NETDEV_MAX=16 devices bound, 2 left out: 00:13.0 virtio-net
 *   1af4:1041, 00:14.0 e1000 8086:100e
 * Context: boot, once every driver has probed.
 */
void netdev_report_left_out(void);

/* Number of registered devices, and the i-th one (NULL past the end). */
int netdev_count(void);
struct netdev *netdev_get(int i);

/**
 * netdev_tx_queue - the TX queue @cpu sends on: its own when it owns one
 * (queue i belongs to CPU i), else queue cpu % nqueues, borrowed under
 * the stack's TX guard. Any context.
 */
static inline int netdev_tx_queue(const struct netdev *dev, int cpu)
{
	if (cpu < dev->nqueues && dev->queues[cpu].cpu == cpu)
		return cpu;
	return cpu % dev->nqueues;
}

/**
 * netdev_rss_table_fill - a driver's set_rss_table, its checks and the
 * copy: dev->rss_table[i] = table[i % n] for every i < rss_table_len,
 * when n is a power of two that divides rss_table_len and every table[]
 * is below nqueues. The driver then writes the table to its device.
 * Return: 0, or -1 with dev->rss_table unchanged.
 */
int netdev_rss_table_fill(struct netdev *dev, const uint8_t *table, int n);

/**
 * netdev_rss_queue - the queue the device's redirection table names for a
 * frame of flow hash @hash (a device with RSS). Any context.
 */
static inline int netdev_rss_queue(const struct netdev *dev, uint32_t hash)
{
	return dev->rss_table[hash & (uint32_t)(dev->rss_table_len - 1)];
}

/**
 * netdev_stats_sum - the device's totals: every queue's counters added.
 * Any context (reads without a lock, as /stats.json does).
 */
void netdev_stats_sum(const struct netdev *dev, struct netdev_stats *out);

/**
 * netdev_stats_sum_all - netdev_stats_sum() of every registered device,
 * added together. Any context, as netdev_stats_sum().
 */
void netdev_stats_sum_all(struct netdev_stats *out);

/**
 * netdev_stats_json - the counters of every device as one JSON object
 * keyed by device name: the totals, then "queues", one object per queue
 * with its queue number, CPU and node. snprintf semantics: returns the
 * length that would have been written, never writes past buf[size-1].
 * netdev_stats_schema describes every member (libc/stat_table.h).
 */
int netdev_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema netdev_stats_schema;

#endif /* DRIVERS_NETDEV_H */
