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
 * MRG_RXBUF (and GUEST_TSO4/6, which need it here) a frame of up to 64 KiB
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
 * through tx_done, and only then does the stack free the bytes. With
 * HOST_TSO4 (IPv4) and HOST_TSO6 (IPv6) consecutive TCP segments of one
 * flow are first merged into one chain, and a large TCP segment (longer
 * than the MTU: NETDEV_OFF_TSO4/6) goes as one chain for the device to
 * cut (virtio_net_gso.c); any other frame longer than the MTU is refused
 * (tx_bad_len), as the device would put it on the wire whole. xmit and
 * tx_reap run under the stack's TX guard (netdev.h), so a TX ring has one
 * user at a time even when a CPU without a pair of its own borrows it.
 */
#include <string.h>

#include "drv_port.h"
#include "frame_hdr.h"
#include "mm/mm.h"
#include "virtio_net_internal.h"

/* Post RX buffers until the ring is full or memory runs out. */
static void rx_refill(struct vnet *vn, int q)
{
	struct virtq *vq = &vn->pairs[q].rxq;
	struct netdev_stats *st = &vn->dev.queues[q].stats;

	while (vq->num_free > 0) {
		uint8_t *buf = napi_alloc_frag(RX_BUF_SIZE);

		if (!buf) {
			st->rx_refill_fail++;
			break;
		}
		buf += NETDEV_RX_HEADROOM;
		virtq_add_one(vq, drv_dma_addr(buf), RX_BUF_LEN, true, buf);
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
			(unsigned int)flags | (i < last ? NETDEV_RX_MORE : 0),
			0);
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
		/* A constant size, so two moves rather than a call. Every
		 * buffer is RX_BUF_LEN long, so the 12 bytes are there even
		 * when the header is 10 (legacy, no MRG_RXBUF): then the
		 * last field read is frame data, and is cleared. */
		__builtin_memcpy(&c->hdr, buf, sizeof(c->hdr));
		if (vn->hdr_len < sizeof(c->hdr))
			c->hdr.num_buffers = 0;
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
		struct vnet_gso_slot *s =
			vnet_gso_slot_of(&vn->pairs[q], cookie);
		int segs = s ? s->nseg : 1;

		/* A merged chain (HOST_TSO4/6) gives back each of its
		 * frames. */
		for (int i = 0; i < segs; i++)
			dev->tx_done(dev, q, s ? s->cookie[i] : cookie);
		st->tx_completed += (uint64_t)segs;
		st->tx_inflight -= (uint64_t)segs;
		n += segs;
	}
	st->tx_bad_completions = vq->bad_used;
	return n;
}

static bool vnet_tx_pending(struct netdev *dev, int q)
{
	struct vnet *vn = dev->priv;

	return virtq_used_pending(&vn->pairs[q].txq);
}

/* Reap when fewer than n descriptors are free; true when n are free. */
static bool vnet_tx_room(struct vnet *vn, int q, int n)
{
	struct virtq *vq = &vn->pairs[q].txq;

	if (vq->num_free < n)
		vnet_tx_reap(&vn->dev, q);
	return vq->num_free >= n;
}

/* Post one frame as the stack gave it (a header asking for the sum when
 * CSUM is on). Return: 0, or -1 when the ring is full or the frame is
 * longer than the MTU (a frame the device sends whole). */
