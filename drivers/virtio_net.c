/*
 * virtio-net over PCI, polled, one RX and one TX split virtqueue.
 *
 * RX: every RX descriptor is one device-writable buffer of RX_BUF_SIZE
 * bytes from napi_alloc_frag() on the polling CPU's node, big enough for
 * the virtio-net header plus a full 1514-byte frame (we offer neither
 * MRG_RXBUF nor any receive offload, so the device never writes more
 * frames into one buffer, nor bigger ones). A completed buffer is handed
 * up zero-copy (ownership moves to the stack) and the slot refilled.
 * A length the device reports outside [header, buffer] is dropped and
 * counted in rx_bad_len, never trusted.
 *
 * TX: one chain per frame: a driver-owned zeroed header (no offload
 * requested) followed by the stack's segments, read in place by the
 * device. When the device returns the chain the stack's cookie goes back
 * through tx_done, and only then does the stack free the bytes.
 */
#include "virtio_net.h"

#include <string.h>

#include "drv_port.h"
#include "mm/mm.h"
#include "netdev.h"
#include "virtqueue.h"

#define VIRTIO_NET_F_MAC     5
#define VIRTIO_NET_F_STATUS  16
#define VIRTIO_NET_S_LINK_UP 1
#define VNET_CFG_MAC	     0
#define VNET_CFG_STATUS	     6

#define VNET_RXQ       0
#define VNET_TXQ       1
#define VNET_QUEUE_MAX 256
/* Header (<= 12) + 1514-byte frame fits; 2048 packs two per page. */
#define RX_BUF_SIZE    2048
#define VNET_MAX_DEVS  4
/* Most frames taken per poll call (the stack's budget is capped to it). */
#define VNET_POLL_MAX  64

struct vnet_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers; /* present only with VERSION_1 or MRG_RXBUF */
};

struct vnet {
	struct netdev dev;
	struct virtio_pci vp;
	struct virtq rxq, txq;
	uint32_t hdr_len; /* 12 modern, 10 legacy */
	uint64_t features;
	struct vnet_hdr *tx_hdrs; /* one per TX descriptor head */
};

static struct vnet vnets[VNET_MAX_DEVS];
static int nvnets;

static bool has(uint64_t features, int bit)
{
	return (features >> bit) & 1;
}

/* Post RX buffers until the ring is full or memory runs out. */
static void rx_refill(struct vnet *vn)
{
	while (vn->rxq.num_free > 0) {
		void *buf = napi_alloc_frag(RX_BUF_SIZE);
		struct virtq_buf b;

		if (!buf) {
			vn->dev.stats.rx_refill_fail++;
			break;
		}
		b = (struct virtq_buf){drv_dma_addr(buf), RX_BUF_SIZE, 1};
		virtq_add(&vn->rxq, &b, 1, buf);
		vn->dev.stats.rx_bufs_posted++;
	}
	virtq_kick(&vn->rxq);
}

/* Check the device's length, strip the header, hand the frame up. */
static void vnet_rx_one(struct vnet *vn, uint8_t *buf, uint32_t len)
{
	struct netdev *dev = &vn->dev;

	if (len < vn->hdr_len || len > RX_BUF_SIZE ||
	    len - vn->hdr_len > NETDEV_FRAME_MAX) {
		dev->stats.rx_bad_len++;
		page_frag_free(buf);
		return;
	}
	len -= vn->hdr_len;
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += len;
	dev->rx(dev, buf + vn->hdr_len, len);
}

/* Give finished TX chains back to the stack; returns how many. */
static int tx_reap(struct vnet *vn)
{
	uint32_t len;
	void *cookie;
	int n = 0;

	while ((cookie = virtq_get(&vn->txq, &len)) != NULL) {
		vn->dev.stats.tx_completed++;
		vn->dev.stats.tx_inflight--;
		vn->dev.tx_done(&vn->dev, cookie);
		n++;
	}
	return n;
}

/*
 * Reap up to budget received buffers, give the ring fresh ones, and only
 * then hand the frames up: the device is never short of buffers while the
 * stack works, and the ring's occupancy seen from the stack (stats) is
 * always "full" unless memory ran out.
 */
