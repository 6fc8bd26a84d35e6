/*
 * virtio-net over PCI: the per-packet path of each queue pair (polled;
 * the pair's interrupt, virtio_net_irq.c, only wakes its poller).
 *
 * Queues. A device that offers VIRTIO_NET_F_MQ gets one RX/TX pair per
 * CPU, up to its max_virtqueue_pairs (virtio_net_setup.c); one without it
 * (QEMU user-net, a legacy device) gets one pair. Pair i is polled by CPU
 * i only, and its rings live on that CPU's node.
 *
 * RX: every RX descriptor is one device-writable buffer of RX_BUF_LEN
 * bytes, the part after NETDEV_RX_HEADROOM of an RX_BUF_SIZE allocation
 * from napi_alloc_frag() on the queue's CPU (rx_poll runs there, so the
 * buffers come from that CPU's per-CPU frag cache and node), big enough
 * for the virtio-net header plus a full 1514-byte frame. With
 * MRG_RXBUF (and GUEST_TSO4, which needs it here) a frame of up to 64 KiB
 * spans num_buffers such buffers; they are handed up zero-copy as one
 * chain of NETDEV_RX_MORE calls (the stack makes them a pbuf chain), so
 * no 64 KiB buffer is ever posted. Ownership of each buffer moves to the
 * stack and the slot is refilled. A length the device reports outside
 * [header, buffer], or a header we refuse (virtio_net_offload.c), drops
 * the frame, counted, never trusted.
 *
 * TX: one chain per frame: a driver-owned header (NEEDS_CSUM when the
 * device fills the TCP/UDP sum, virtio_net_offload.c; else nothing
 * requested) followed by the stack's segments, read in place by the
 * device. When the device returns the chain the stack's cookie goes back
 * through tx_done, and only then does the stack free the bytes. xmit and
 * tx_reap run under the stack's TX guard (netdev.h), so a TX ring has one
 * user at a time even when a CPU without a pair of its own borrows it.
 */
#include <string.h>

#include "drv_port.h"
#include "mm/mm.h"
#include "virtio_net_internal.h"

/* Post RX buffers until the ring is full or memory runs out. */
static void rx_refill(struct vnet *vn, int q)
{
	struct virtq *vq = &vn->pairs[q].rxq;
	struct netdev_stats *st = &vn->dev.queues[q].stats;

	while (vq->num_free > 0) {
		uint8_t *buf = napi_alloc_frag(RX_BUF_SIZE);
		struct virtq_buf b;

		if (!buf) {
			st->rx_refill_fail++;
			break;
		}
		buf += NETDEV_RX_HEADROOM;
		b = (struct virtq_buf){drv_dma_addr(buf), RX_BUF_LEN, 1};
		virtq_add(vq, &b, 1, buf);
		st->rx_bufs_posted++;
		st->rx_refills++;
	}
	virtq_kick(vq);
	st->rx_notifies = vq->notifies;
	st->rx_notifies_suppressed = vq->notifies_suppressed;
}

/* Throw away the buffers gathered for a frame we refuse. */
static void rx_chain_drop(struct vnet_rx_chain *c)
{
	for (int i = 0; i < c->have; i++)
		page_frag_free(c->buf[i]);
	c->have = c->want = 0;
}

