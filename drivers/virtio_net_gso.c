/*
 * virtio-net TCP segmentation offload on transmit (VIRTIO_NET_F_HOST_TSO4
 * for IPv4, VIRTIO_NET_F_HOST_TSO6 for IPv6), done without the stack's
 * help: lwIP builds every TCP segment at most one MSS long and hands them
 * to xmit one at a time, so the driver merges consecutive segments of
 * one flow into one chain with a GSO header (virtio 1.x spec 5.1.6.2) and
 * the device (the host kernel behind a tap) cuts it back into MSS
 * segments, or delivers it whole to a local socket.
 * On a vnet_hdr tap every frame costs QEMU one tap write: guest->host
 * iperf (tools/bench-offload, 2 rounds) went from 491 Mbit/s with one
 * frame per 1460 bytes to 1724 with up to 16 segments per chain.
 *
 * The window. xmit only publishes; tx_flush rings the doorbell once per
 * hold of the stack's TX guard (net/core_lock.c flushes every queue used
 * before the guard goes). Within that window a TCP segment is held in the
 * pair's tx_batch; the next one joins it when it continues the same flow,
 * else the batch goes first (order on the wire is kept) and the newcomer
 * starts a new one. tx_flush sends what is held. A batch of one goes out
 * as the very frame it was, exactly as without HOST_TSO4.
 *
 * What may merge (anything doubtful goes as it came): IPv4 without
 * options, not a fragment, or IPv6 with TCP right after the fixed header
 * (no extension header; lwIP sends none with TCP), each only when its
 * feature was negotiated; TCP with flags ACK or ACK|PSH only; the same
 * Ethernet header, IP header but for lengths, IPv4 id and sum (IPv4: TOS,
 * DF, TTL, addresses; IPv6: traffic class, flow label, hop limit,
 * addresses), ports, ack number, window, urgent pointer (0) and option
 * bytes; the sequence contiguous; every segment but the last exactly as
 * long as the first (gso_size), the last at most that long (a shorter
 * one ends the batch). PSH of any of them goes on the merged header: the
 * device puts it on the last segment.
 *
 * The merged frame. Its headers are a copy of the first segment's, in
 * the chain's vnet_gso_slot (the stack keeps its segments for
 * retransmission: its bytes are not edited), with the IP length for the
 * merged length (IPv4: tot_len and the header sum; IPv6: payload length)
 * and the TCP sum field seeded with the pseudo-header sum over the whole
 * TCP length (NEEDS_CSUM, csum_start at the TCP header, csum_offset 16),
 * gso_type TCPV4 or TCPV6, hdr_len the header bytes. The device fixes the
 * sum, the IPv4 id and the lengths of each segment it cuts. The payloads
 * are read in place from the stack's segments. The chain's cookie is its
 * slot, which lists every segment's cookie for tx_done.
 *
 * The ring work (holding, posting, reaping, a full ring) is the TX
 * path's, in virtio_net.c; this file only says what may merge and what
 * the merged header holds.
 */
#include <string.h>

#include "drv_port.h"
#include "virtio_net_internal.h"

#define ETH_HLEN     14
#define IP_OFF	     ETH_HLEN
#define IP_MAX	     65535
#define TCP_CSUM_OFF 16
#define TCP_FLAG_PSH 0x08
#define TCP_FLAG_ACK 0x10
#define IP_FRAG_MASK 0x3fff /* MF and the fragment offset */
#define PROTO_TCP    6

static uint32_t gso_be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static void gso_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The payload of a frame (after skip header bytes) as descriptors, at
 * most room of them. Returns how many, or -1 when more would be needed. */
static int gso_payload(const struct netdev_sg *sg, int nsg, uint32_t skip,
		       struct virtq_buf *out, int room)
{
	int n = 0;

	for (int i = 0; i < nsg; i++) {
		if (skip >= sg[i].len) {
			skip -= sg[i].len;
			continue;
		}
		if (n == room)
			return -1;
		out[n++] = (struct virtq_buf){
			drv_dma_addr((const uint8_t *)sg[i].addr + skip),
			sg[i].len - skip, 0};
		skip = 0;
	}
	return n;
}

/* The IP header of a frame whose first hdr_room bytes are at h: may its
 * TCP segment merge? Sets where TCP starts and the IP packet's length. */
