/*
 * tcp_merge: the rules for holding and merging consecutive TCP segments
 * of one flow, and for taking a large segment alone (tcp_merge.h). No
 * ring work and no device header here: the driver holds, posts and
 * reaps, and builds the merged frame's headers from the batch.
 */
#include "tcp_merge.h"

#include <string.h>

#include "frame_hdr.h"

#define IP_OFF	     FRAME_ETH_HLEN
#define IP_MAX	     65535
#define TCP_FLAG_FIN 0x01
#define TCP_FLAG_PSH 0x08
#define TCP_FLAG_ACK 0x10
#define V4_TCP	     (FRAME_ETH_HLEN + FRAME_IPV4_HLEN)
#define V6_TCP	     (FRAME_ETH_HLEN + FRAME_IPV6_HLEN)
#define TCP_FIXED    20

/* The payload of a frame (after skip header bytes) as pieces, at most
 * room of them. Returns how many, or -1 when more would be needed. */
static int payload_pieces(const struct netdev_sg *sg, int nsg, uint32_t skip,
			  struct netdev_sg *out, int room)
{
	int n = 0;

	for (int i = 0; i < nsg; i++) {
		if (skip >= sg[i].len) {
			skip -= sg[i].len;
			continue;
		}
		if (n == room)
			return -1;
		out[n++] = (struct netdev_sg){
			(const uint8_t *)sg[i].addr + skip, sg[i].len - skip};
		skip = 0;
	}
	return n;
}

/* The IP layer of h: where TCP starts and how long the datagram is (the
 * IP header included); false unless it is TCP that may merge. */
static bool ip_layer(const uint8_t *h, bool ipv6, struct tcp_merge_seg *s,
		     uint32_t *tot)
{
	uint32_t type = frame_be16(h + 12);
	const uint8_t *ip = h + IP_OFF;

	if (type == FRAME_ETHTYPE_IPV4 && ip[0] == 0x45 &&
	    ip[9] == FRAME_PROTO_TCP &&
	    !(frame_be16(ip + 6) & FRAME_IP_FRAG_MASK)) {
		s->ipv6 = false;
		s->l4 = V4_TCP;
		*tot = frame_be16(ip + 2);
		return true;
	}
	if (ipv6 && type == FRAME_ETHTYPE_IPV6 && (ip[0] >> 4) == 6 &&
	    ip[6] == FRAME_PROTO_TCP) {
		s->ipv6 = true;
		s->l4 = V6_TCP;
		*tot = FRAME_IPV6_HLEN + frame_be16(ip + 4);
		return true;
	}
	return false;
}

/* The header bytes the checks read from h: the fixed IP and TCP
 * headers of the family its Ethernet type names. */
static uint32_t fixed_headers(const uint8_t *h)
{
	return frame_be16(h + 12) == FRAME_ETHTYPE_IPV6 ? V6_TCP + TCP_FIXED
							: V4_TCP + TCP_FIXED;
}

/* May a segment with these TCP flags be cut by the device? ACK, with PSH
 * or not; a large one also with FIN, which the device sets on the last
 * segment it cuts. A FIN on an MSS segment still ends a batch: it goes
 * as it came, which keeps the merge rules to one kind of flag. */
static bool flags_ok(uint8_t flags, bool large)
{
	uint8_t may = TCP_FLAG_ACK | TCP_FLAG_PSH | (large ? TCP_FLAG_FIN : 0);

	return (flags & TCP_FLAG_ACK) && !(flags & (uint8_t)~may);
}

