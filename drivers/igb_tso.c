/*
 * igb TCP segmentation offload (82576 datasheet 7.2.4): the device cuts
 * one big TCP frame into MSS-sized segments, writing each one's IP
 * length, IPv4 id and sum, TCP sequence number, flags and sum itself.
 *
 * The stack hands xmit two kinds of TCP segment (tcp_merge.h). MSS
 * segments, one at a time: as virtio-net does for HOST_TSO4, the driver
 * holds one and merges the next ones of the same flow (tcp_merge.c says
 * which may merge: IPv4, and IPv6 with TCP right after the fixed header)
 * until the batch is full, a frame of another kind comes, or the stack
 * flushes (tx_flush, once per hold of its TX guard). And large segments,
 * longer than the MTU (the stack builds them while dev.offloads has
 * NETDEV_OFF_TSO4/6, set when the tables below were allocated): each a
 * batch of its own, posted at once after what was held; any other frame
 * longer than the MTU is refused (tx_bad_len). A batch of one MSS
 * segment goes out as the very frame it was (igb_post_frame); a batch of
 * several, or a large segment, as:
 *
 *   context descriptor   MACLEN, IPLEN, TCP (and IPv4), L4LEN = the TCP
 *                        header, MSS = the first segment's payload
 *                        (merged) or the MTU less the IP and TCP headers
 *                        (large: lwIP's own MSS, so the wire carries the
 *                        segments lwIP would have sent)
 *   data descriptor      the merged headers, a copy in the ring slot's
 *                        igb_tso_slot (the stack's own stay untouched)
 *   data descriptors     every segment's payload, in place
 *
 * with TSE on each data descriptor and, on the first, PAYLEN = the
 * payload bytes and POPTS = TXSM (and IXSM for IPv4). The merged headers
 * carry the whole datagram's length, the IPv4 sum zeroed (the device
 * fills each segment's), PSH if any segment had it (the 82576's
 * DTXTCPFLGL masks keep it on the last segment only), and the TCP sum
 * seeded with the pseudo-header sum over the addresses and protocol
 * without a length: the device adds each segment's own.
 *
 * A large segment's FIN goes apart. The 82576 would set FIN, as PSH, on
 * the last segment it cuts; but QEMU's igb model, when its backend takes
 * no vnet header (user networking), cuts in software and clears FIN and
 * PSH on every segment, the last too: the stream's end would never
 * reach the peer, and every retransmission would lose it again. So the
 * TSO frame goes without FIN, and right after it, in the same slots'
 * run, a segment of no payload with ACK|FIN at the sequence that
 * follows (headers in its own slot's copy, sums by the device): what
 * any TCP may send, whatever cuts the frame.
 *
 * The merged headers are kept by the frame's first slot, the stack's
 * cookies in its first slots (it takes at least two per segment), where
 * tx_reclaim finds and hands them back once DD comes on its last. Ring
 * room: a segment joins only when the ring has room for the merged frame,
 * a batch starts only when it has room for its first frame as it will go
 * (as it came, or a large one's TSO frame: the context, the headers, the
 * payload pieces, and its FIN's two), and nothing but xmit fills the
 * ring, so posting a batch never fails.
 */
#include "igb_internal.h"

#include <string.h>

#include "frame_hdr.h"
#include "mm/mm.h"

#define TX_MASK	     (IGB_TX_RING - 1)
#define TCP_FLAG_FIN 0x01
#define TCP_FLAG_PSH 0x08

bool igb_tso_alloc(struct igb *g, int q)
{
	struct igb_tx_ring *t = &g->pairs[q]->tx;
	int node = g->dev.queues[q].node;

	t->tso_hdr = kmalloc_node(sizeof(*t->tso_hdr) * IGB_TX_RING,
				  __GFP_ZERO | __GFP_NOWARN, node);
	t->batch = kmalloc_node(sizeof(*t->batch), __GFP_ZERO | __GFP_NOWARN,
				node);
	if (t->tso_hdr && t->batch)
		return true;
	igb_tso_free(g, q);
	return false;
}

void igb_tso_free(struct igb *g, int q)
{
	struct igb_tx_ring *t = &g->pairs[q]->tx;

	kfree(t->tso_hdr);
	kfree(t->batch);
	t->tso_hdr = NULL;
	t->batch = NULL;
}

