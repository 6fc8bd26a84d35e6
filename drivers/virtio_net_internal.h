/*
 * What the two halves of the virtio-net driver share: the device state and
 * its constants. virtio_net.c is the per-packet path (rx_poll, tx_reap,
 * xmit); virtio_net_setup.c brings the device up (features, queue pairs,
 * the control queue, probe).
 */
#ifndef DRIVERS_VIRTIO_NET_INTERNAL_H
#define DRIVERS_VIRTIO_NET_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "netdev.h"
#include "tcp_merge.h"
#include "virtio_net.h"
#include "virtio_pci.h"
#include "virtqueue.h"

/* Feature bits (virtio 1.x spec 5.1.3). */
#define VIRTIO_NET_F_CSUM	0  /* device fills TX TCP/UDP checksums */
#define VIRTIO_NET_F_GUEST_CSUM 1  /* RX frames may come checksum-flagged */
#define VIRTIO_NET_F_GUEST_TSO4 7  /* RX TCPv4 frames up to 64 KiB */
#define VIRTIO_NET_F_GUEST_TSO6 8  /* RX TCPv6 frames up to 64 KiB */
#define VIRTIO_NET_F_HOST_TSO4	11 /* TX TCPv4 frames up to 64 KiB */
#define VIRTIO_NET_F_HOST_TSO6	12 /* TX TCPv6 frames up to 64 KiB */
#define VIRTIO_NET_F_MRG_RXBUF	15 /* one RX frame over several buffers */
#define VIRTIO_NET_F_MAC	5
#define VIRTIO_NET_F_STATUS	16
#define VIRTIO_NET_F_CTRL_VQ	17
#define VIRTIO_NET_F_MQ		22
#define VIRTIO_NET_F_RSS	60 /* the device steers by a Toeplitz hash */
#define VIRTIO_NET_S_LINK_UP	1

/* vnet_hdr.flags and gso_type (spec 5.1.6). */
#define VIRTIO_NET_HDR_F_NEEDS_CSUM 1 /* sum from csum_start into offset */
#define VIRTIO_NET_HDR_F_DATA_VALID 2 /* RX: the device checked the sum */
#define VIRTIO_NET_HDR_GSO_NONE	    0
#define VIRTIO_NET_HDR_GSO_TCPV4    1
#define VIRTIO_NET_HDR_GSO_TCPV6    4
#define VIRTIO_NET_HDR_GSO_ECN	    0x80

/* Device configuration (spec 5.1.4): mac[6], status, max_virtqueue_pairs. */
#define VNET_CFG_MAC		0
#define VNET_CFG_STATUS		6
#define VNET_CFG_MAX_PAIRS	8
/* ... and with VIRTIO_NET_F_RSS (spec 5.1.4): the longest key and
 * redirection table the device takes, and the hash kinds it computes. */
#define VNET_CFG_RSS_MAX_KEY	17
#define VNET_CFG_RSS_MAX_TABLE	18
#define VNET_CFG_RSS_HASH_TYPES 20

/* Control commands (spec 5.1.6.5): the multiqueue class, its answer. */
#define VIRTIO_NET_CTRL_MQ 4
#define VIRTIO_NET_OK	   0

/* Queue pair i is virtqueues 2i (receive) and 2i + 1 (transmit); the
 * control queue comes after the device's max_virtqueue_pairs pairs. */
#define VNET_RXQ(i) (2 * (i))
#define VNET_TXQ(i) (2 * (i) + 1)

#define VNET_QUEUE_MAX	    256
/* The control queue carries one command at a time. */
#define VNET_CTRL_QUEUE_MAX 64
/* What one RX buffer allocates (2048 packs two per page), and what the
 * device may write: the rest after the stack's headroom (netdev.h). The
 * header (<= 12) and a 1514-byte frame fit. */