/* A whole frame is gathered: check its header, hand its buffers up. */
static void vnet_rx_frame(struct vnet *vn, int q, struct vnet_rx_chain *c)
{
	struct netdev *dev = &vn->dev;
	struct netdev_stats *st = &dev->queues[q].stats;
	int flags = vnet_rx_check(vn, &c->hdr, c->buf[0], c->len[0], c->bytes);
	int last = c->have - 1;

	if (flags < 0) {
		st->rx_bad_hdr++;
		rx_chain_drop(c);
		return;
	}
	st->rx_csum_valid += !!(c->hdr.flags & VIRTIO_NET_HDR_F_DATA_VALID);
	st->rx_csum_partial += !!(c->hdr.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM);
	st->rx_gso_frames += c->hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE;
	st->rx_mrg_chains += c->have > 1;
	st->rx_packets++;
	st->rx_bytes += c->bytes;
	/* Empty buffers after the first carry nothing: not handed up. */
	while (last > 0 && c->len[last] == 0)
		page_frag_free(c->buf[last--]);
	for (int i = 0; i <= last; i++) {
		if (i > 0 && c->len[i] == 0) {
			page_frag_free(c->buf[i]);
			continue;
		}
		dev->rx(dev, q, c->buf[i], c->len[i],
			(unsigned int)flags | (i < last ? NETDEV_RX_MORE : 0));
	}
	c->have = c->want = 0;
}

/*
 * One reaped RX buffer. Its frame's first buffer opens with the header;
 * with MRG_RXBUF the header's num_buffers says how many buffers the frame
 * spans (they may come over several polls: the chain is kept per pair).
 * A length outside [header, buffer] is counted in rx_bad_len and a
 * num_buffers of 0 or above VNET_MRG_MAX in rx_bad_hdr, and the frame's
 * buffers are freed, never trusted.
 */
static void vnet_rx_buf(struct vnet *vn, int q, uint8_t *buf, uint32_t len)
{
	struct vnet_rx_chain *c = &vn->pairs[q].chain;
	struct netdev_stats *st = &vn->dev.queues[q].stats;

	if (c->skip) { /* the rest of a frame whose header we refused */
		c->skip--;
		page_frag_free(buf);
		return;
	}
	if (len > RX_BUF_LEN || (c->want == 0 && len < vn->hdr_len)) {
		st->rx_bad_len++;
		page_frag_free(buf);
		/* Mid-frame: the frame's remaining buffers go too. */
		if (c->want)
			c->skip = c->want - c->have - 1;
		rx_chain_drop(c);
		return;
	}
	if (c->want == 0) {
		memcpy(&c->hdr, buf, vn->hdr_len);
		c->want = vn->mrg ? c->hdr.num_buffers : 1;
		if (c->want < 1 || c->want > VNET_MRG_MAX) {
			st->rx_bad_hdr++;
			/* Its other buffers follow: drop them too. */
			c->skip = c->want > VNET_QUEUE_MAX ? VNET_QUEUE_MAX - 1
				  : c->want > 0		   ? c->want - 1
							   : 0;
			c->want = 0;
			page_frag_free(buf);
			return;
		}
		c->bytes = 0;
		buf += vn->hdr_len;
		len -= vn->hdr_len;
	}
	c->buf[c->have] = buf;
	c->len[c->have] = len;
	c->have++;
	c->bytes += len;
	if (c->have == c->want)
		vnet_rx_frame(vn, q, c);
}

/*
 * Reap up to budget received buffers, give the ring fresh ones, and only
 * then hand the frames up: the device is never short of buffers while the
 * stack works, and the ring's occupancy seen from the stack (stats) is
 * always "full" unless memory ran out.
 */
static int vnet_rx_poll(struct netdev *dev, int q, int budget)
{
	struct vnet *vn = dev->priv;
	struct virtq *vq = &vn->pairs[q].rxq;
	struct netdev_stats *st = &dev->queues[q].stats;
	struct {
		uint8_t *buf;
		uint32_t len;
	} got[VNET_POLL_MAX];
	int n = 0;

	if (budget > VNET_POLL_MAX)
		budget = VNET_POLL_MAX;
	while (n < budget &&
	       (got[n].buf = virtq_get(vq, &got[n].len)) != NULL) {
		st->rx_bufs_posted--;
		n++;
	}
	/* The first poll also fills the empty ring: buffers must come from
	 * the queue CPU's per-CPU frag cache, not the boot CPU's. */
	if (vq->num_free)
		rx_refill(vn, q);
	for (int i = 0; i < n; i++)
		vnet_rx_buf(vn, q, got[i].buf, got[i].len);
	st->rx_bad_completions = vq->bad_used;
	return n;
}