static int vnet_post_frame(struct vnet *vn, int q, const struct netdev_sg *sg,
			   int nsg, void *cookie)
{
	struct vnet_pair *p = &vn->pairs[q];
	struct netdev_stats *st = &vn->dev.queues[q].stats;
	struct virtq_buf bufs[NETDEV_MAX_SG + 1];
	uint32_t bytes = 0;
	uint16_t head;

	for (int i = 0; i < nsg; i++)
		bytes += sg[i].len;
	if (bytes > FRAME_ETH_HLEN + (uint32_t)vn->dev.mtu) {
		st->tx_bad_len++;
		return -1;
	}
	if (!vnet_tx_room(vn, q, nsg + 1)) {
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
	for (int i = 0; i < nsg; i++)
		bufs[i + 1] = (struct virtq_buf){drv_dma_addr(sg[i].addr),
						 sg[i].len, 0};
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

/*
 * HOST_TSO4/6 (tcp_merge.c has the rules, virtio_net_gso.c the merged
 * header). What the pair's tx_batch holds always fits in the ring: a
 * segment joins only when the ring has room for the merged chain, a batch
 * starts only when it has room for its first frame as it will go (a
 * plain chain, or a large segment's GSO chain), and nothing but xmit adds
 * to the ring (reaping only frees). So posting what is held never fails,
 * and an xmit that returns -1 (ring full) has posted the batch first and
 * queued nothing of its own frame, as without HOST_TSO4/6.
 */

/* Post the held batch (several segments, or one large) as one GSO chain
 * for the device to cut: the vnet header, the driver's copy of the frame
 * headers, every segment's payload in place; its cookie is the head's
 * slot, which lists the stack's cookies.
 * Should virtq_add refuse all the same, the segments are given back as
 * if sent (TCP sends them again). */
static void vnet_gso_post_merged(struct vnet *vn, int q,
				 struct tcp_merge_batch *b)
{
	struct vnet_pair *p = &vn->pairs[q];
	struct netdev_stats *st = &vn->dev.queues[q].stats;
	struct virtq_buf bufs[2 + TCP_MERGE_PAY_MAX];
	uint16_t head = p->txq.free_head;
	struct vnet_gso_slot *slot = &p->tx_gso[head];

	vnet_gso_headers(b, slot->hdr, &p->tx_hdrs[head]);
	slot->nseg = b->nseg;
	memcpy(slot->cookie, b->cookie, sizeof(b->cookie[0]) * b->nseg);
	bufs[0] = (struct virtq_buf){drv_dma_addr(&p->tx_hdrs[head]),
				     vn->hdr_len, 0};
	bufs[1] = (struct virtq_buf){drv_dma_addr(slot->hdr), b->hlen, 0};
	for (int i = 0; i < b->npay; i++)
		bufs[2 + i] = (struct virtq_buf){drv_dma_addr(b->pay[i].addr),
						 b->pay[i].len, 0};
	if (virtq_add(&p->txq, bufs, 2 + b->npay, slot) != 0) {
		st->tx_busy += (uint64_t)b->nseg;
		for (int i = 0; i < b->nseg; i++)
			vn->dev.tx_done(&vn->dev, q, b->cookie[i]);
		return;
	}
	virtq_publish(&p->txq);
	st->tx_packets += (uint64_t)b->nseg;
	st->tx_bytes += b->bytes;
	st->tx_inflight += (uint64_t)b->nseg;
	st->tx_csum_offloaded += (uint64_t)b->nseg;
	st->tx_gso_frames++;
	st->tx_gso_segs += tcp_merge_wire_segs(b);
}

/* Post what the batch holds: one MSS segment as it came; several, or one
 * large, as a GSO chain. */
static void vnet_gso_post(struct vnet *vn, int q)
{
	struct tcp_merge_batch *b = vn->pairs[q].tx_batch;

	if (tcp_merge_needs_cut(b))
		vnet_gso_post_merged(vn, q, b);
	else if (b->nseg == 1 &&
		 vnet_post_frame(vn, q, b->first, b->first_nsg, b->cookie[0]))
		vn->dev.tx_done(&vn->dev, q, b->cookie[0]); /* see above */
	b->nseg = 0;
}

/* May a parsed segment merge: was its family's TSO negotiated, and do
 * its headers fit the chain's slot? */
static bool vnet_gso_may_merge(const struct vnet *vn,
			       const struct tcp_merge_seg *s)
{
	return s->hlen <= VNET_GSO_HDR_MAX &&
	       vnet_has(vn->features, s->ipv6 ? VIRTIO_NET_F_HOST_TSO6
					      : VIRTIO_NET_F_HOST_TSO4);
}

/* xmit with HOST_TSO4/6: hold, merge, or send; the wire order is kept.
 * A large segment is posted at once, after what was held; one the device
 * may not cut goes to vnet_post_frame, which refuses it. */
static int vnet_gso_xmit(struct vnet *vn, int q, const struct netdev_sg *sg,
			 int nsg, void *cookie)
{
	struct tcp_merge_batch *b = vn->pairs[q].tx_batch;
	struct tcp_merge_seg s;
	int need;

	if (!tcp_merge_parse(sg, nsg,
			     vnet_has(vn->features, VIRTIO_NET_F_HOST_TSO6),
			     vn->dev.mtu, &s) ||
	    !vnet_gso_may_merge(vn, &s)) {
		vnet_gso_post(vn, q); /* what is held goes first */
		return vnet_post_frame(vn, q, sg, nsg, cookie);
	}
	if (tcp_merge_continues(b, &s) &&
	    vnet_tx_room(vn, q, 2 + b->npay + s.npay)) {
		if (tcp_merge_add(b, &s, cookie))
			vnet_gso_post(vn, q);
		return 0;
	}
	vnet_gso_post(vn, q);
	/* as it will go: a plain chain, or the GSO chain (the vnet header,
	 * the copied frame headers, the payload pieces) */
	need = s.large ? 2 + s.npay : nsg + 1;
	if (!vnet_tx_room(vn, q, need)) {
		vn->dev.queues[q].stats.tx_busy++;
		return -1;
	}
	if (tcp_merge_start(b, &s, sg, nsg, cookie))
		vnet_gso_post(vn, q);
	return 0;
}

static int vnet_xmit(struct netdev *dev, int q, const struct netdev_sg *sg,
		     int nsg, void *cookie)
{
	struct vnet *vn = dev->priv;

	if (nsg < 1 || nsg > NETDEV_MAX_SG || !cookie)
		return -1;
	if (vn->pairs[q].tx_batch)
		return vnet_gso_xmit(vn, q, sg, nsg, cookie);
	return vnet_post_frame(vn, q, sg, nsg, cookie);
}

/* One notify for every frame xmit published since the last one. */
static void vnet_tx_flush(struct netdev *dev, int q)
{
	struct vnet *vn = dev->priv;
	struct virtq *vq = &vn->pairs[q].txq;
	struct netdev_stats *st = &dev->queues[q].stats;

	if (vn->pairs[q].tx_batch) /* what HOST_TSO4/6 held goes now */
		vnet_gso_post(vn, q);
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
	.set_rss_table = vnet_set_rss_table,
};
