/*
 * The owner of a received frame (see flow_owner.h): a few header fields
 * read in place, no copy and no allocation.
 */
#include "flow_owner.h"

#include "rss_check.h"

#define ETH_HLEN	  14
#define ETHERTYPE_IPV4	  0x0800
#define ETHERTYPE_IPV6	  0x86dd
#define ETHERTYPE_ARP	  0x0806
#define ARP_OP_REPLY	  2
#define PROTO_ICMP	  1
#define PROTO_TCP	  6
#define PROTO_UDP	  17
#define PROTO_IPV6_FRAG	  44
#define PROTO_ICMPV6	  58
#define ICMP_ECHO_REPLY	  0
#define ICMPV6_ECHO_REPLY 129
#define ICMPV6_RA	  134
#define ICMPV6_NA	  136
#define ICMPV6_REDIRECT	  137
#define PORT_DHCP_CLIENT  68
#define PORT_DHCP6_CLIENT 546
#define IPV6_HLEN	  40
#define TCP_SYN_ACK	  0x12 /* the SYN and ACK flags, byte 13 */

static uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* A TCP or UDP frame (ports at @l4, @avail bytes from there). */
static int transport_owner(const struct flow_owner_rules *r, const void *frame,
			   uint32_t len, uint8_t proto, const uint8_t *l4,
			   uint32_t avail)
{
	uint32_t hash;

	if (avail < 4)
		return r->self;
	if (proto == PROTO_UDP && (be16_at(l4 + 2) == PORT_DHCP_CLIENT ||
				   be16_at(l4 + 2) == PORT_DHCP6_CLIENT))
		return 0;
	if (proto == PROTO_TCP && r->pinned_tcp_port &&
	    be16_at(l4 + 2) == r->pinned_tcp_port)
		return 0;
	/* UDP is answered where it arrives: no UDP client but DHCP's. A
	 * device that steers put TCP where its connection is, except that a
	 * SYN-ACK answers an active open, whose port was chosen for the
	 * table (net/rss_steer.c): checked, so a device that hashed it
	 * otherwise costs a hand-off rather than the connection. */
	if (proto == PROTO_UDP || r->table_len == 0 ||
	    (r->device_steers &&
	     (avail < 14 || (l4[13] & TCP_SYN_ACK) != TCP_SYN_ACK)) ||
	    !rss_frame_hash(r->key, frame, len, true, &hash))
		return r->self;
	return r->table[hash & (uint32_t)(r->table_len - 1)];
}

static int ipv4_owner(const struct flow_owner_rules *r, const uint8_t *f,
		      uint32_t len)
{
	const uint8_t *ip = f + ETH_HLEN;
	uint32_t avail = len - ETH_HLEN, hlen;

	if (avail < 20 || ip[0] >> 4 != 4)
		return r->self;
	hlen = (uint32_t)(ip[0] & 0xf) * 4;
	if (hlen < 20 || avail < hlen)
		return r->self;
	if (be16_at(ip + 6) & 0x3fff) /* more fragments, or an offset */
		return 0;
	switch (ip[9]) {
	case PROTO_TCP:
	case PROTO_UDP:
		return transport_owner(r, f, len, ip[9], ip + hlen,
				       avail - hlen);
	case PROTO_ICMP:
		return avail > hlen && ip[hlen] == ICMP_ECHO_REPLY ? 0
								   : r->self;
	default:
		return r->self;
	}
}

static int ipv6_owner(const struct flow_owner_rules *r, const uint8_t *f,
		      uint32_t len)
{
	const uint8_t *ip = f + ETH_HLEN;
	uint32_t avail = len - ETH_HLEN;
	uint8_t type;

	if (avail < IPV6_HLEN || ip[0] >> 4 != 6)
		return r->self;
	switch (ip[6]) {
	case PROTO_TCP:
	case PROTO_UDP:
		return transport_owner(r, f, len, ip[6], ip + IPV6_HLEN,
				       avail - IPV6_HLEN);
	case PROTO_IPV6_FRAG:
		return 0;
	case PROTO_ICMPV6:
		if (avail == IPV6_HLEN)
			return r->self;
		type = ip[IPV6_HLEN];
		if (type == ICMPV6_RA || type == ICMPV6_NA ||
		    type == ICMPV6_REDIRECT)
			return FLOW_OWNER_ALL;
		return type == ICMPV6_ECHO_REPLY ? 0 : r->self;
	default:
		return r->self;
	}
}

int flow_owner(const struct flow_owner_rules *r, const void *frame,
	       uint32_t len)
{
	const uint8_t *f = frame;

	if (len < ETH_HLEN)
		return r->self;
	switch (be16_at(f + 12)) {
	case ETHERTYPE_ARP:
		/* the operation: after the 6-byte fixed part */
		return len >= ETH_HLEN + 8 &&
				       be16_at(f + ETH_HLEN + 6) == ARP_OP_REPLY
			       ? FLOW_OWNER_ALL
			       : r->self;
	case ETHERTYPE_IPV4:
		return ipv4_owner(r, f, len);
	case ETHERTYPE_IPV6:
		return ipv6_owner(r, f, len);
	default:
		return r->self;
	}
}