#define RX_BUF_SIZE	    2048
#define RX_BUF_LEN	    (RX_BUF_SIZE - NETDEV_RX_HEADROOM)
/* Most frames taken per rx_poll call (the stack's budget is capped to it). */
#define VNET_POLL_MAX	    64
/* Most buffers one mergeable RX frame may span: a 65535-byte frame and
 * its header in RX_BUF_LEN-byte buffers take 34 (netdev.h's
 * NETDEV_RX_CHAIN_MAX). */
#define VNET_MRG_MAX	    NETDEV_RX_CHAIN_MAX

struct vnet_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers; /* present only with VERSION_1 or MRG_RXBUF */
};
_Static_assert(sizeof(struct vnet_hdr) == 12, "the 12-byte virtio-net header");

/*
 * A mergeable RX frame being gathered: its header says num_buffers, and
 * the buffers may be reaped over more than one rx_poll. skip counts the
 * buffers still to throw away after a header we refused.
 */
struct vnet_rx_chain {
	uint8_t *buf[VNET_MRG_MAX];
	uint32_t len[VNET_MRG_MAX];
	struct vnet_hdr hdr; /* the first buffer's header */
	int have, want, skip;
	uint32_t bytes; /* frame bytes gathered (headers excluded) */
};

/*
 * HOST_TSO4 and HOST_TSO6 (virtio_net_gso.c, on tcp_merge.h's rules): at
 * most VNET_GSO_SEGS stack segments go into one chain of at most 2 +
 * TCP_MERGE_PAY_MAX descriptors (the header, the frame headers, the
 * payloads): a fifth of the 256-descriptor ring. The merged headers are
 * at most VNET_GSO_HDR_MAX bytes: every IPv4 TCP header (Ethernet 14 +
 * IPv4 20 + TCP <= 60), and an IPv6 one with up to 20 bytes of TCP
 * options (14 + 40 + 40; lwIP sends 12 at most, the timestamps): a longer
 * one goes unmerged, which keeps the slot table (vnet_gso_slot) in one
 * order-4 block.
 */
#define VNET_GSO_SEGS	 TCP_MERGE_SEGS
#define VNET_GSO_HDR_MAX 96 /* Ethernet + IP + TCP headers merged, at most */

/* A merged chain in flight, one per TX descriptor head (as tx_hdrs): the
 * frame header the device reads (a copy, never the stack's bytes) and
 * the stack cookies it gives back on completion. Its address is the
 * chain's virtqueue cookie. */
struct vnet_gso_slot {
	uint8_t hdr[VNET_GSO_HDR_MAX];
	int nseg;
	void *cookie[VNET_GSO_SEGS];
};

/* One RX/TX pair: the RX ring is its CPU's alone, the TX ring is used
 * under the stack's TX guard (netdev.h). */
struct vnet_pair {
	struct virtq rxq, txq;
	struct vnet_hdr *tx_hdrs; /* one per TX descriptor head */
	/* HOST_TSO4/6 only (else NULL): merged chains by head, what is
	 * held */
	struct vnet_gso_slot *tx_gso;
	struct tcp_merge_batch *tx_batch;
	struct vnet_rx_chain chain;
};

/* What the boot command line allows (virtio_net_allow_offloads): a
 * feature is used only when allowed and offered. */
extern struct virtio_net_offloads vnet_allowed;

struct vnet {
	struct netdev dev;
	struct virtio_pci vp;
	uint32_t hdr_len;     /* 12 modern or mergeable, 10 legacy */
	uint64_t features;    /* negotiated */
	uint64_t offered;     /* what the device offered, for the report */
	bool tx_csum;	      /* CSUM: we ask the device to fill TCP/UDP sums */
	bool rx_csum;	      /* GUEST_CSUM: RX frames may say "sum checked" */
	bool mrg;	      /* MRG_RXBUF: RX headers carry num_buffers */
	bool host_tso;	      /* HOST_TSO4/6: we merge TCP segments on TX */
	bool rss;	      /* RSS programmed: the device steers by hash */
	const char *rss_word; /* why not, for the report (or NULL) */
	uint16_t max_pairs;   /* what the device offers (1 without MQ) */
	int npairs; /* pairs set up (the netdev uses nqueues of them) */
	struct vnet_pair pairs[NETDEV_MAX_QUEUES];
	struct virtq ctrlq; /* set up only to ask for more than one pair */
	/* interrupts (virtio_net_irq.c): each pair's handler argument */
	struct vnet_irq {
		struct vnet *vn;
		int q;
	} irq[NETDEV_MAX_QUEUES];
};