static int vnet_poll(struct netdev *dev, int budget)
{
	struct vnet *vn = dev->priv;
	struct {
		uint8_t *buf;
		uint32_t len;
	} got[VNET_POLL_MAX];
	int n = 0, reaped = tx_reap(vn);

	if (budget > VNET_POLL_MAX)
		budget = VNET_POLL_MAX;
	while (n < budget &&
	       (got[n].buf = virtq_get(&vn->rxq, &got[n].len)) != NULL) {
		dev->stats.rx_bufs_posted--;
		n++;
	}
	/* The first poll also fills the empty ring: buffers must come from
	 * the polling CPU's per-CPU frag cache, not the boot CPU's. */
	if (vn->rxq.num_free)
		rx_refill(vn);
	for (int i = 0; i < n; i++)
		vnet_rx_one(vn, got[i].buf, got[i].len);
	dev->stats.bad_completions = vn->rxq.bad_used + vn->txq.bad_used;
	return n + reaped;
}

static int vnet_xmit(struct netdev *dev, const struct netdev_sg *sg, int nsg,
		     void *cookie)
{
	struct vnet *vn = dev->priv;
	struct virtq_buf bufs[NETDEV_MAX_SG + 1];
	uint32_t bytes = 0;
	uint16_t head;

	if (nsg < 1 || nsg > NETDEV_MAX_SG || !cookie)
		return -1;
	if (vn->txq.num_free < nsg + 1)
		tx_reap(vn);
	if (vn->txq.num_free < nsg + 1) {
		dev->stats.tx_busy++;
		return -1;
	}
	/* The chain's head descriptor is the free-list head: its header slot
	 * is free for as long as the chain is in flight. */
	head = vn->txq.free_head;
	bufs[0] = (struct virtq_buf){drv_dma_addr(&vn->tx_hdrs[head]),
				     vn->hdr_len, 0};
	for (int i = 0; i < nsg; i++) {
		bufs[i + 1] = (struct virtq_buf){drv_dma_addr(sg[i].addr),
						 sg[i].len, 0};
		bytes += sg[i].len;
	}
	if (virtq_add(&vn->txq, bufs, nsg + 1, cookie) != 0) {
		dev->stats.tx_busy++;
		return -1;
	}
	virtq_kick(&vn->txq);
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += bytes;
	dev->stats.tx_inflight++;
	return 0;
}

static bool vnet_link_up(struct netdev *dev)
{
	struct vnet *vn = dev->priv;

	if (!has(vn->features, VIRTIO_NET_F_STATUS))
		return true; /* no status field: the spec says assume up */
	return virtio_pci_config16(&vn->vp, VNET_CFG_STATUS) &
	       VIRTIO_NET_S_LINK_UP;
}

static const struct netdev_ops vnet_ops = {
	.xmit = vnet_xmit,
	.poll = vnet_poll,
	.link_up = vnet_link_up,
};

/* Feature negotiation (spec 3.1.1): ACK, DRIVER, features, FEATURES_OK. */
static int vnet_negotiate(struct vnet *vn)
{
	struct virtio_pci *vp = &vn->vp;
	uint64_t want = 1ull << VIRTIO_NET_F_MAC | 1ull << VIRTIO_NET_F_STATUS;

	if (virtio_pci_reset(vp) != 0)
		return -1;
	virtio_pci_add_status(vp, VIRTIO_STATUS_ACK);
	virtio_pci_add_status(vp, VIRTIO_STATUS_DRIVER);
	if (vp->modern)
		want |= 1ull << VIRTIO_F_VERSION_1;
	vn->features = virtio_pci_get_features(vp) & want;
	virtio_pci_set_features(vp, vn->features);
	if (vp->modern) {
		if (!has(vn->features, VIRTIO_F_VERSION_1))
			return -1;
		virtio_pci_add_status(vp, VIRTIO_STATUS_FEATURES_OK);
		if (!(virtio_pci_get_status(vp) & VIRTIO_STATUS_FEATURES_OK))
			return -1;
	}
	vn->hdr_len = vp->modern ? 12 : 10;
	return 0;
}