static bool gso_parse_ip(const uint8_t *h, uint32_t hdr_room, uint32_t *tcp_off,
			 uint32_t *ip_len)
{
	uint32_t type = gso_be16(h + 12);

	if (type == 0x0800 && hdr_room >= VNET_TCP_OFF4 + 20 &&
	    h[IP_OFF] == 0x45 && h[IP_OFF + 9] == PROTO_TCP &&
	    !(gso_be16(h + IP_OFF + 6) & IP_FRAG_MASK)) {
		*tcp_off = VNET_TCP_OFF4;
		*ip_len = gso_be16(h + IP_OFF + 2);
		return true;
	}
	if (type == 0x86dd && hdr_room >= VNET_TCP_OFF6 + 20 &&
	    h[IP_OFF] >> 4 == 6 && h[IP_OFF + 6] == PROTO_TCP) {
		*tcp_off = VNET_TCP_OFF6;
		*ip_len = 40 + gso_be16(h + IP_OFF + 4);
		return true;
	}
	return false;
}

bool vnet_gso_parse(const struct netdev_sg *sg, int nsg, struct vnet_gso_seg *s)
{
	const uint8_t *h = sg[0].addr;
	uint32_t room = sg[0].len, need, ip_len, thl, ip_hlen;

	s->frame = 0;
	for (int i = 0; i < nsg; i++)
		s->frame += sg[i].len;
	/* The checks read the fixed headers where they lie (lwIP puts every
	 * header in its first pbuf); only a segment that may merge has its
	 * headers copied. Every pure ACK of a host->guest transfer comes
	 * here and is refused before any copy: a host->guest transfer
	 * measured 1239 guest instructions per received segment with the
	 * copy first, 1232 without, 1227 with HOST_TSO4 off (median of 3,
	 * bench/offload/host-tso-ack.md). */
	need = room >= ETH_HLEN && gso_be16(h + 12) == 0x86dd
		       ? VNET_TCP_OFF6 + 20
		       : VNET_TCP_OFF4 + 20;
	if (room < need) {
		room = vnet_sg_read(sg, nsg, 0, s->hdr, VNET_TCP_OFF6 + 20);
		h = s->hdr;
	}
	if (room < ETH_HLEN || !gso_parse_ip(h, room, &s->tcp_off, &ip_len))
		return false;
	ip_hlen = s->tcp_off - ETH_HLEN;
	thl = (uint32_t)(h[s->tcp_off + 12] >> 4) * 4;
	s->flags = h[s->tcp_off + 13];
	/* The frame must be exactly the packet (no padding, no tail), and
	 * its headers must fit the merged copy. */
	if (ip_len + ETH_HLEN != s->frame || thl < 20 ||
	    ip_hlen + thl >= ip_len || s->tcp_off + thl > VNET_GSO_HDR_MAX)
		return false;
	if (s->flags != TCP_FLAG_ACK &&
	    s->flags != (TCP_FLAG_ACK | TCP_FLAG_PSH))
		return false;
	s->hlen = s->tcp_off + thl;
	/* Cannot come up short: the frame is ip_len + ETH_HLEN bytes and
	 * ip_hlen + thl < ip_len, so it is longer than hlen. */
	vnet_sg_read(sg, nsg, 0, s->hdr, s->hlen);
	s->payload = ip_len - ip_hlen - thl;
	s->seq = (uint32_t)gso_be16(s->hdr + s->tcp_off + 4) << 16 |
		 gso_be16(s->hdr + s->tcp_off + 6);
	s->npay = gso_payload(sg, nsg, s->hlen, s->pay, VNET_GSO_PAY_MAX);
	return s->npay > 0;
}

/* The IP headers of two segments of one family: the same but for
 * lengths, IPv4 id and sum. */
static bool gso_same_ip(const uint8_t *a, const uint8_t *n, uint32_t tcp_off)
{
	/* IPv6: Ethernet, version, class and flow label; next header, hop
	 * limit, addresses */
	if (tcp_off == VNET_TCP_OFF6)
		return !memcmp(a, n, IP_OFF + 4) &&
		       !memcmp(a + IP_OFF + 6, n + IP_OFF + 6, 34);
	/* IPv4: Ethernet, version/length and TOS; DF/offset, TTL,
	 * protocol; addresses */
	return !memcmp(a, n, IP_OFF + 2) &&
	       !memcmp(a + IP_OFF + 6, n + IP_OFF + 6, 4) &&
	       !memcmp(a + IP_OFF + 12, n + IP_OFF + 12, 8);
}

