/*
 * Receive coalescing of TCP segments before lwIP sees them (what Linux
 * calls GRO, generic receive offload), in software: the frame checks and
 * the header rewrite. net/netif_glue.c does the joining.
 *
 * Why: a bulk TCP receive spends most of its instructions once per
 * segment above the driver: ethernet_input, ip4_input, tcp_input and
 * tcp_receive, and an ACK for every second segment (tools/insn-profile
 * iperf-rx on virtio-net: about 800 instructions of input and 250 of
 * ACKs per 1460-byte segment, of 2,616 in all). A poll round parks up to
 * NET_RX_BATCH frames in the glue (24 a round in that run), and in a bulk
 * transfer consecutive frames are usually consecutive segments of one
 * connection. Joined into one IP packet (a pbuf chain: no byte is
 * copied) they cross lwIP once, and lwIP acknowledges them with one ACK,
 * as Linux acknowledges a GRO packet.
 *
 * What joins: an untagged IPv4 packet with no options and no
 * fragmentation, or an untagged IPv6 packet whose next header is TCP,
 * carrying a TCP segment with a payload and only ACK (and PSH) set,
 * whose sums are known right (the device vouched for the TCP sum and
 * net_gro_ip_sum_ok() the IPv4 header's, or net/rx_csum.c checked
 * both), followed by packets that continue its sequence exactly, from
 * the same Ethernet header, with the same IP header but for lengths,
 * IPv4 id and sum (IPv4: TOS, TTL, DF and addresses; IPv6: traffic
 * class, flow label, hop limit and addresses), the same ports,
 * acknowledgement and window, and a TCP header the same byte for byte
 * (options included: timestamps too, so segments stamped at another
 * tick start a new packet). A PSH ends the packet after its segment, as
 * do NET_GRO_MAX_SEGS segments and an IP packet of 65,535 bytes. Anything
 * else goes to lwIP as it came: nothing is reordered, held back or
 * dropped here.
 *
 * IPv6 extension headers (hop-by-hop, routing, destination options,
 * fragment) are never walked: a packet with any of them is not joined
 * and goes to lwIP as it came. A bulk TCP stream carries none, and a
 * packet that does is rare enough that lwIP's own parse of it is the
 * right place, never a second parser here that could disagree with it.
 *
 * The joined packet is the first frame's headers, with the IP length of
 * all the payload (IPv4: and a fresh header sum; IPv6 has none), and the
 * later frames' payloads chained behind (their headers stripped). The TCP
 * sum is not redone: lwIP takes the packet with its checks off, every
 * piece having been checked.
 */
#include "rx_gro.h"

#include "chksum.h"
#include "wire_bytes.h"

#define ETH_HLEN	14
#define ETH_TYPE_IPV4	0x0800
#define ETH_TYPE_IPV6	0x86dd
#define IP4_HLEN	20
#define IP6_HLEN	40
#define IP_LEN_MAX	0xffffu
#define PROTO_TCP	6
#define TCP_HLEN_MIN	20
#define IP4_MF_OFFSET	0x3fff /* more-fragments and the fragment offset */
#define IP4_DF		0x4000
/* TCP flags that end coalescing: FIN, SYN, RST, URG, ECE, CWR. */
#define TCP_FLAGS_OTHER 0xe7u

/* Offsets from the start of the frame. */
#define OFF_IP	 (ETH_HLEN)
#define OFF_TCP4 (ETH_HLEN + IP4_HLEN)
#define OFF_TCP6 (ETH_HLEN + IP6_HLEN)

/* The IP header of a frame at least @len bytes long: may it join? Sets
 * the IP packet's length from the header. */
static bool parse_ip4(const uint8_t *f, uint32_t len, uint32_t *ip_len)
{
	const uint8_t *ip = f + OFF_IP;

	if (len < OFF_TCP4 + TCP_HLEN_MIN || ip[0] != 0x45 ||
	    ip[9] != PROTO_TCP || (wire_be16(ip + 6) & IP4_MF_OFFSET))
		return false;
	*ip_len = wire_be16(ip + 2);
	return true;
}

/* IPv6: TCP right after the fixed header, no extension header. */
static bool parse_ip6(const uint8_t *f, uint32_t len, uint32_t *ip_len)
{
	const uint8_t *ip = f + OFF_IP;

	if (len < OFF_TCP6 + TCP_HLEN_MIN || ip[0] >> 4 != 6 ||
	    ip[6] != PROTO_TCP)
		return false;
	*ip_len = IP6_HLEN + wire_be16(ip + 4);
	return true;
}