static void vnet_read_mac(struct vnet *vn)
{
	for (int i = 0; i < 6; i++)
		vn->dev.mac[i] =
			has(vn->features, VIRTIO_NET_F_MAC)
				? virtio_pci_config8(&vn->vp, VNET_CFG_MAC + i)
				: (uint8_t)(i == 0 ? 0x02
						   : i); /* local admin */
}

/*
 * Give up on a device half set up: whatever was allocated goes back. The
 * device may already know the RX ring, so it is reset first (it forgets
 * every queue); a device that does not finish its reset may still write
 * into the rings, so then they are left allocated (and that is said).
 * FAILED tells the device we gave up (spec 3.1.1).
 */
static void vnet_teardown(struct vnet *vn)
{
	if (virtio_pci_reset(&vn->vp) == 0) {
		virtq_destroy(&vn->rxq);
		virtq_destroy(&vn->txq);
	} else if (vn->rxq.mem || vn->txq.mem) {
		drv_printf("virtio-net: device did not reset, its queue "
			   "memory stays allocated\n");
	}
	kfree(vn->tx_hdrs);
	vn->tx_hdrs = NULL;
	virtio_pci_add_status(&vn->vp, VIRTIO_STATUS_FAILED);
}

static int vnet_setup(struct vnet *vn, struct pci_dev *d, bool allow_modern,
		      int node)
{
	if (virtio_pci_init(&vn->vp, d, allow_modern) != 0)
		return -1;
	if (vnet_negotiate(vn) != 0) {
		drv_printf("virtio-net: feature negotiation failed\n");
		goto fail;
	}
	if (virtq_create(&vn->rxq, &vn->vp, VNET_RXQ, VNET_QUEUE_MAX, node) ||
	    virtq_create(&vn->txq, &vn->vp, VNET_TXQ, VNET_QUEUE_MAX, node))
		goto fail;
	vn->tx_hdrs = kmalloc_node(sizeof(*vn->tx_hdrs) * vn->txq.num,
				   __GFP_ZERO, node);
	if (!vn->tx_hdrs) {
		drv_printf("virtio-net: no memory for TX headers\n");
		goto fail;
	}
	vnet_read_mac(vn);
	vn->dev.kind = vn->vp.modern ? "virtio" : "virtio-legacy";
	vn->dev.mtu = 1500;
	vn->dev.node = node;
	vn->dev.dev_node = d->node;
	vn->dev.ops = &vnet_ops;
	vn->dev.priv = vn;
	virtio_pci_add_status(&vn->vp, VIRTIO_STATUS_DRIVER_OK);
	return 0;
fail:
	vnet_teardown(vn);
	return -1;
}

static bool is_virtio_net(const struct pci_dev *d)
{
	if (d->vendor != VIRTIO_VENDOR)
		return false;
	/* 0x1041: modern-only; 0x1000 transitional with subsystem id 1. */
	return d->device == 0x1041 ||
	       (d->device == 0x1000 && d->subsys_id == 1);
}

int virtio_net_probe(bool allow_modern, int node)
{
	int found = 0;

	for (int i = 0; i < pci_count() && nvnets < VNET_MAX_DEVS; i++) {
		struct pci_dev *d = pci_get(i);
		struct vnet *vn = &vnets[nvnets];

		if (!is_virtio_net(d))
			continue;
		memset(vn, 0, sizeof(*vn));
		if (vnet_setup(vn, d, allow_modern, node) != 0)
			continue;
		nvnets++;
		if (netdev_register(&vn->dev) == 0)
			found++;
		drv_printf("virtio-net: %s %02x:%02x.%x %s "
			   "mac=%02x:%02x:%02x:%02x:%02x:%02x queues rx=%u "
			   "tx=%u\n",
			   vn->dev.name, d->bus, d->dev, d->fn, vn->dev.kind,
			   vn->dev.mac[0], vn->dev.mac[1], vn->dev.mac[2],
			   vn->dev.mac[3], vn->dev.mac[4], vn->dev.mac[5],
			   vn->rxq.num, vn->txq.num);
	}
	return found;
}