bool vnet_gso_continues(const struct vnet_tx_batch *b,
			const struct vnet_gso_seg *s)
{
	const uint8_t *a = b->hdr, *n = s->hdr;
	uint32_t t = b->tcp_off;

	if (!b->nseg || b->npay + s->npay > VNET_GSO_PAY_MAX ||
	    s->hlen != b->hlen || s->tcp_off != t || s->seq != b->next_seq ||
	    s->payload > b->gso_size ||
	    b->hlen - ETH_HLEN + b->payload + s->payload > IP_MAX)
		return false;
	/* The IP headers; ports; ack and data offset; window; urgent
	 * pointer and options. Not: lengths, id, sums, sequence, flags. */
	return gso_same_ip(a, n, t) && !memcmp(a + t, n + t, 4) &&
	       !memcmp(a + t + 8, n + t + 8, 5) &&
	       !memcmp(a + t + 14, n + t + 14, 2) &&
	       !memcmp(a + t + 18, n + t + 18, b->hlen - t - 18);
}

static uint32_t gso_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

void vnet_gso_headers(const struct vnet_tx_batch *b, uint8_t *h,
		      struct vnet_hdr *vh)
{
	uint32_t t = b->tcp_off, tcp_len = b->hlen - t + b->payload, sum = 0;
	bool ip6 = t == VNET_TCP_OFF6;

	memcpy(h, b->hdr, b->hlen);
	if (ip6) {
		gso_put16(h + IP_OFF + 4, tcp_len); /* IPv6 has no header sum */
	} else {
		gso_put16(h + IP_OFF + 2, 20 + tcp_len);
		gso_put16(h + IP_OFF + 10, 0);
		for (int i = 0; i < 20; i += 2)
			sum += gso_be16(h + IP_OFF + i);
		gso_put16(h + IP_OFF + 10, ~gso_fold(sum) & 0xffff);
	}
	if (b->psh)
		h[t + 13] |= TCP_FLAG_PSH;
	/* The pseudo-header: the addresses, the protocol, the TCP length. */
	sum = PROTO_TCP + tcp_len;
	for (uint32_t i = ip6 ? IP_OFF + 8 : IP_OFF + 12; i < t; i += 2)
		sum += gso_be16(h + i);
	gso_put16(h + t + TCP_CSUM_OFF, gso_fold(sum));
	*vh = (struct vnet_hdr){
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = ip6 ? VIRTIO_NET_HDR_GSO_TCPV6
				: VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = (uint16_t)b->hlen,
		.gso_size = (uint16_t)b->gso_size,
		.csum_start = (uint16_t)t,
		.csum_offset = TCP_CSUM_OFF,
	};
}

void vnet_gso_start(struct vnet_tx_batch *b, const struct vnet_gso_seg *s,
		    const struct netdev_sg *sg, int nsg, void *cookie)
{
	b->nseg = 1;
	b->cookie[0] = cookie;
	memcpy(b->first, sg, sizeof(sg[0]) * (size_t)nsg);
	b->first_nsg = nsg;
	memcpy(b->pay, s->pay, sizeof(s->pay[0]) * (size_t)s->npay);
	b->npay = s->npay;
	memcpy(b->hdr, s->hdr, s->hlen);
	b->hlen = s->hlen;
	b->tcp_off = s->tcp_off;
	b->gso_size = s->payload;
	b->payload = s->payload;
	b->next_seq = s->seq + s->payload;
	b->bytes = s->frame;
	b->psh = s->flags & TCP_FLAG_PSH;
}

bool vnet_gso_add(struct vnet_tx_batch *b, const struct vnet_gso_seg *s,
		  void *cookie)
{
	b->cookie[b->nseg++] = cookie;
	memcpy(b->pay + b->npay, s->pay, sizeof(s->pay[0]) * (size_t)s->npay);
	b->npay += s->npay;
	b->payload += s->payload;
	b->next_seq += s->payload;
	b->bytes += s->frame;
	b->psh |= s->flags & TCP_FLAG_PSH;
	return b->nseg == VNET_GSO_SEGS || s->payload < b->gso_size;
}