bool net_gro_parse(const void *frame, uint32_t len, struct net_gro_seg *s)
{
	const uint8_t *f = frame, *tcp;
	uint32_t ip_len, ip_hlen, tcp_hlen;
	uint16_t type;

	if (len < ETH_HLEN)
		return false;
	type = wire_be16(f + 12);
	if (type == ETH_TYPE_IPV4 && parse_ip4(f, len, &ip_len))
		ip_hlen = IP4_HLEN;
	else if (type == ETH_TYPE_IPV6 && parse_ip6(f, len, &ip_len))
		ip_hlen = IP6_HLEN;
	else
		return false;
	tcp = f + OFF_IP + ip_hlen;
	tcp_hlen = (uint32_t)(tcp[12] >> 4) * 4;
	if (ip_len > len - ETH_HLEN || ip_len > IP_LEN_MAX ||
	    tcp_hlen < TCP_HLEN_MIN || ip_hlen + tcp_hlen >= ip_len)
		return false; /* too long for the frame, or no payload */
	if ((tcp[13] & TCP_FLAGS_OTHER) || !(tcp[13] & NET_GRO_TCP_ACK))
		return false;
	s->seq = __builtin_bswap32(wire_ld32(tcp + 4));
	s->ip_len = (uint16_t)ip_len;
	s->tcp_off = (uint8_t)(OFF_IP + ip_hlen);
	s->hdr_len = (uint16_t)(s->tcp_off + tcp_hlen);
	s->payload = (uint16_t)(ip_len - ip_hlen - tcp_hlen);
	s->flags = tcp[13];
	return true;
}

/* The ones'-complement sum of a 20-byte IPv4 header, folded, in the
 * byte order of the header's own words (net/chksum.h): 0xffff when its
 * sum field is right (the version byte makes an all-zero sum
 * impossible). */
static uint16_t ip4_hdr_sum(const uint8_t *ip)
{
	return net_chksum_fold(net_chksum_add64(
		net_chksum_add64(wire_ld64(ip), wire_ld64(ip + 8)),
		wire_ld32(ip + 16)));
}

bool net_gro_ip_sum_ok(const void *frame)
{
	const uint8_t *f = frame;

	if (wire_be16(f + 12) == ETH_TYPE_IPV6)
		return true; /* IPv6 has no header sum */
	return ip4_hdr_sum(f + OFF_IP) == 0xffff;
}

/* The IP headers of two parsed frames of one family, past the first two
 * bytes (net_gro_follows compares those with the Ethernet header): the
 * same but for lengths, IPv4 id and sum. */
static bool ip_follows(const uint8_t *a, const uint8_t *b, bool ip6)
{
	const uint8_t *ia = a + OFF_IP, *ib = b + OFF_IP;

	if (ip6) /* flow label's low 16 bits; next header and hop limit;
		    the addresses */
		return wire_ld16(ia + 2) == wire_ld16(ib + 2) &&
		       wire_ld16(ia + 6) == wire_ld16(ib + 6) &&
		       wire_ld64(ia + 8) == wire_ld64(ib + 8) &&
		       wire_ld64(ia + 16) == wire_ld64(ib + 16) &&
		       wire_ld64(ia + 24) == wire_ld64(ib + 24) &&
		       wire_ld64(ia + 32) == wire_ld64(ib + 32);
	/* DF (fragmentation is known to be off), TTL and protocol, the
	 * addresses */
	return !((wire_ld16(ia + 6) ^ wire_ld16(ib + 6)) &
		 __builtin_bswap16(IP4_DF)) &&
	       wire_ld16(ia + 8) == wire_ld16(ib + 8) &&
	       wire_ld64(ia + 12) == wire_ld64(ib + 12);
}

bool net_gro_follows(const void *h, const struct net_gro_seg *head,
		     uint32_t next_seq, const void *f,
		     const struct net_gro_seg *s)
{
	const uint8_t *a = h, *b = f;
	const uint8_t *ta = a + head->tcp_off, *tb = b + head->tcp_off;

	if (s->seq != next_seq || s->hdr_len != head->hdr_len ||
	    s->tcp_off != head->tcp_off)
		return false;
	/* Ethernet header, then IPv4 version, header length and TOS, or
	 * IPv6 version, traffic class and the flow label's top 4 bits */
	if (wire_ld64(a) != wire_ld64(b) ||
	    wire_ld64(a + 8) != wire_ld64(b + 8))
		return false;
	if (!ip_follows(a, b, head->tcp_off == OFF_TCP6))
		return false;
	/* ports */
	if (wire_ld32(ta) != wire_ld32(tb))
		return false;
	/* acknowledgement; header length, flags but PSH, window */
	if (wire_ld32(ta + 8) != wire_ld32(tb + 8) ||
	    ((wire_ld32(ta + 12) ^ wire_ld32(tb + 12)) &
	     ~(uint32_t)(NET_GRO_TCP_PSH << 8)) != 0)
		return false;
	/* urgent pointer, then the options, four bytes at a time */
	if (wire_ld16(ta + 18) != wire_ld16(tb + 18))
		return false;
	for (uint32_t o = TCP_HLEN_MIN;
	     o < (uint32_t)head->hdr_len - head->tcp_off; o += 4)
		if (wire_ld32(ta + o) != wire_ld32(tb + o))
			return false;
	return true;
}

void net_gro_rewrite_head(void *frame, uint16_t ip_len, uint8_t flags)
{
	uint8_t *f = frame, *ip = f + OFF_IP;
	uint16_t sum;

	if (wire_be16(f + 12) == ETH_TYPE_IPV6) {
		wire_put_be16(ip + 4, (uint16_t)(ip_len - IP6_HLEN));
		ip[IP6_HLEN + 13] |= flags;
		return;
	}
	wire_put_be16(ip + 2, ip_len);
	wire_put_be16(ip + 10, 0);
	sum = (uint16_t)~ip4_hdr_sum(ip); /* already in the header's order */
	__builtin_memcpy(ip + 10, &sum, sizeof(sum));
	ip[IP4_HLEN + 13] |= flags;
}