bool tcp_merge_parse(const struct netdev_sg *sg, int nsg, bool ipv6,
		     uint32_t mtu, struct tcp_merge_seg *s)
{
	const uint8_t *h = sg[0].addr;
	uint32_t tot, thl, iphl;

	s->frame = 0;
	for (int i = 0; i < nsg; i++)
		s->frame += sg[i].len;
	/* The checks read the fixed headers where they lie (lwIP puts every
	 * header in its first pbuf); only a segment that may merge has its
	 * headers copied. Every pure ACK of a host->guest transfer comes
	 * here and is refused before any copy: a host->guest transfer
	 * measured 1239 guest instructions per received segment with the
	 * copy first, 1232 without, 1227 with the merge off (virtio-net,
	 * median of 3, bench/offload/host-tso-ack.md). */
	if (sg[0].len < FRAME_ETH_HLEN || sg[0].len < fixed_headers(h)) {
		uint32_t got =
			frame_sg_read(sg, nsg, 0, s->hdr, V6_TCP + TCP_FIXED);

		h = s->hdr;
		if (got < FRAME_ETH_HLEN || got < fixed_headers(h))
			return false;
	}
	if (!ip_layer(h, ipv6, s, &tot))
		return false;
	iphl = s->l4 - IP_OFF;
	thl = (uint32_t)(h[s->l4 + 12] >> 4) * 4;
	s->flags = h[s->l4 + 13];
	/* The frame must be exactly the datagram (no padding, no tail). */
	if (tot + FRAME_ETH_HLEN != s->frame || thl < TCP_FIXED ||
	    iphl + thl >= tot)
		return false;
	/* A large datagram must still be one an IP header can describe
	 * (IPv6's payload length field alone would allow 40 bytes more), and
	 * leave room for payload in an MTU-sized segment. */
	s->large = tot > mtu;
	if (!flags_ok(s->flags, s->large) ||
	    (s->large && (tot > IP_MAX || mtu <= iphl + thl)))
		return false;
	s->hlen = s->l4 + thl;
	/* Cannot come up short: the frame is tot + 14 bytes and iphl + thl
	 * < tot, so it is longer than hlen. */
	frame_sg_read(sg, nsg, 0, s->hdr, s->hlen);
	s->payload = tot - iphl - thl;
	/* What lwIP's MSS is on this device: each wire segment the device
	 * cuts is then exactly as lwIP would have built it. */
	s->gso_size = s->large ? mtu - iphl - thl : s->payload;
	s->seq = (uint32_t)frame_be16(s->hdr + s->l4 + 4) << 16 |
		 frame_be16(s->hdr + s->l4 + 6);
	s->npay = payload_pieces(sg, nsg, s->hlen, s->pay, TCP_MERGE_PAY_MAX);
	return s->npay > 0;
}

/* The IP fields two segments of one merged frame share: all but the
 * lengths, the IPv4 id and the IPv4 header sum. */
static bool same_ip(const uint8_t *a, const uint8_t *n, bool ipv6)
{
	if (ipv6) /* version/class/flow; next header, hop limit; addresses */
		return !memcmp(a, n, IP_OFF + 4) &&
		       !memcmp(a + IP_OFF + 6, n + IP_OFF + 6, 34);
	/* version/length and TOS; DF/offset, TTL, protocol; addresses */
	return !memcmp(a, n, IP_OFF + 2) &&
	       !memcmp(a + IP_OFF + 6, n + IP_OFF + 6, 4) &&
	       !memcmp(a + IP_OFF + 12, n + IP_OFF + 12, 8);
}

bool tcp_merge_continues(const struct tcp_merge_batch *b,
			 const struct tcp_merge_seg *s)
{
	const uint8_t *a = b->hdr + b->l4, *n = s->hdr + s->l4;

	if (!b->nseg || b->large || s->large ||
	    b->npay + s->npay > TCP_MERGE_PAY_MAX || s->ipv6 != b->ipv6 ||
	    s->hlen != b->hlen || s->seq != b->next_seq ||
	    s->payload > b->gso_size ||
	    b->hlen - FRAME_ETH_HLEN + b->payload + s->payload > IP_MAX)
		return false;
	/* Ports; ack and data offset; window; urgent pointer and options.
	 * Not: sequence, flags, sum. */
	return same_ip(b->hdr, s->hdr, b->ipv6) && !memcmp(a, n, 4) &&
	       !memcmp(a + 8, n + 8, 5) && !memcmp(a + 14, n + 14, 2) &&
	       !memcmp(a + 18, n + 18, b->hlen - b->l4 - 18);
}

bool tcp_merge_start(struct tcp_merge_batch *b, const struct tcp_merge_seg *s,
		     const struct netdev_sg *sg, int nsg, void *cookie)
{
	b->nseg = 1;
	b->cookie[0] = cookie;
	memcpy(b->first, sg, sizeof(sg[0]) * (size_t)nsg);
	b->first_nsg = nsg;
	memcpy(b->pay, s->pay, sizeof(s->pay[0]) * (size_t)s->npay);
	b->npay = s->npay;
	memcpy(b->hdr, s->hdr, s->hlen);
	b->l4 = s->l4;
	b->hlen = s->hlen;
	b->ipv6 = s->ipv6;
	b->gso_size = s->gso_size;
	b->payload = s->payload;
	b->next_seq = s->seq + s->payload;
	b->bytes = s->frame;
	b->psh = s->flags & TCP_FLAG_PSH;
	b->large = s->large;
	return s->large;
}

bool tcp_merge_add(struct tcp_merge_batch *b, const struct tcp_merge_seg *s,
		   void *cookie)
{
	b->cookie[b->nseg++] = cookie;
	memcpy(b->pay + b->npay, s->pay, sizeof(s->pay[0]) * (size_t)s->npay);
	b->npay += s->npay;
	b->payload += s->payload;
	b->next_seq += s->payload;
	b->bytes += s->frame;
	b->psh |= s->flags & TCP_FLAG_PSH;
	return b->nseg == TCP_MERGE_SEGS || s->payload < b->gso_size;
}
