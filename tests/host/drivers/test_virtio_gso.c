/*
 * virtio-net HOST_TSO4 and HOST_TSO6 (drivers/virtio_net_gso.c) against the
 * simulated device of virtq_sim.h: the stack's TCP segments of one flow,
 * handed to xmit one at a time as lwIP does (a header pbuf, then the
 * payload), come out of one flush window as one chain with a GSO header;
 * anything that does not continue the flow ends the merge and keeps its
 * place on the wire; a completion gives every merged frame's cookie back
 * once; a full ring loses and reorders nothing; switched off, the chains are
 * today's.
 *
 * The test plays the device: it reads each chain as the device would
 * (the vnet header, then the frame over the other descriptors) and checks
 * the merged frame byte by byte against the stream the stack sent.
 */
#include "virtq_sim.h"

#define MSS	 1460
#define MSS6	 1440 /* lwIP's for IPv6: at MTU 1500 a full segment is 1500 */
#define HDR	 54   /* Ethernet + IPv4 + TCP, no options */
#define HDR6	 74   /* Ethernet + IPv6 + TCP, no options */
#define SEQ0	 0x10000000u
#define ACK0	 0x20000000u
#define MAX_SEGS 40
#define F_ACK	 0x10
#define F_PSH	 0x08
#define F_FIN	 0x01

#define TSO_BITS                                                      \
	(1ull << VIRTIO_NET_F_CSUM | 1ull << VIRTIO_NET_F_HOST_TSO4 | \
	 1ull << VIRTIO_NET_F_GUEST_CSUM)

static const struct virtio_net_offloads tso_on = {
	.csum = true, .tso = true, .mrg = true, .host_tso = true};
/* Both families: HOST_TSO6 offered and allowed too. */
#define TSO6_BITS (TSO_BITS | 1ull << VIRTIO_NET_F_HOST_TSO6)
static const struct virtio_net_offloads tso6_on = {.csum = true,
						   .tso = true,
						   .mrg = true,
						   .host_tso = true,
						   .host_tso6 = true};

/* The bytes of the flow, and each segment's header and scatter list. */
static uint8_t stream[MAX_SEGS * MSS];
static struct {
	uint8_t hdr[HDR6];
	struct netdev_sg sg[2];
} seg[MAX_SEGS];

/* Every cookie tx_done gave back, in order. */
static uintptr_t done[300];
static int ndone;

