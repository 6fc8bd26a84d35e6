/*
 * igb: the per-packet path -- advanced RX and TX descriptors, one ring
 * pair per queue, polled by the queue's CPU (82576 datasheet 7.1, 7.2).
 *
 * Rings. As e1000's: a page of 16-byte descriptors per ring on the
 * queue's node, the device owning the slots from head (RDH/TDH, which we
 * never read) up to tail (RDT/TDT, which only we write); the DD bit the
 * device writes back tells us a slot is ours again.
 *
 * RX. Each posted slot holds one IGB_RX_BUF-byte buffer (SRRCTL says
 * 2 KiB, header split off), the part after NETDEV_RX_HEADROOM of a
 * napi_alloc_frag() allocation made by the queue's own CPU in poll
 * context, so a queue's buffers come from its CPU's node. Posting writes
 * the read format (buffer address, header address 0); the device
 * overwrites the same 16 bytes with the write-back format, whose status
 * (DD, EOP), errors, length and RSS hash we read after an acquire fence.
 * A buffer leaves buf[] before anything else is decided, so nothing the
 * device writes can hand one buffer out twice. What is refused, counted,
 * and never passed up: a frame without EOP (longer than a buffer, which
 * cannot happen with long packets off) together with the rest of it up
 * to its EOP (rx_bad_len, once), a frame the device flagged bad
 * (rx_errors), a length of 0 or past the buffer or NETDEV_FRAME_MAX
 * (rx_bad_len). A checksum the device checked and found right flags the
 * frame NETDEV_RX_CSUM_OK; one it found wrong is left to lwIP's check.
 *
 * TX. xmit queues a frame as it came (igb_tx.c: the ring, the checksum
 * context, reclaim) or, for TCP segments, through the batch igb_tso.c
 * merges for the device to cut again. xmit does not write TDT: tx_flush
 * does, once per burst, as in e1000.c.
 */
#include "igb_internal.h"

#include <stdatomic.h>

#include "mm/mm.h"

_Static_assert((IGB_RX_RING & (IGB_RX_RING - 1)) == 0, "power of two");
_Static_assert((IGB_TX_RING & (IGB_TX_RING - 1)) == 0, "power of two");
_Static_assert(IGB_RX_RING * sizeof(union igb_rx_desc) <= MM_PAGE_SIZE &&
		       IGB_TX_RING * sizeof(union igb_tx_desc) <= MM_PAGE_SIZE,
	       "each ring fits in one page");

#define RX_MASK	    (IGB_RX_RING - 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* ---------------------------------------------------------------- RX */

/*
 * rx_refill - a buffer in every free slot of queue q (up to N - 1
 * owned), published with one RDT write. Poll context of q's CPU only:
 * napi_alloc_frag() uses that CPU's unguarded cache. A failed allocation
 * is counted and leaves the rest for the next poll.
 */
static void rx_refill(struct igb *g, int q)
{
	struct igb_rx_ring *r = &g->pairs[q]->rx;
	struct netdev_stats *st = &g->dev.queues[q].stats;
	uint16_t old_tail = r->tail;

	while (r->posted < IGB_RX_RING - 1) {
		volatile union igb_rx_desc *d = &r->desc[r->tail];
		uint8_t *buf = napi_alloc_frag(IGB_RX_ALLOC);

		if (unlikely(!buf)) {
			st->rx_refill_fail++;
			break;
		}
		buf += NETDEV_RX_HEADROOM;
		r->buf[r->tail] = buf;
		d->read.pkt_addr = drv_dma_addr(buf);
		d->read.hdr_addr = 0; /* also clears a stale DD */
		r->tail = (uint16_t)((r->tail + 1) & RX_MASK);
		r->posted++;
		st->rx_bufs_posted++;
		st->rx_refills++;
	}
	if (r->tail != old_tail) {
		atomic_thread_fence(memory_order_release);
		igb_wr32(g, IGB_RDT(q), r->tail);
	}
}

/* Is this buffer's content a frame we pass up? Counts why not. */
static bool rx_frame_ok(struct igb_rx_ring *r, struct netdev_stats *st,
			uint32_t staterr, uint32_t len)
{
	if (unlikely(!(staterr & IGB_RXD_STAT_EOP))) {
		/* First piece of a frame longer than a buffer: drop it and
		 * every piece up to its EOP, counting the frame once. */
		if (!r->discard)
			st->rx_bad_len++;
		r->discard = true;
		return false;
	}
	if (unlikely(r->discard)) { /* the last piece of such a frame */
		r->discard = false;
		return false;
	}
	if (unlikely(staterr & IGB_RXD_ERR_FRAME)) {
		st->rx_errors++;
		return false;
	}
	if (unlikely(len == 0 || len > IGB_RX_BUF || len > NETDEV_FRAME_MAX)) {
		st->rx_bad_len++;
		return false;
	}
	return true;
}

/* The rx callback's flags for a good frame: the device's checksum verdict
 * (only "checked and right" is worth telling) and the RSS hash's kind. */
static unsigned int rx_flags(uint32_t staterr, uint16_t pkt_info)
{
	unsigned int flags = 0;

	if ((staterr & IGB_RXD_STAT_L4CS) &&
	    !(staterr & (IGB_RXD_ERR_L4E | IGB_RXD_ERR_IPE)))
		flags |= NETDEV_RX_CSUM_OK;
	switch (pkt_info & IGB_RSS_TYPE_MASK) {
	case 0:
		break;
	case IGB_RSS_TYPE_IPV4:
	case IGB_RSS_TYPE_IPV6:
	case IGB_RSS_TYPE_IPV6_EX:
		flags |= NETDEV_RX_HASH_L3;
		break;
	default:
		flags |= NETDEV_RX_HASH_L4;
		break;
	}
	return flags;
}

