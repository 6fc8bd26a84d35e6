/*
 * What the two halves of the virtio-net driver share: the device state and
 * its constants. virtio_net.c is the per-packet path (rx_poll, tx_reap,
 * xmit); virtio_net_setup.c brings the device up (features, queue pairs,
 * the control queue, probe).
 */
#ifndef DRIVERS_VIRTIO_NET_INTERNAL_H
#define DRIVERS_VIRTIO_NET_INTERNAL_H

#include <stdint.h>

#include "netdev.h"
#include "virtio_net.h"
#include "virtio_pci.h"
#include "virtqueue.h"

/* Feature bits (virtio 1.x spec 5.1.3). */
#define VIRTIO_NET_F_MAC     5
#define VIRTIO_NET_F_STATUS  16
#define VIRTIO_NET_F_CTRL_VQ 17
#define VIRTIO_NET_F_MQ	     22
#define VIRTIO_NET_S_LINK_UP 1

/* Device configuration (spec 5.1.4): mac[6], status, max_virtqueue_pairs. */
#define VNET_CFG_MAC	   0
#define VNET_CFG_STATUS	   6
#define VNET_CFG_MAX_PAIRS 8

/* Queue pair i is virtqueues 2i (receive) and 2i + 1 (transmit); the
 * control queue comes after the device's max_virtqueue_pairs pairs. */
#define VNET_RXQ(i) (2 * (i))
#define VNET_TXQ(i) (2 * (i) + 1)

#define VNET_QUEUE_MAX	    256
/* The control queue carries one command at a time. */
#define VNET_CTRL_QUEUE_MAX 64
/* Header (<= 12) + 1514-byte frame fits; 2048 packs two per page. */
#define RX_BUF_SIZE	    2048
#define VNET_MAX_DEVS	    4
/* Most frames taken per rx_poll call (the stack's budget is capped to it). */
#define VNET_POLL_MAX	    64

struct vnet_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers; /* present only with VERSION_1 or MRG_RXBUF */
};

/* One RX/TX pair: the RX ring is its CPU's alone, the TX ring is used
 * under the stack's TX guard (netdev.h). */
struct vnet_pair {
	struct virtq rxq, txq;
	struct vnet_hdr *tx_hdrs; /* one per TX descriptor head */
};

struct vnet {
	struct netdev dev;
	struct virtio_pci vp;
	uint32_t hdr_len; /* 12 modern, 10 legacy */
	uint64_t features;
	uint16_t max_pairs; /* what the device offers (1 without MQ) */
	int npairs;	    /* pairs set up (the netdev uses nqueues of them) */
	struct vnet_pair pairs[NETDEV_MAX_QUEUES];
	struct virtq ctrlq; /* set up only to ask for more than one pair */
	/* interrupts (virtio_net_irq.c): each pair's handler argument */
	struct vnet_irq {
		struct vnet *vn;
		int q;
	} irq[NETDEV_MAX_QUEUES];
};

/* virtio_net.c: the netdev operations, for virtio_net_setup.c. */
extern const struct netdev_ops vnet_ops;

/* virtio_net_irq.c: the interrupt operations of vnet_ops (netdev.h). */
int vnet_irq_setup(struct netdev *dev);
bool vnet_irq_arm(struct netdev *dev, int q);
void vnet_irq_disarm(struct netdev *dev, int q);

static inline int vnet_has(uint64_t features, int bit)
{
	return (features >> bit) & 1;
}

#endif /* DRIVERS_VIRTIO_NET_INTERNAL_H */