static void collect_done(struct netdev *d, int q, void *cookie)
{
	(void)d;
	(void)q;
	assert_true(ndone < 300);
	done[ndone++] = (uintptr_t)cookie;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* Segment k as lwIP builds it: len payload bytes at stream offset off
 * (sequence SEQ0 + off), with these TCP flags and ack number. */
static struct netdev_sg *tcp_seg(int k, uint32_t off, uint32_t len,
				 uint8_t flags, uint32_t ack)
{
	uint8_t *h = seg[k].hdr;

	memset(h, 0, HDR);
	memcpy(h, "\x52\x54\x00\x12\x34\x56\x02\x00\x00\x00\x00\x01", 12);
	h[12] = 0x08;
	h[14] = 0x45;
	put16(h + 16, 40 + len);
	put16(h + 18, (uint32_t)k); /* IPv4 id */
	h[20] = 0x40;		    /* DF */
	h[22] = 64;
	h[23] = 6;
	memcpy(h + 26, "\x0a\x00\x00\x02\x0a\x00\x00\x01", 8);
	put16(h + 24, ~hw_ones_sum(h + 14, 20, 0) & 0xffff);
	put16(h + 34, 5001);
	put16(h + 36, 40000);
	put32(h + 38, SEQ0 + off);
	put32(h + 42, ack);
	h[46] = 0x50;
	h[47] = flags;
	put16(h + 48, 0x2000);
	seg[k].sg[0] = (struct netdev_sg){h, HDR};
	seg[k].sg[1] = (struct netdev_sg){stream + off, len};
	return seg[k].sg;
}

/* Segment k as tcp_seg builds it, over IPv6 (2001:db8::2 -> 2001:db8::1,
 * traffic class and flow label set, TCP right after the fixed header). */
static struct netdev_sg *tcp6_seg(int k, uint32_t off, uint32_t len,
				  uint8_t flags, uint32_t ack)
{
	uint8_t *h = seg[k].hdr;

	memset(h, 0, HDR6);
	memcpy(h, "\x52\x54\x00\x12\x34\x56\x02\x00\x00\x00\x00\x01", 12);
	h[12] = 0x86;
	h[13] = 0xdd;
	put32(h + 14, 0x6a1bcdefu);
	put16(h + 18, 20 + len);
	h[20] = 6;
	h[21] = 64;
	memcpy(h + 22, "\x20\x01\x0d\xb8", 4);
	h[37] = 2;
	memcpy(h + 38, "\x20\x01\x0d\xb8", 4);
	h[53] = 1;
	put16(h + 54, 5001);
	put16(h + 56, 40000);
	put32(h + 58, SEQ0 + off);
	put32(h + 62, ack);
	h[66] = 0x50;
	h[67] = flags;
	put16(h + 68, 0x2000);
	seg[k].sg[0] = (struct netdev_sg){h, HDR6};
	seg[k].sg[1] = (struct netdev_sg){stream + off, len};
	return seg[k].sg;
}

/* xmit IPv6 segment k (cookie k + 1), as send_seg. */
static int send_seg6(int k, uint32_t *off, uint32_t len, uint8_t flags)
{
	int r = dev->ops->xmit(dev, 0, tcp6_seg(k, *off, len, flags, ACK0), 2,
			       (void *)(uintptr_t)(k + 1));

	*off += len;
	return r;
}

/* xmit segment k (cookie k + 1) of len bytes, right after the previous
 * one at *off; returns what xmit returned. */
static int send_seg(int k, uint32_t *off, uint32_t len, uint8_t flags)
{
	int r = dev->ops->xmit(dev, 0, tcp_seg(k, *off, len, flags, ACK0), 2,
			       (void *)(uintptr_t)(k + 1));

	*off += len;
	return r;
}

static void probe_tso(uint64_t offered, struct virtio_net_offloads allowed)
{
	hw.features |= offered;
	virtio_net_allow_offloads(&allowed);
	probe_one();
	dev->tx_done = collect_done;
	ndone = 0;
	for (uint32_t i = 0; i < sizeof(stream); i++)
		stream[i] = (uint8_t)(i * 7 + (i >> 8));
}

/* One TX chain as the device reads it. */
struct tx_chain {
	int head, ndesc;
	struct vnet_hdr vh;
	uint8_t frame[70000];
	uint32_t len;
	const void *first_addr; /* the frame's first descriptor */
};

/* The device takes the next chain; false when there is none. */
static bool take_chain(struct tx_chain *c)
{
	struct hw_queue *h = &hw.q[VNET_TXQ(0)];

	c->head = hw_take(VNET_TXQ(0));
	if (c->head < 0)
		return false;
	c->ndesc = h->chain_n[c->head];
	c->len = 0;
	for (int k = 0; k < c->ndesc; k++) {
		const struct virtq_desc *d = &h->desc[h->chain[c->head][k]];
		const void *p = (const void *)(uintptr_t)d->addr;

		if (k == 0) {
			assert_int_equal(d->len, 12);
			memcpy(&c->vh, p, 12);
			continue;
		}
		if (k == 1)
			c->first_addr = p;
		assert_true(c->len + d->len <= sizeof(c->frame));
		memcpy(c->frame + c->len, p, d->len);
		c->len += d->len;
	}
	return true;
}

static void complete(const struct tx_chain *c)
{
	hw_complete(VNET_TXQ(0), (uint16_t)c->head, 0);
}

static uint32_t seq_of(const struct tx_chain *c)
{
	return get16(c->frame + 38) << 16 | get16(c->frame + 40);
}

/* A merged chain of payload bytes from stream offset off: the header
 * fields the device needs, the IPv4 length and header sum, the TCP sum
 * seeded with the pseudo-header sum of the whole TCP length, the
 * payload in order. */
static void assert_merged(const struct tx_chain *c, uint32_t off,
			  uint32_t payload, uint32_t gso_size)
{
	uint32_t tcp_len = 20 + payload;

	assert_int_equal(c->vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(c->vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(c->vh.gso_size, gso_size);
	assert_int_equal(c->vh.hdr_len, HDR);
	assert_int_equal(c->vh.csum_start, 34);
	assert_int_equal(c->vh.csum_offset, 16);
	assert_int_equal(c->len, HDR + payload);
	assert_int_equal(get16(c->frame + 16), 20 + tcp_len);
	assert_int_equal(hw_ones_sum(c->frame + 14, 20, 0), 0xffff);
	assert_int_equal(get16(c->frame + 50),
			 hw_ones_sum(c->frame + 26, 8, 6 + tcp_len));
	assert_int_equal(seq_of(c), SEQ0 + off);
	assert_memory_equal(c->frame + HDR, stream + off, payload);
}

/* A merged IPv6 chain, as assert_merged: TCPV6, the payload length
 * (IPv6 has no header sum), the TCP sum seeded with the pseudo-header
 * over both 16-byte addresses. */
static void assert_merged6(const struct tx_chain *c, uint32_t off,
			   uint32_t payload, uint32_t gso_size)
{
	uint32_t tcp_len = 20 + payload;

	assert_int_equal(c->vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(c->vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV6);
	assert_int_equal(c->vh.gso_size, gso_size);
	assert_int_equal(c->vh.hdr_len, HDR6);
	assert_int_equal(c->vh.csum_start, 54);
	assert_int_equal(c->vh.csum_offset, 16);
	assert_int_equal(c->len, HDR6 + payload);
	assert_int_equal(get16(c->frame + 18), tcp_len);
	assert_int_equal(get16(c->frame + 70),
			 hw_ones_sum(c->frame + 22, 32, 6 + tcp_len));
	assert_int_equal(get16(c->frame + 58) << 16 | get16(c->frame + 60),
			 SEQ0 + off);
	assert_memory_equal(c->frame + HDR6, stream + off, payload);
}

/* The device finishes every chain it took; tx_reap gives them back. */
static void complete_all(struct tx_chain *c, int n)
{
	for (int i = 0; i < n; i++)
		complete(&c[i]);
	dev->ops->tx_reap(dev, 0);
}

static struct tx_chain ch[8];

static void test_host_tso_negotiated_and_reported_on(void **state)
{
	(void)state;
	probe_tso(TSO_BITS, tso_on);
	assert_true(hw.driver_features & 1ull << VIRTIO_NET_F_HOST_TSO4);
	assert_non_null(strstr(printed, "host_tso4=on "));
}

static void test_host_tso_switched_off_is_not_negotiated(void **state)
{
	struct virtio_net_offloads off = tso_on;

	(void)state;
	off.host_tso = false;
	probe_tso(TSO_BITS, off);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_HOST_TSO4);
	assert_non_null(strstr(printed, "host_tso4=off(switch) "));
	assert_null(vnet0()->pairs[0].tx_batch);
}

static void test_host_tso_not_offered_is_reported(void **state)
{
	(void)state;
	probe_tso(TSO_BITS & ~(1ull << VIRTIO_NET_F_HOST_TSO4), tso_on);
	assert_non_null(strstr(printed, "host_tso4=off(not-offered) "));
	assert_null(vnet0()->pairs[0].tx_batch);
}

/* TSO needs the device to fill the sums (spec 5.1.3.1). */
static void test_host_tso_without_csum_is_not_negotiated(void **state)
{
	struct virtio_net_offloads no_csum = tso_on;

	(void)state;
	no_csum.csum = false;
	probe_tso(TSO_BITS, no_csum);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_HOST_TSO4);
	assert_non_null(strstr(printed, "host_tso4=off(needs-csum) "));
	assert_null(vnet0()->pairs[0].tx_batch);
}

/* Four full segments and a short PSH one: one chain, PSH on it, every
 * cookie back once in order from one completion, the stack's header
 * bytes untouched (the merged header is the driver's copy). */
static void test_burst_of_one_flow_is_one_gso_chain(void **state)
{
	uint8_t first_hdr[HDR];
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	for (int k = 0; k < 4; k++)
		assert_int_equal(send_seg(k, &off, MSS, F_ACK), 0);
	memcpy(first_hdr, seg[0].hdr, HDR);
	assert_false(take_chain(&ch[0])); /* held until the flush */
	/* The short one ends the batch: nothing may follow it. */
	assert_int_equal(send_seg(4, &off, 700, F_ACK | F_PSH), 0);
	assert_true(take_chain(&ch[0]));
	assert_false(take_chain(&ch[1]));
	assert_merged(&ch[0], 0, 4 * MSS + 700, MSS);
	assert_int_equal(ch[0].frame[47], F_ACK | F_PSH);
	assert_ptr_not_equal(ch[0].first_addr, seg[0].hdr);
	assert_memory_equal(seg[0].hdr, first_hdr, HDR);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 1);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 5);
	assert_int_equal(dev->queues[0].stats.tx_packets, 5);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 5);

	complete(&ch[0]);
	assert_int_equal(dev->ops->tx_reap(dev, 0), 5);
	assert_int_equal(ndone, 5);
	for (int k = 0; k < 5; k++)
		assert_int_equal(done[k], k + 1);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
	assert_int_equal(dev->queues[0].stats.tx_completed, 5);
}

