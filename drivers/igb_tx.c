/*
 * igb: the TX ring (82576 datasheet 7.2), below the xmit op (igb.c) and
 * TSO (igb_tso.c), which both queue frames through it.
 *
 * A frame whose TCP/UDP sum the device fills (the stack leaves it:
 * NETDEV_OFF_TX_CSUM) takes a context descriptor first (MAC header and
 * IP header lengths, IPv4 or not, TCP or UDP), then one data descriptor
 * per segment with TXSM set on the first; the sum field is seeded with
 * the pseudo-header sum (frame_hdr.c, as for virtio-net). Any other frame
 * goes without the context. Every descriptor asks for the CRC (IFCS);
 * the last asks for EOP and RS, so DD comes back on the frame's last slot
 * only, and igb_tx_reclaim walks frames oldest first, handing back every
 * cookie their slots carry.
 */
#include "igb_internal.h"

#include <stdatomic.h>

#include "frame_hdr.h"

#define TX_MASK	    (IGB_TX_RING - 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

static unsigned int tx_free_slots(const struct igb_tx_ring *t)
{
	return IGB_TX_RING - 1u - t->used;
}

/* Every frame of queue q the device has finished, back to the stack,
 * oldest first, stopping at the first one still in flight: each cookie
 * its slots carry (one, or a merged frame's segments, in order). */
void igb_tx_reclaim(struct igb *g, int q)
{
	struct igb_tx_ring *t = &g->pairs[q]->tx;
	struct netdev_stats *st = &g->dev.queues[q].stats;

	while (t->used) {
		uint16_t first = t->clean, last = t->last[first];

		if (!(t->desc[last].wb.status & IGB_TXD_STAT_DD))
			break;
		atomic_thread_fence(memory_order_acquire);
		t->used =
			(uint16_t)(t->used - (((last - first) & TX_MASK) + 1));
		t->clean = (uint16_t)((last + 1) & TX_MASK);
		for (uint16_t slot = first;; slot = (slot + 1) & TX_MASK) {
			void *cookie = t->cookie[slot];

			if (cookie) {
				t->cookie[slot] = NULL;
				st->tx_completed++;
				st->tx_inflight--;
				g->dev.tx_done(&g->dev, q, cookie);
			}
			if (slot == last)
				break;
		}
	}
}

/* One TDT write for every frame queued on q since the last one. */
void igb_tx_publish(struct igb *g, int q)
{
	struct igb_tx_ring *t = &g->pairs[q]->tx;

	if (t->tail == t->tdt)
		return;
	atomic_thread_fence(memory_order_release);
	igb_wr32(g, IGB_TDT(q), t->tail);
	t->tdt = t->tail;
	g->dev.queues[q].stats.tx_doorbells++;
}

bool igb_tx_room(struct igb *g, int q, unsigned int need)
{
	const struct igb_tx_ring *t = &g->pairs[q]->tx;

	if (tx_free_slots(t) < need) {
		/* Short of slots: publish what is queued, then take back
		 * what is done (QEMU sends during the TDT write itself). */
		igb_tx_publish(g, q);
		igb_tx_reclaim(g, q);
	}
	return tx_free_slots(t) >= need;
}

uint32_t igb_tx_pieces_len(const struct netdev_sg *sg, int nsg)
{
	uint32_t bytes = 0;

	if (nsg < 1 || nsg > NETDEV_MAX_SG)
		return 0;
	for (int i = 0; i < nsg; i++) {
		if (sg[i].len == 0 || sg[i].len > IGB_TXD_LEN_MAX)
			return 0;
		bytes += sg[i].len;
	}
	return bytes;
}

/* The stack's segments, checked: igb_tx_pieces_len, and the frame no
 * longer than the MTU lets a frame the device sends whole be. Returns the
 * frame's bytes or 0. */
static uint32_t tx_frame_len(const struct igb *g, const struct netdev_sg *sg,
			     int nsg)
{
	uint32_t bytes = igb_tx_pieces_len(sg, nsg);

	return bytes <= FRAME_ETH_HLEN + (uint32_t)g->dev.mtu ? bytes : 0;
}

/* The context descriptor for the TCP/UDP sum of frame f, at slot. */
static void tx_put_csum_ctx(struct igb_tx_ring *t, uint16_t slot,
			    const struct frame_l4 *f)
{
	volatile struct igb_tx_ctx_desc *c =
		(volatile struct igb_tx_ctx_desc *)&t->desc[slot];

	c->vlan_macip_lens = IGB_CTX_MACLEN(f->l3) | (f->l4 - f->l3);
	c->seqnum_seed = 0;
	c->type_tucmd_mlhl =
		IGB_TXD_CMD_DEXT | IGB_TXD_DTYP_CTXT |
		(f->ipv6 ? 0 : IGB_CTX_TUCMD_IPV4) |
		(f->proto == FRAME_PROTO_TCP ? IGB_CTX_TUCMD_TCP : 0);
	c->mss_l4len_idx = 0;
}

uint16_t igb_tx_put_data(struct igb_tx_ring *t, uint16_t slot,
			 const struct netdev_sg *sg, int nsg, uint32_t paylen,
			 uint32_t popts, uint32_t cmd)
{
	for (int i = 0; i < nsg; i++) {
		volatile union igb_tx_desc *d = &t->desc[slot];
		bool last = i == nsg - 1;

		d->read.addr = drv_dma_addr(sg[i].addr);
		d->read.cmd_type_len =
			sg[i].len | IGB_TXD_DTYP_DATA | IGB_TXD_CMD_DEXT |
			IGB_TXD_CMD_IFCS | cmd |
			(last ? IGB_TXD_CMD_EOP | IGB_TXD_CMD_RS : 0);
		/* PAYLEN (the whole frame, or with TSO the payload alone)
		 * and the offloads go on the first data descriptor; the
		 * status is cleared on each, so no stale DD. */
		d->read.olinfo = i == 0 ? IGB_TXD_PAYLEN(paylen) | popts : 0;
		if (!last)
			slot = (uint16_t)((slot + 1) & TX_MASK);
	}
	return slot;
}

int igb_post_frame(struct igb *g, int q, const struct netdev_sg *sg, int nsg,
		   void *cookie)
{
	struct igb_tx_ring *t = &g->pairs[q]->tx;
	struct netdev_stats *st = &g->dev.queues[q].stats;
	uint32_t bytes = tx_frame_len(g, sg, nsg);
	struct frame_l4 f;
	bool csum;
	uint16_t first = t->tail, slot = first, last;
	unsigned int need;

	if (unlikely(bytes == 0)) {
		st->tx_bad_len++; /* refused, nothing queued */
		return -1;
	}
	csum = frame_find_l4(sg, nsg, &f);
	need = (unsigned int)nsg + (csum ? 1 : 0);
	if (!igb_tx_room(g, q, need)) {
		st->tx_busy++;
		return -1;
	}
	if (csum) {
		frame_put_l4_sum(sg, nsg, &f, frame_pseudo_sum(&f, f.l4len));
		tx_put_csum_ctx(t, slot, &f);
		slot = (uint16_t)((slot + 1) & TX_MASK);
		st->tx_csum_offloaded++;
	}
	last = igb_tx_put_data(t, slot, sg, nsg, bytes,
			       csum ? IGB_TXD_POPTS_TXSM : 0, 0);
	t->last[first] = last;
	t->cookie[last] = cookie;
	t->used = (uint16_t)(t->used + need);
	t->tail = (uint16_t)((last + 1) & TX_MASK);
	st->tx_packets++;
	st->tx_bytes += bytes;
	st->tx_inflight++;
	return 0;
}