/**
 * vnet_ctrl_cmd - send one control command with @len bytes of data and
 * wait for the device's answer (virtio_net_ctrl.c).
 * Context: boot or a rare reconfiguration; polls up to a second.
 * Return: the device's ack (VIRTIO_NET_OK is 0), or -1 when it did not
 * answer or the command could not be queued.
 */
int vnet_ctrl_cmd(struct vnet *vn, uint8_t class, uint8_t command,
		  const void *data, uint32_t len);

/**
 * vnet_rss_setup - with VIRTIO_NET_F_RSS negotiated and more than one
 * pair: key, redirection table and pair count to the device
 * (virtio_net_rss.c), reported; the netdev then steers like igb.
 * Context: boot, after DRIVER_OK.
 * Return: 0, or -1 (no RSS: the caller sets the pairs the plain way).
 */
int vnet_rss_setup(struct vnet *vn);
int vnet_set_rss_table(struct netdev *dev, const uint8_t *table, int n);

/* virtio_net.c: the netdev operations, for virtio_net_setup.c. */
extern const struct netdev_ops vnet_ops;

/* virtio_net_offload.c: the per-frame header work of the offloads. */

/**
 * vnet_tx_csum - fill @h for one outgoing frame: NEEDS_CSUM with
 * csum_start/csum_offset and the pseudo-header sum written into the
 * frame's checksum field when it is a whole IPv4 TCP or UDP datagram or
 * an IPv6 one with TCP or UDP right after the fixed header, else a
 * header asking for nothing.
 * Return: 1 when the device will fill the sum, 0 when not.
 */
int vnet_tx_csum(struct vnet_hdr *h, const struct netdev_sg *sg, int nsg);

/**
 * vnet_rx_check - judge a received frame's header @h against the frame
 * (@first: its first buffer's bytes, @first_len of them; @total bytes in
 * all). Return: NETDEV_RX_* flags (CSUM_OK when the device vouches for
 * the TCP/UDP sum), or -1 for a header we refuse (the caller drops the
 * frame and counts rx_bad_hdr).
 */
int vnet_rx_check(const struct vnet *vn, const struct vnet_hdr *h,
		  const uint8_t *first, uint32_t first_len, uint32_t total);
/* virtio_net_gso.c: HOST_TSO4/6's merged headers (what may merge is
 * tcp_merge.c's; the TX path in virtio_net.c holds, posts and reaps). The
 * merged frame's headers into h (a copy of the first segment's, at most
 * VNET_GSO_HDR_MAX bytes) and its vnet header into vh. */
void vnet_gso_headers(const struct tcp_merge_batch *b, uint8_t *h,
		      struct vnet_hdr *vh);

/* The merged chain a reaped TX cookie stands for, or NULL when it is the
 * stack's own (never inside the pair's slot array). */
static inline struct vnet_gso_slot *vnet_gso_slot_of(const struct vnet_pair *p,
						     const void *cookie)
{
	uintptr_t c = (uintptr_t)cookie, base = (uintptr_t)p->tx_gso;

	if (!p->tx_gso || c < base ||
	    c >= base + sizeof(*p->tx_gso) * p->txq.num)
		return NULL;
	return (struct vnet_gso_slot *)cookie;
}

/* virtio_net_irq.c: the interrupt operations of vnet_ops (netdev.h). */
int vnet_irq_setup(struct netdev *dev);
bool vnet_irq_arm(struct netdev *dev, int q);
void vnet_irq_disarm(struct netdev *dev, int q);

static inline int vnet_has(uint64_t features, int bit)
{
	return (features >> bit) & 1;
}

#endif /* DRIVERS_VIRTIO_NET_INTERNAL_H */