/* A PSH in the middle goes on the merged header; the flush sends a batch
 * of full segments; VNET_GSO_SEGS segments end a batch by themselves. */
static void test_flush_and_a_full_batch_post_what_is_held(void **state)
{
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	for (int k = 0; k < VNET_GSO_SEGS + 2; k++)
		assert_int_equal(
			send_seg(k, &off, MSS, k == 3 ? F_ACK | F_PSH : F_ACK),
			0);
	assert_true(take_chain(&ch[0])); /* full: posted at once */
	assert_false(take_chain(&ch[1]));
	dev->ops->tx_flush(dev, 0);
	assert_true(take_chain(&ch[1]));
	assert_merged(&ch[0], 0, VNET_GSO_SEGS * MSS, MSS);
	assert_int_equal(ch[0].frame[47], F_ACK | F_PSH);
	assert_merged(&ch[1], VNET_GSO_SEGS * MSS, 2 * MSS, MSS);
	assert_int_equal(ch[1].frame[47], F_ACK);
	complete_all(ch, 2);
	assert_int_equal(ndone, VNET_GSO_SEGS + 2);
	for (int k = 0; k < ndone; k++)
		assert_int_equal(done[k], k + 1);
}

/* A frame that is not of the flow in the middle: the held segments go
 * before it, the later ones after it. */