/* Give finished TX chains of pair q back to the stack; returns how many. */
static int vnet_tx_reap(struct netdev *dev, int q)
{
	struct vnet *vn = dev->priv;
	struct virtq *vq = &vn->pairs[q].txq;
	struct netdev_stats *st = &dev->queues[q].stats;
	uint32_t len;
	void *cookie;
	int n = 0;

	while ((cookie = virtq_get(vq, &len)) != NULL) {
		st->tx_completed++;
		st->tx_inflight--;
		dev->tx_done(dev, q, cookie);
		n++;
	}
	st->tx_bad_completions = vq->bad_used;
	return n;
}

static bool vnet_tx_pending(struct netdev *dev, int q)
{
	struct vnet *vn = dev->priv;

	return virtq_used_pending(&vn->pairs[q].txq);
}

static int vnet_xmit(struct netdev *dev, int q, const struct netdev_sg *sg,
		     int nsg, void *cookie)
{
	struct vnet *vn = dev->priv;
	struct vnet_pair *p = &vn->pairs[q];
	struct netdev_stats *st = &dev->queues[q].stats;
	struct virtq_buf bufs[NETDEV_MAX_SG + 1];
	uint32_t bytes = 0;
	uint16_t head;

	if (nsg < 1 || nsg > NETDEV_MAX_SG || !cookie)
		return -1;
	if (p->txq.num_free < nsg + 1)
		vnet_tx_reap(dev, q);
	if (p->txq.num_free < nsg + 1) {
		st->tx_busy++;
		return -1;
	}
	/* The chain's head descriptor is the free-list head: its header slot
	 * is free for as long as the chain is in flight. */
	head = p->txq.free_head;
	if (vn->tx_csum && vnet_tx_csum(&p->tx_hdrs[head], sg, nsg))
		st->tx_csum_offloaded++;
	else
		p->tx_hdrs[head] = (struct vnet_hdr){0};
	bufs[0] = (struct virtq_buf){drv_dma_addr(&p->tx_hdrs[head]),
				     vn->hdr_len, 0};
	for (int i = 0; i < nsg; i++) {
		bufs[i + 1] = (struct virtq_buf){drv_dma_addr(sg[i].addr),
						 sg[i].len, 0};
		bytes += sg[i].len;
	}
	if (virtq_add(&p->txq, bufs, nsg + 1, cookie) != 0) {
		st->tx_busy++;
		return -1;
	}
	virtq_publish(&p->txq); /* the notify: vnet_tx_flush */
	st->tx_packets++;
	st->tx_bytes += bytes;
	st->tx_inflight++;
	return 0;
}

/* One notify for every frame xmit published since the last one. */
static void vnet_tx_flush(struct netdev *dev, int q)
{
	struct vnet *vn = dev->priv;
	struct virtq *vq = &vn->pairs[q].txq;
	struct netdev_stats *st = &dev->queues[q].stats;

	virtq_kick(vq);
	st->tx_notifies = vq->notifies;
	st->tx_notifies_suppressed = vq->notifies_suppressed;
}

static bool vnet_link_up(struct netdev *dev)
{
	struct vnet *vn = dev->priv;

	if (!vnet_has(vn->features, VIRTIO_NET_F_STATUS))
		return true; /* no status field: the spec says assume up */
	return virtio_pci_config16(&vn->vp, VNET_CFG_STATUS) &
	       VIRTIO_NET_S_LINK_UP;
}

const struct netdev_ops vnet_ops = {
	.xmit = vnet_xmit,
	.rx_poll = vnet_rx_poll,
	.tx_reap = vnet_tx_reap,
	.tx_pending = vnet_tx_pending,
	.tx_flush = vnet_tx_flush,
	.link_up = vnet_link_up,
	.irq_setup = vnet_irq_setup,
	.irq_arm = vnet_irq_arm,
	.irq_disarm = vnet_irq_disarm,
};