/* The merged frame's headers, from the first segment's, into h. */
static void tso_headers(const struct tcp_merge_batch *b, uint8_t *h)
{
	uint32_t ip_len = b->hlen - FRAME_ETH_HLEN + b->payload;
	struct netdev_sg one = {h, b->hlen};
	struct frame_l4 f;

	memcpy(h, b->hdr, b->hlen);
	if (b->ipv6) {
		frame_put_be16(h + FRAME_ETH_HLEN + 4,
			       ip_len - FRAME_IPV6_HLEN);
	} else {
		frame_put_be16(h + FRAME_ETH_HLEN + 2, ip_len);
		frame_put_be16(h + FRAME_ETH_HLEN + 10, 0);
	}
	if (b->psh)
		h[b->l4 + 13] |= TCP_FLAG_PSH;
	/* tcp_merge_parse took only such headers: always found */
	if (frame_find_l4(&one, 1, &f))
		frame_put_l4_sum(&one, 1, &f, frame_pseudo_sum(&f, 0));
}

/* The context for b's headers at slot: TCP (and IPv4) sums, and with
 * mss (not 0) the cutting. */
static void tso_put_ctx(struct igb_tx_ring *t, uint16_t slot,
			const struct tcp_merge_batch *b, uint32_t mss)
{
	volatile struct igb_tx_ctx_desc *c =
		(volatile struct igb_tx_ctx_desc *)&t->desc[slot];

	c->vlan_macip_lens =
		IGB_CTX_MACLEN(FRAME_ETH_HLEN) | (b->l4 - FRAME_ETH_HLEN);
	c->seqnum_seed = 0;
	c->type_tucmd_mlhl = IGB_TXD_CMD_DEXT | IGB_TXD_DTYP_CTXT |
			     (b->ipv6 ? 0 : IGB_CTX_TUCMD_IPV4) |
			     IGB_CTX_TUCMD_TCP;
	c->mss_l4len_idx = IGB_CTX_MSS(mss) | IGB_CTX_L4LEN(b->hlen - b->l4);
}

/* Does b hold a large segment with FIN, which goes apart (see above)? */
static bool tso_fin_apart(const struct tcp_merge_batch *b)
{
	return b->large && (b->hdr[b->l4 + 13] & TCP_FLAG_FIN);
}

/* The FIN that follows b's TSO frame, from slot on: its headers in the
 * slot's copy (no payload, the sequence after b's, ACK|FIN), a context
 * and one data descriptor asking for both sums. Returns its last slot. */
static uint16_t tso_put_fin(struct igb_tx_ring *t, uint16_t slot,
			    const struct tcp_merge_batch *b)
{
	uint8_t *h = t->tso_hdr[slot];
	uint32_t ip_len = b->hlen - FRAME_ETH_HLEN;
	uint32_t seq = b->next_seq; /* the sequence after the payload */
	struct netdev_sg one = {h, b->hlen};
	struct frame_l4 f;

	memcpy(h, b->hdr, b->hlen);
	frame_put_be16(h + b->l4 + 4, seq >> 16);
	frame_put_be16(h + b->l4 + 6, seq & 0xffff);
	h[b->l4 + 13] &= (uint8_t)~TCP_FLAG_PSH;
	if (b->ipv6) {
		frame_put_be16(h + FRAME_ETH_HLEN + 4,
			       ip_len - FRAME_IPV6_HLEN);
	} else {
		frame_put_be16(h + FRAME_ETH_HLEN + 2, ip_len);
		frame_put_be16(h + FRAME_ETH_HLEN + 10, 0);
	}
	if (frame_find_l4(&one, 1, &f))
		frame_put_l4_sum(&one, 1, &f, frame_pseudo_sum(&f, f.l4len));
	tso_put_ctx(t, slot, b, 0);
	return igb_tx_put_data(
		t, (uint16_t)((slot + 1) & TX_MASK), &one, 1, b->hlen,
		IGB_TXD_POPTS_TXSM | (b->ipv6 ? 0 : IGB_TXD_POPTS_IXSM), 0);
}

/* The ring slots a large segment s takes: the context, the headers' copy
 * and the payload pieces, and 2 more for a FIN apart. */
static unsigned int tso_large_slots(const struct tcp_merge_seg *s)
{
	return 2u + (unsigned int)s->npay +
	       ((s->flags & TCP_FLAG_FIN) ? 2u : 0u);
}