static void test_other_frame_in_the_middle_keeps_wire_order(void **state)
{
	static uint8_t arp[60] = {[12] = 0x08, [13] = 0x06};
	struct netdev_sg sg = {arp, sizeof(arp)};
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	send_seg(0, &off, MSS, F_ACK);
	send_seg(1, &off, MSS, F_ACK);
	assert_int_equal(dev->ops->xmit(dev, 0, &sg, 1, (void *)0x99), 0);
	send_seg(2, &off, MSS, F_ACK);
	send_seg(3, &off, MSS, F_ACK);
	dev->ops->tx_flush(dev, 0);
	for (int i = 0; i < 3; i++)
		assert_true(take_chain(&ch[i]));
	assert_false(take_chain(&ch[3]));
	assert_merged(&ch[0], 0, 2 * MSS, MSS);
	assert_int_equal(ch[1].vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_memory_equal(ch[1].frame, arp, sizeof(arp));
	assert_merged(&ch[2], 2 * MSS, 2 * MSS, MSS);
	complete_all(ch, 3);
	assert_int_equal(ndone, 5);
	assert_int_equal(done[2], 0x99);
}

/* Send segment 0 and a segment 1 spoilt by how (after a full segment 0),
 * flush: each must go alone, as the plain frame it was. */
static void assert_not_merged(void (*spoil)(uint32_t *off, uint8_t *flags,
					    uint32_t *ack))
{
	uint32_t off = 0, ack = ACK0;
	uint8_t flags = F_ACK;

	probe_tso(TSO_BITS, tso_on);
	send_seg(0, &off, MSS, F_ACK);
	spoil(&off, &flags, &ack);
	assert_int_equal(dev->ops->xmit(dev, 0,
					tcp_seg(1, off, MSS, flags, ack), 2,
					(void *)2),
			 0);
	dev->ops->tx_flush(dev, 0);
	for (int i = 0; i < 2; i++) {
		assert_true(take_chain(&ch[i]));
		assert_int_equal(ch[i].vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
		assert_int_equal(ch[i].vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
		assert_int_equal(ch[i].ndesc, 3); /* header + the two pbufs */
		assert_int_equal(ch[i].len, HDR + MSS);
	}
	assert_false(take_chain(&ch[2]));
	assert_ptr_equal(ch[0].first_addr, seg[0].hdr);
	assert_int_equal(seq_of(&ch[0]), SEQ0);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 0);
	complete_all(ch, 2);
	assert_int_equal(ndone, 2);
	assert_int_equal(done[0], 1);
	assert_int_equal(done[1], 2);
}

static void gap(uint32_t *off, uint8_t *flags, uint32_t *ack)
{
	(void)flags;
	(void)ack;
	*off += 1;
}

static void fin(uint32_t *off, uint8_t *flags, uint32_t *ack)
{
	(void)off;
	(void)ack;
	*flags = F_ACK | F_FIN;
}

static void other_ack(uint32_t *off, uint8_t *flags, uint32_t *ack)
{
	(void)off;
	(void)flags;
	*ack += MSS;
}

static void test_a_gap_in_sequence_stops_the_merge(void **state)
{
	(void)state;
	assert_not_merged(gap);
}

static void test_a_fin_stops_the_merge(void **state)
{
	(void)state;
	assert_not_merged(fin);
}

static void test_a_different_ack_stops_the_merge(void **state)
{
	(void)state;
	assert_not_merged(other_ack);
}

/* A short segment may only be the last: full, short, full makes one
 * merged chain of two and the third alone. */
static void test_a_short_middle_segment_ends_the_merge(void **state)
{
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	send_seg(0, &off, MSS, F_ACK);
	send_seg(1, &off, 700, F_ACK);
	send_seg(2, &off, MSS, F_ACK);
	dev->ops->tx_flush(dev, 0);
	assert_true(take_chain(&ch[0]));
	assert_true(take_chain(&ch[1]));
	assert_false(take_chain(&ch[2]));
	assert_merged(&ch[0], 0, MSS + 700, MSS);
	assert_int_equal(ch[1].vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(seq_of(&ch[1]), SEQ0 + MSS + 700);
	complete_all(ch, 2);
	assert_int_equal(ndone, 3);
}

/* The merge check reads the headers in place when the first piece holds
 * them all; headers split over pieces (the Ethernet header alone, then
 * IPv4 and TCP from another buffer) are gathered first and merge the
 * same. The bytes after the Ethernet header in the first buffer are
 * scribbled over, so a check that read past the first piece would refuse
 * the merge. A pure ACK (no payload) between them is sent alone and ends
 * the batch. */
static void test_headers_split_over_pieces_still_merge(void **state)
{
	static uint8_t ip_tcp[3][HDR - 14];
	struct netdev_sg sg[3][3];
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	for (int k = 0; k < 3; k++) {
		const struct netdev_sg *one = tcp_seg(k, off, MSS, F_ACK, ACK0);

		memcpy(ip_tcp[k], seg[k].hdr + 14, HDR - 14);
		memset(seg[k].hdr + 14, 0xff, HDR - 14);
		sg[k][0] = (struct netdev_sg){one[0].addr, 14};
		sg[k][1] = (struct netdev_sg){ip_tcp[k], HDR - 14};
		sg[k][2] = one[1];
		off += MSS;
	}
	assert_int_equal(dev->ops->xmit(dev, 0, sg[0], 3, (void *)1), 0);
	assert_int_equal(dev->ops->xmit(dev, 0, sg[1], 3, (void *)2), 0);
	assert_int_equal(dev->ops->xmit(dev, 0, tcp_seg(3, off, 0, F_ACK, ACK0),
					1, (void *)4),
			 0);
	assert_int_equal(dev->ops->xmit(dev, 0, sg[2], 3, (void *)3), 0);
	dev->ops->tx_flush(dev, 0);
	assert_true(take_chain(&ch[0]));
	assert_true(take_chain(&ch[1]));
	assert_true(take_chain(&ch[2]));
	assert_false(take_chain(&ch[3]));
	assert_merged(&ch[0], 0, 2 * MSS, MSS);
	assert_int_equal(ch[1].vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(ch[1].len, HDR);
	assert_ptr_equal(ch[1].first_addr, seg[3].hdr);
	assert_int_equal(ch[2].vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(seq_of(&ch[2]), SEQ0 + 2 * MSS);
	complete_all(ch, 3);
	assert_int_equal(ndone, 4);
	assert_int_equal(done[0], 1);
	assert_int_equal(done[1], 2);
	assert_int_equal(done[2], 4);
	assert_int_equal(done[3], 3);
}

/*
 * A ring that fills while a batch is held: the segment that would not
 * fit sends the batch (which always fits) and is refused itself, so the
 * stack may send it again; nothing is lost, nothing comes back twice.
 */
static void
test_full_ring_sends_the_batch_and_refuses_only_the_new(void **state)
{
	static uint8_t arp[60] = {[12] = 0x08, [13] = 0x06};
	struct netdev_sg sg = {arp, sizeof(arp)};
	uint32_t off = 0;
	int n = 0;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	/* 126 two-descriptor frames leave 4 of 256 descriptors free. */
	for (; n < 126; n++)
		assert_int_equal(dev->ops->xmit(dev, 0, &sg, 1,
						(void *)(uintptr_t)(1000 + n)),
				 0);
	assert_int_equal(send_seg(0, &off, MSS, F_ACK), 0); /* 3 as plain */
	assert_int_equal(send_seg(1, &off, MSS, F_ACK), 0); /* 4 merged */
	assert_int_equal(send_seg(2, &off, MSS, F_ACK), -1);
	assert_int_equal(dev->queues[0].stats.tx_busy, 1);
	assert_int_equal(vnet0()->pairs[0].txq.num_free, 0);
	dev->ops->tx_flush(dev, 0);
	for (int i = 0; i < 126; i++) {
		assert_true(take_chain(&ch[0]));
		complete(&ch[0]);
	}
	assert_true(take_chain(&ch[0]));
	assert_merged(&ch[0], 0, 2 * MSS, MSS);
	assert_false(take_chain(&ch[1]));
	complete(&ch[0]);
	assert_int_equal(dev->ops->tx_reap(dev, 0), 128);
	assert_int_equal(ndone, 128);
	assert_int_equal(done[126], 1);
	assert_int_equal(done[127], 2);
	/* The refused one goes when the stack tries again. */
	off = 2 * MSS;
	assert_int_equal(send_seg(2, &off, MSS, F_ACK), 0);
	dev->ops->tx_flush(dev, 0);
	assert_true(take_chain(&ch[0]));
	assert_int_equal(seq_of(&ch[0]), SEQ0 + 2 * MSS);
	complete_all(ch, 1);
	assert_int_equal(ndone, 129);
	assert_int_equal(done[128], 3);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
}

/* n full segments of one flow go out as n plain chains at once (none
 * held, none merged), each the stack's own header and payload, in order,
 * and every cookie comes back. */
static void assert_each_segment_sent_alone(int n)
{
	uint32_t off = 0;

	for (int k = 0; k < n; k++)
		assert_int_equal(send_seg(k, &off, MSS, F_ACK), 0);
	assert_int_equal(hw.q[VNET_TXQ(0)].avail->idx, n); /* not held */
	for (int i = 0; i < n; i++) {
		assert_true(take_chain(&ch[i]));
		assert_int_equal(ch[i].vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
		assert_int_equal(ch[i].ndesc, 3);
		assert_ptr_equal(ch[i].first_addr, seg[i].hdr);
		assert_int_equal(seq_of(&ch[i]), SEQ0 + (uint32_t)i * MSS);
	}
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 0);
	complete_all(ch, n);
	assert_int_equal(ndone, n);
}

/* Switched off: every frame is its own chain, visible at once, with
 * nothing but the checksum request. */
static void test_switched_off_sends_each_frame_as_today(void **state)
{
	struct virtio_net_offloads off_sw = tso_on;

	(void)state;
	off_sw.host_tso = false;
	probe_tso(TSO_BITS, off_sw);
	assert_each_segment_sent_alone(3);
}

/* Every order-3 block of the machine, taken; every other one (bit 3 of
 * its pfn clear) given back: its buddy stays taken, so no free block of
 * order 4 or more is left while orders 0-3 still serve. */
static struct page *frag_held[8192];
static int frag_nheld;

static void fragment_above_order3(void)
{
	struct page *pg, *taken[8192];
	int n = 0;

	while (n < 8192 && (pg = alloc_pages(__GFP_NOWARN, 3)))
		taken[n++] = pg;
	assert_true(n > 0 && n < 8192);
	frag_nheld = 0;
	for (int k = 0; k < n; k++) {
		if (page_to_pfn(taken[k]) & 8)
			frag_held[frag_nheld++] = taken[k];
		else
			__free_pages(taken[k], 3);
	}
	assert_null(alloc_pages(__GFP_NOWARN, 4));
}

/* HOST_TSO4's slot table is one order-4 block: with none to be had the
 * NIC still comes up, negotiated but not merging (it failed the whole
 * probe before), says so, and sends each segment as its own frame. */
static void test_no_memory_for_tso_tables_still_brings_the_nic_up(void **state)
{
	(void)state;
	assert_true(sizeof(struct vnet_gso_slot) * 256 > 8 * MM_PAGE_SIZE);
	fragment_above_order3();
	probe_tso(TSO_BITS, tso_on);
	assert_true(hw.driver_features & 1ull << VIRTIO_NET_F_HOST_TSO4);
	assert_non_null(strstr(printed, "host_tso4=off(no-memory) "));
	assert_null(vnet0()->pairs[0].tx_batch);
	assert_null(vnet0()->pairs[0].tx_gso);
	/* so no large segment: xmit would refuse it */
	assert_int_equal(dev->offloads & (NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6),
			 0);
	assert_each_segment_sent_alone(3);
	for (int k = 0; k < frag_nheld; k++)
		__free_pages(frag_held[k], 3);
}

/* ---- IPv6 (HOST_TSO6) ---- */

static void test_host_tso6_negotiated_and_reported_on(void **state)
{
	(void)state;
	probe_tso(TSO6_BITS, tso6_on);
	assert_true(hw.driver_features & 1ull << VIRTIO_NET_F_HOST_TSO6);
	assert_non_null(strstr(printed, "host_tso4=on host_tso6=on\n"));
}

static void test_host_tso6_switched_off_is_not_negotiated(void **state)
{
	struct virtio_net_offloads o = tso6_on;

	(void)state;
	o.host_tso6 = false;
	probe_tso(TSO6_BITS, o);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_HOST_TSO6);
	assert_true(hw.driver_features & 1ull << VIRTIO_NET_F_HOST_TSO4);
	assert_non_null(strstr(printed, "host_tso6=off(switch)\n"));
}

static void test_host_tso6_without_csum_or_offer_is_off(void **state)
{
	struct virtio_net_offloads o = tso6_on;

	(void)state;
	o.csum = false;
	probe_tso(TSO6_BITS, o);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_HOST_TSO6);
	assert_non_null(strstr(printed, "host_tso6=off(needs-csum)\n"));
}

static void test_host_tso6_not_offered_is_reported(void **state)
{
	(void)state;
	probe_tso(TSO_BITS, tso6_on);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_HOST_TSO6);
	assert_non_null(strstr(printed, "host_tso6=off(not-offered)\n"));
}

/* Four full IPv6 segments and a short PSH one: one TCPV6 chain, as the
 * IPv4 burst. */
static void test_ip6_burst_of_one_flow_is_one_tcpv6_chain(void **state)
{
	uint8_t first_hdr[HDR6];
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO6_BITS, tso6_on);
	for (int k = 0; k < 4; k++)
		assert_int_equal(send_seg6(k, &off, MSS - 20, F_ACK), 0);
	memcpy(first_hdr, seg[0].hdr, HDR6);
	assert_false(take_chain(&ch[0]));
	assert_int_equal(send_seg6(4, &off, 700, F_ACK | F_PSH), 0);
	assert_true(take_chain(&ch[0]));
	assert_false(take_chain(&ch[1]));
	assert_merged6(&ch[0], 0, 4 * (MSS - 20) + 700, MSS - 20);
	assert_int_equal(ch[0].frame[67], F_ACK | F_PSH);
	/* the rest of the IPv6 header is the first segment's */
	assert_memory_equal(ch[0].frame + 14, first_hdr + 14, 4);
	assert_memory_equal(ch[0].frame + 20, first_hdr + 20, 34);
	assert_memory_equal(seg[0].hdr, first_hdr, HDR6);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 1);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 5);
	complete_all(ch, 1);
	assert_int_equal(ndone, 5);
	for (int k = 0; k < 5; k++)
		assert_int_equal(done[k], k + 1);
}