/* One frame taken from the ring, waiting to go up. */
struct rx_got {
	uint8_t *buf;
	uint32_t len, hash;
	unsigned int flags;
};

/*
 * rx_take - take the buffer of queue q's oldest owned slot, which the
 * device has marked done (staterr, read before the acquire fence). The
 * buffer leaves buf[] first. Returns true with *got filled when it holds
 * a frame to pass up; false when the frame was dropped (then it is freed
 * and counted).
 */
static bool rx_take(struct igb *g, int q, uint32_t staterr, struct rx_got *got)
{
	struct igb_rx_ring *r = &g->pairs[q]->rx;
	struct netdev_stats *st = &g->dev.queues[q].stats;
	volatile union igb_rx_desc *d = &r->desc[r->next];
	uint8_t *buf = r->buf[r->next];
	uint32_t len = d->wb.length;
	uint16_t pkt_info = d->wb.pkt_info;
	uint32_t hash = d->wb.rss_hash;

	r->buf[r->next] = NULL;
	r->next = (uint16_t)((r->next + 1) & RX_MASK);
	r->posted--;
	st->rx_bufs_posted--;
	if (unlikely(!buf)) { /* cannot happen: every owned slot has one */
		st->rx_bad_completions++;
		return false;
	}
	if (!rx_frame_ok(r, st, staterr, len)) {
		page_frag_free(buf);
		return false;
	}
	got->buf = buf;
	got->len = len;
	got->flags = rx_flags(staterr, pkt_info);
	if (got->flags & NETDEV_RX_CSUM_OK)
		st->rx_csum_valid++;
	got->hash =
		got->flags & (NETDEV_RX_HASH_L3 | NETDEV_RX_HASH_L4) ? hash : 0;
	return true;
}

/*
 * igb_rx_poll - take up to budget frames of queue q, give the ring fresh
 * buffers, and only then hand the frames up (the device is never short
 * of buffers while the stack works on a batch). Returns the RX
 * descriptors consumed. The first poll also fills the empty ring, from
 * the polling CPU's frag cache.
 */
static int igb_rx_poll(struct netdev *dev, int q, int budget)
{
	struct igb *g = dev->priv;
	struct igb_rx_ring *r = &g->pairs[q]->rx;
	struct netdev_stats *st = &dev->queues[q].stats;
	struct rx_got got[IGB_POLL_MAX];
	int taken = 0, n = 0;

	if (budget > IGB_POLL_MAX)
		budget = IGB_POLL_MAX;
	while (taken < budget && r->posted) {
		uint32_t staterr = r->desc[r->next].wb.staterr;

		if (!(staterr & IGB_RXD_STAT_DD))
			break;
		atomic_thread_fence(memory_order_acquire);
		if (rx_take(g, q, staterr, &got[n]))
			n++;
		taken++;
	}
	if (r->posted < IGB_RX_RING - 1)
		rx_refill(g, q);
	for (int i = 0; i < n; i++) {
		st->rx_packets++;
		st->rx_bytes += got[i].len;
		dev->rx(dev, q, got[i].buf, got[i].len, got[i].flags,
			got[i].hash);
	}
	if (q == 0 && drv_clock_ms() >= g->stats_due_ms) {
		g->stats_due_ms = drv_clock_ms() + IGB_STATS_MS;
		st->rx_missed += igb_rd32(g, E1000_MPC);
	}
	return taken;
}
/* ---------------------------------------------------------------- TX */

static void igb_tx_flush(struct netdev *dev, int q)
{
	struct igb *g = dev->priv;

	if (g->pairs[q]->tx.batch)
		igb_tso_flush(g, q); /* what the batch holds goes out too */
	igb_tx_publish(g, q);
}

/* The oldest frame in flight on q shows DD: a hint, read unguarded. */
static bool igb_tx_pending(struct netdev *dev, int q)
{
	const struct igb_tx_ring *t = &((struct igb *)dev->priv)->pairs[q]->tx;
	uint16_t used = *(const volatile uint16_t *)&t->used;
	uint16_t last = t->last[*(const volatile uint16_t *)&t->clean];

	return used && (t->desc[last].wb.status & IGB_TXD_STAT_DD);
}

static int igb_tx_reap(struct netdev *dev, int q)
{
	struct igb *g = dev->priv;
	uint64_t before = dev->queues[q].stats.tx_completed;

	igb_tx_reclaim(g, q);
	return (int)(dev->queues[q].stats.tx_completed - before);
}

/* xmit: TCP segments go through the TSO batch when the queue has one
 * (igb_tso.c), every other frame as it came (after what is held). */
static int igb_xmit(struct netdev *dev, int q, const struct netdev_sg *sg,
		    int nsg, void *cookie)
{
	struct igb *g = dev->priv;

	if (!cookie)
		return -1; /* it must come back: it is how the stack knows */
	if (g->pairs[q]->tx.batch)
		return igb_tso_xmit(g, q, sg, nsg, cookie);
	return igb_post_frame(g, q, sg, nsg, cookie);
}

/* Link state: STATUS.LU, each change printed and counted (gbe_hw.c). */
static bool igb_link_up(struct netdev *dev)
{
	struct igb *g = dev->priv;

	return gbe_link_up(&g->hw, dev);
}

const struct netdev_ops igb_ops = {
	.xmit = igb_xmit,
	.rx_poll = igb_rx_poll,
	.tx_reap = igb_tx_reap,
	.tx_pending = igb_tx_pending,
	.tx_flush = igb_tx_flush,
	.link_up = igb_link_up,
	.irq_setup = igb_irq_setup,
	.irq_arm = igb_irq_arm,
	.irq_disarm = igb_irq_disarm,
	.link_changed = igb_link_changed,
	.set_rss_table = igb_set_rss_table,
};