/* Post the held batch (several segments, or one large) as one TSO frame,
 * and a large one's FIN apart after it; the ring has room. The two are
 * one run of slots for tx_reclaim: the cookies come back when both are
 * done. */
static void tso_post_merged(struct igb *g, int q,
			    const struct tcp_merge_batch *b)
{
	struct igb_tx_ring *t = &g->pairs[q]->tx;
	struct netdev_stats *st = &g->dev.queues[q].stats;
	struct netdev_sg pieces[1 + TCP_MERGE_PAY_MAX];
	bool fin = tso_fin_apart(b);
	unsigned int need = 2u + (unsigned int)b->npay + (fin ? 2u : 0u);
	uint16_t first = t->tail, last;
	uint8_t *hdr = t->tso_hdr[first];

	tso_headers(b, hdr);
	if (fin)
		hdr[b->l4 + 13] &= (uint8_t)~TCP_FLAG_FIN;
	pieces[0] = (struct netdev_sg){hdr, b->hlen};
	memcpy(pieces + 1, b->pay, sizeof(b->pay[0]) * (size_t)b->npay);
	tso_put_ctx(t, first, b, b->gso_size);
	last = igb_tx_put_data(t, (uint16_t)((first + 1) & TX_MASK), pieces,
			       1 + b->npay, b->payload,
			       IGB_TXD_POPTS_TXSM |
				       (b->ipv6 ? 0 : IGB_TXD_POPTS_IXSM),
			       IGB_TXD_CMD_TSE);
	if (fin)
		last = tso_put_fin(t, (uint16_t)((last + 1) & TX_MASK), b);
	/* each segment has a payload piece: nseg <= npay < need slots */
	for (int i = 0; i < b->nseg; i++)
		t->cookie[(first + i) & TX_MASK] = b->cookie[i];
	t->last[first] = last;
	t->used = (uint16_t)(t->used + need);
	t->tail = (uint16_t)((last + 1) & TX_MASK);
	st->tx_packets += (uint64_t)b->nseg;
	st->tx_bytes += b->bytes;
	st->tx_inflight += (uint64_t)b->nseg;
	st->tx_csum_offloaded += (uint64_t)b->nseg;
	st->tx_gso_frames++;
	st->tx_gso_segs += tcp_merge_wire_segs(b);
}

void igb_tso_flush(struct igb *g, int q)
{
	struct tcp_merge_batch *b = g->pairs[q]->tx.batch;

	/* A batch of one had room when it was held: the post cannot fail;
	 * should it all the same, the segment goes back as if sent (TCP
	 * sends it again), as the stack's cookie must come back once. */
	if (tcp_merge_needs_cut(b))
		tso_post_merged(g, q, b);
	else if (b->nseg == 1 && igb_post_frame(g, q, b->first, b->first_nsg,
						b->cookie[0]) != 0)
		g->dev.tx_done(&g->dev, q, b->cookie[0]);
	b->nseg = 0;
}

int igb_tso_xmit(struct igb *g, int q, const struct netdev_sg *sg, int nsg,
		 void *cookie)
{
	struct tcp_merge_batch *b = g->pairs[q]->tx.batch;
	struct tcp_merge_seg s;
	unsigned int need;

	if (igb_tx_pieces_len(sg, nsg) == 0) {
		/* malformed: refused before anything is held */
		g->dev.queues[q].stats.tx_bad_len++;
		return -1;
	}
	if (!tcp_merge_parse(sg, nsg, true, g->dev.mtu, &s)) {
		igb_tso_flush(g, q); /* what is held goes first */
		/* refuses a frame longer than the MTU: not one to cut */
		return igb_post_frame(g, q, sg, nsg, cookie);
	}
	if (tcp_merge_continues(b, &s) &&
	    igb_tx_room(g, q, 2u + (unsigned int)(b->npay + s.npay))) {
		if (tcp_merge_add(b, &s, cookie))
			igb_tso_flush(g, q);
		return 0;
	}
	igb_tso_flush(g, q);
	need = s.large ? tso_large_slots(&s) : (unsigned int)nsg + 1u;
	if (!igb_tx_room(g, q, need)) {
		g->dev.queues[q].stats.tx_busy++;
		return -1;
	}
	if (tcp_merge_start(b, &s, sg, nsg, cookie))
		igb_tso_flush(g, q);
	return 0;
}