/* HOST_TSO4 without HOST_TSO6: IPv4 still merges, IPv6 goes as it came
 * (one chain per segment, each with its checksum request). */
static void test_ip6_not_merged_without_host_tso6(void **state)
{
	struct virtio_net_offloads o = tso6_on;
	uint32_t off = 0;

	(void)state;
	o.host_tso6 = false;
	probe_tso(TSO6_BITS, o);
	for (int k = 0; k < 3; k++)
		assert_int_equal(send_seg6(k, &off, MSS - 20, F_ACK), 0);
	dev->ops->tx_flush(dev, 0);
	for (int i = 0; i < 3; i++) {
		assert_true(take_chain(&ch[i]));
		assert_int_equal(ch[i].vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
		assert_int_equal(ch[i].vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
		assert_int_equal(ch[i].vh.csum_start, 54);
		assert_ptr_equal(ch[i].first_addr, seg[i].hdr);
	}
	assert_false(take_chain(&ch[3]));
	complete_all(ch, 3);
	off = 0;
	for (int k = 0; k < 2; k++)
		assert_int_equal(send_seg(k, &off, MSS, F_ACK), 0);
	dev->ops->tx_flush(dev, 0);
	assert_true(take_chain(&ch[0]));
	assert_merged(&ch[0], 0, 2 * MSS, MSS);
	complete_all(ch, 1);
	assert_int_equal(ndone, 5);
}

/* An IPv4 segment and the IPv6 one that carries on its sequence (same
 * ports, same TCP header) are two flows: two chains, in order. */
static void test_ip4_and_ip6_segments_do_not_merge(void **state)
{
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO6_BITS, tso6_on);
	send_seg(0, &off, MSS, F_ACK);
	send_seg(1, &off, MSS, F_ACK);
	send_seg6(2, &off, MSS6, F_ACK);
	send_seg6(3, &off, MSS6, F_ACK);
	dev->ops->tx_flush(dev, 0);
	assert_true(take_chain(&ch[0]));
	assert_true(take_chain(&ch[1]));
	assert_false(take_chain(&ch[2]));
	assert_merged(&ch[0], 0, 2 * MSS, MSS);
	assert_merged6(&ch[1], 2 * MSS, 2 * MSS6, MSS6);
	complete_all(ch, 2);
	assert_int_equal(ndone, 4);
}

/* IPv6 with an extension header before TCP is never merged (nor given a
 * checksum request: the driver does not walk extension headers); a
 * changed flow label or hop limit ends the merge. */
static void test_ip6_extension_header_or_other_flow_is_sent_alone(void **state)
{
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO6_BITS, tso6_on);
	send_seg6(0, &off, MSS6, F_ACK);
	tcp6_seg(1, off, MSS6, F_ACK, ACK0);
	seg[1].hdr[20] = 60; /* destination options (the bytes are TCP's) */
	assert_int_equal(dev->ops->xmit(dev, 0, seg[1].sg, 2, (void *)2), 0);
	off += MSS6;
	tcp6_seg(2, off, MSS6, F_ACK, ACK0);
	seg[2].hdr[17] ^= 1; /* flow label */
	assert_int_equal(dev->ops->xmit(dev, 0, seg[2].sg, 2, (void *)3), 0);
	off += MSS6;
	tcp6_seg(3, off, MSS6, F_ACK, ACK0);
	seg[3].hdr[21] = 63; /* hop limit */
	assert_int_equal(dev->ops->xmit(dev, 0, seg[3].sg, 2, (void *)4), 0);
	dev->ops->tx_flush(dev, 0);
	for (int i = 0; i < 4; i++) {
		assert_true(take_chain(&ch[i]));
		assert_int_equal(ch[i].vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
		assert_int_equal(ch[i].len, HDR6 + MSS6);
	}
	assert_false(take_chain(&ch[4]));
	assert_int_equal(ch[1].vh.flags, 0);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 0);
	complete_all(ch, 4);
	assert_int_equal(ndone, 4);
}

