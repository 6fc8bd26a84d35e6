/*
 * The RSS hash of a received frame (see rss_check.h): find the flow's
 * fields in the frame and hand them to the Toeplitz hash in the order
 * the device reads them -- source address, destination address, and for
 * a 4-tuple hash source port then destination port.
 */
#include "rss_check.h"

#define ETH_HLEN       14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define IP_PROTO_TCP   6
#define IP_PROTO_UDP   17
#define IPV6_HLEN      40

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool proto_has_ports(uint8_t proto)
{
	return proto == IP_PROTO_TCP || proto == IP_PROTO_UDP;
}

static bool ipv4_hash(const uint8_t key[TOEPLITZ_KEY_LEN], const uint8_t *ip,
		      uint32_t len, bool ports, uint32_t *hash)
{
	uint32_t hlen;

	if (len < 20 || ip[0] >> 4 != 4)
		return false;
	if (!ports) {
		*hash = toeplitz_ipv4(key, ip + 12, ip + 16);
		return true;
	}
	hlen = (uint32_t)(ip[0] & 0xf) * 4;
	/* a fragment (more to come, or an offset) carries no ports the
	 * device could read */
	if (hlen < 20 || (get16(ip + 6) & 0x3fff) || !proto_has_ports(ip[9]) ||
	    len < hlen + 4)
		return false;
	*hash = toeplitz_ipv4_ports(key, ip + 12, ip + 16, get16(ip + hlen),
				    get16(ip + hlen + 2));
	return true;
}

static bool ipv6_hash(const uint8_t key[TOEPLITZ_KEY_LEN], const uint8_t *ip,
		      uint32_t len, bool ports, uint32_t *hash)
{
	if (len < IPV6_HLEN || ip[0] >> 4 != 6)
		return false;
	if (!ports) {
		*hash = toeplitz_ipv6(key, ip + 8, ip + 24);
		return true;
	}
	if (!proto_has_ports(ip[6]) || len < IPV6_HLEN + 4)
		return false;
	*hash = toeplitz_ipv6_ports(key, ip + 8, ip + 24, get16(ip + IPV6_HLEN),
				    get16(ip + IPV6_HLEN + 2));
	return true;
}

bool rss_frame_hash(const uint8_t key[TOEPLITZ_KEY_LEN], const void *frame,
		    uint32_t len, bool ports, uint32_t *hash)
{
	const uint8_t *f = frame;

	if (len < ETH_HLEN)
		return false;
	switch (get16(f + 12)) {
	case ETHERTYPE_IPV4:
		return ipv4_hash(key, f + ETH_HLEN, len - ETH_HLEN, ports,
				 hash);
	case ETHERTYPE_IPV6:
		return ipv6_hash(key, f + ETH_HLEN, len - ETH_HLEN, ports,
				 hash);
	default:
		return false;
	}
}