/* ---- large segments (NETDEV_OFF_TSO4/6) ---- */

static struct netdev_sg big_sg[NETDEV_MAX_SG];

/* xmit large segment k (cookie k + 1): longer than the MTU, as lwIP
 * builds it on a NIC with NETDEV_OFF_TSO4/6 (tcp_seg's or tcp6_seg's
 * headers), its payload from *off in npieces pieces. */
static int send_large(int k, uint32_t *off, uint32_t len, uint8_t flags,
		      bool ip6, int npieces)
{
	struct netdev_sg *one = ip6 ? tcp6_seg(k, *off, len, flags, ACK0)
				    : tcp_seg(k, *off, len, flags, ACK0);
	uint32_t at = 0;
	int r;

	big_sg[0] = one[0];
	for (int i = 0; i < npieces; i++) {
		uint32_t n =
			i == npieces - 1 ? len - at : len / (uint32_t)npieces;

		big_sg[1 + i] = (struct netdev_sg){stream + *off + at, n};
		at += n;
	}
	r = dev->ops->xmit(dev, 0, big_sg, 1 + npieces,
			   (void *)(uintptr_t)(k + 1));
	*off += len;
	return r;
}

/* One large IPv4 segment: one GSO chain at once (no flush needed), cut
 * at lwIP's MSS (not at its own length, which would go whole), one stack
 * frame and six wire segments; one cookie back. */
static void test_large_segment_is_one_gso_chain_at_mtu_mss(void **state)
{
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	assert_int_equal(dev->offloads & (NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6),
			 NETDEV_OFF_TSO4);
	assert_int_equal(send_large(0, &off, 5 * MSS + 100, F_ACK, false, 2),
			 0);
	assert_true(take_chain(&ch[0]));
	assert_false(take_chain(&ch[1]));
	assert_int_equal(ch[0].ndesc, 4); /* vnet header, headers, 2 pieces */
	assert_merged(&ch[0], 0, 5 * MSS + 100, MSS);
	assert_int_equal(ch[0].frame[47], F_ACK);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 1);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 6);
	assert_int_equal(dev->queues[0].stats.tx_packets, 1);
	assert_int_equal(dev->queues[0].stats.tx_bytes, HDR + 5 * MSS + 100);
	complete(&ch[0]);
	assert_int_equal(dev->ops->tx_reap(dev, 0), 1);
	assert_int_equal(ndone, 1);
	assert_int_equal(done[0], 1);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
}

static void test_large_ip6_segment_is_cut_at_its_mss(void **state)
{
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO6_BITS, tso6_on);
	assert_int_equal(dev->offloads & (NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6),
			 NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6);
	assert_int_equal(send_large(0, &off, 3 * MSS6 + 1, F_ACK, true, 1), 0);
	assert_true(take_chain(&ch[0]));
	assert_merged6(&ch[0], 0, 3 * MSS6 + 1, MSS6);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 4);
}

/* Held MSS segments go before a large one, and the MSS segment after it
 * does not join it: merged chain, large chain, plain chain, in the
 * stack's order, every cookie back once in that order. */
static void test_large_segment_goes_alone_after_what_is_held(void **state)
{
	uint32_t off = 0, large = 5 * MSS + 100;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	send_seg(0, &off, MSS, F_ACK);
	send_seg(1, &off, MSS, F_ACK);
	assert_int_equal(send_large(2, &off, large, F_ACK, false, 2), 0);
	assert_int_equal(send_seg(3, &off, MSS, F_ACK), 0);
	dev->ops->tx_flush(dev, 0);
	for (int i = 0; i < 3; i++)
		assert_true(take_chain(&ch[i]));
	assert_false(take_chain(&ch[3]));
	assert_merged(&ch[0], 0, 2 * MSS, MSS);
	assert_merged(&ch[1], 2 * MSS, large, MSS);
	assert_int_equal(ch[2].vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(seq_of(&ch[2]), SEQ0 + 2 * MSS + large);
	assert_int_equal(ch[2].len, HDR + MSS);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 2);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 2 + 6);
	assert_int_equal(dev->queues[0].stats.tx_packets, 4);
	complete_all(ch, 3);
	assert_int_equal(ndone, 4);
	for (int k = 0; k < 4; k++)
		assert_int_equal(done[k], k + 1);
}

/* lwIP puts FIN (and PSH) on a stream's last segment: a large one keeps
 * them for the device to set on the last segment it cuts. Fifteen
 * payload pieces (NETDEV_MAX_SG with the headers) make a chain of 17. */
static void test_large_segment_keeps_fin_and_psh(void **state)
{
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	assert_int_equal(
		send_large(0, &off, 10 * MSS, F_ACK | F_PSH | F_FIN, false, 15),
		0);
	assert_true(take_chain(&ch[0]));
	assert_int_equal(ch[0].ndesc, 17);
	assert_merged(&ch[0], 0, 10 * MSS, MSS);
	assert_int_equal(ch[0].frame[47], F_ACK | F_PSH | F_FIN);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 10);
}

/* What the device may not cut is refused and counted, never sent whole:
 * IPv6 without HOST_TSO6, a SYN; what was held still goes. */
static void test_large_frame_the_device_may_not_cut_is_refused(void **state)
{
	uint32_t off = 0;

	(void)state;
	probe_tso(TSO_BITS, tso_on);
	send_seg(0, &off, MSS, F_ACK);
	assert_int_equal(send_large(1, &off, 2 * MSS, F_ACK, true, 1), -1);
	assert_int_equal(send_large(2, &off, 2 * MSS, F_ACK | 0x02, false, 1),
			 -1);
	assert_int_equal(dev->queues[0].stats.tx_bad_len, 2);
	dev->ops->tx_flush(dev, 0);
	assert_true(take_chain(&ch[0]));
	assert_int_equal(ch[0].len, HDR + MSS);
	assert_false(take_chain(&ch[1]));
	assert_int_equal(dev->queues[0].stats.tx_packets, 1);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 0);
}

/* An IPv6 datagram longer than an IP header may describe (65540 bytes)
 * is no segment to cut either. */
static void test_large_ip6_over_64k_is_refused(void **state)
{
	uint32_t len = 65500;

	(void)state;
	probe_tso(TSO6_BITS, tso6_on);
	big_sg[0] = tcp6_seg(0, 0, len, F_ACK, ACK0)[0];
	big_sg[1] = (struct netdev_sg){stream, 40000};
	big_sg[2] = (struct netdev_sg){stream, len - 40000};
	assert_int_equal(dev->ops->xmit(dev, 0, big_sg, 3, (void *)1), -1);
	assert_int_equal(dev->queues[0].stats.tx_bad_len, 1);
	dev->ops->tx_flush(dev, 0);
	assert_false(take_chain(&ch[0]));
}

/* HOST_TSO switched off (or its tables not had): no NETDEV_OFF_TSO4, so
 * the stack builds no large segment; one that comes all the same is
 * refused and counted, not sent whole. */
static void test_large_segment_without_host_tso_is_refused(void **state)
{
	struct virtio_net_offloads off_sw = tso_on;
	uint32_t off = 0;

	(void)state;
	off_sw.host_tso = false;
	probe_tso(TSO_BITS, off_sw);
	assert_int_equal(dev->offloads & (NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6),
			 0);
	assert_int_equal(send_large(0, &off, 2 * MSS, F_ACK, false, 1), -1);
	assert_int_equal(dev->queues[0].stats.tx_bad_len, 1);
	assert_false(take_chain(&ch[0]));
	assert_int_equal(dev->queues[0].stats.tx_packets, 0);
}

#define TB(fn) cmocka_unit_test_setup_teardown(fn, setup_boot, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TB(test_host_tso_negotiated_and_reported_on),
		TB(test_host_tso_switched_off_is_not_negotiated),
		TB(test_host_tso_not_offered_is_reported),
		TB(test_host_tso_without_csum_is_not_negotiated),
		TB(test_burst_of_one_flow_is_one_gso_chain),
		TB(test_headers_split_over_pieces_still_merge),
		TB(test_flush_and_a_full_batch_post_what_is_held),
		TB(test_other_frame_in_the_middle_keeps_wire_order),
		TB(test_a_gap_in_sequence_stops_the_merge),
		TB(test_a_fin_stops_the_merge),
		TB(test_a_different_ack_stops_the_merge),
		TB(test_a_short_middle_segment_ends_the_merge),
		TB(test_full_ring_sends_the_batch_and_refuses_only_the_new),
		TB(test_switched_off_sends_each_frame_as_today),
		TB(test_no_memory_for_tso_tables_still_brings_the_nic_up),
		TB(test_host_tso6_negotiated_and_reported_on),
		TB(test_host_tso6_switched_off_is_not_negotiated),
		TB(test_host_tso6_without_csum_or_offer_is_off),
		TB(test_host_tso6_not_offered_is_reported),
		TB(test_ip6_burst_of_one_flow_is_one_tcpv6_chain),
		TB(test_ip6_not_merged_without_host_tso6),
		TB(test_ip4_and_ip6_segments_do_not_merge),
		TB(test_large_segment_is_one_gso_chain_at_mtu_mss),
		TB(test_large_ip6_segment_is_cut_at_its_mss),
		TB(test_large_segment_goes_alone_after_what_is_held),
		TB(test_large_segment_keeps_fin_and_psh),
		TB(test_large_frame_the_device_may_not_cut_is_refused),
		TB(test_large_ip6_over_64k_is_refused),
		TB(test_large_segment_without_host_tso_is_refused),
		TB(test_ip6_extension_header_or_other_flow_is_sent_alone),
	};

	(void)setup_queue; /* virtq_sim.h's, for the ring-only tests */
	signal(SIGALRM, on_alarm);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
