/*
 * Software checksum verification of received frames, before lwIP sees
 * them.
 *
 * Why: a NIC that does not check TCP/UDP sums (virtio-net on a backend
 * without vnet headers, such as QEMU's user networking; e1000 as this
 * kernel drives it) leaves them to lwIP, which checks each sum on its
 * own: the IPv4 header with inet_chksum(), the segment with
 * ip_chksum_pseudo(), which builds the pseudo-header's sum, walks the
 * pbuf chain summing each piece and swapping bytes after an odd one.
 * That generality cost about 150 guest instructions per received
 * segment beyond the sum itself (tools/insn-profile iperf-rx, virtio).
 *
 * How: the frame is still one flat buffer here, so the IPv4 header sum is
 * three loads, and the segment's sum is one net_chksum_acc() over its
 * bytes seeded with the pseudo-header (source and destination address as
 * one 8- or 32-byte piece, then protocol and length), folded once. A
 * frame whose sums are right goes into lwIP with its IP, TCP and UDP
 * checks off for that frame (net/netif_glue.c), exactly as for a frame the
 * device vouched for. A frame whose sums are wrong, or one not checked
 * here, goes in with lwIP's checks on, so lwIP drops and counts a bad one
 * as it always did (its chkerr counters); nothing is dropped here.
 *
 * Byte order: words are read little-endian, as net_chksum reads them; the
 * protocol and length words of the pseudo-header are added in that same
 * representation (the network-order bytes read as a little-endian word).
 * A right sum folds to 0xffff (ones'-complement -0); it cannot fold to 0
 * unless every word is 0, and the protocol word is not.
 */
#include "rx_csum.h"

#include "chksum.h"
#include "wire_bytes.h"

#define ETH_HLEN      14
#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_IPV6 0x86dd
#define IP4_HLEN_MIN  20
#define IP6_HLEN      40
#define PROTO_TCP     6
#define PROTO_UDP     17
#define TCP_HLEN_MIN  20
#define UDP_HLEN      8
#define IP4_FRAG_MASK 0x3fff /* MF and the fragment offset */

/* The pseudo-header's protocol and length words, as net_chksum would
 * have read their network-order bytes (below 2^17 together). */
static inline uint64_t pseudo_words(uint8_t proto, uint32_t l4len)
{
	uint16_t len = (uint16_t)l4len;

	return ((uint64_t)proto << 8) + (uint16_t)(len >> 8 | len << 8);
}

/* The segment of @l4len bytes at @l4, @sum its pseudo-header's sum so
 * far: is the whole sum right? */
static inline enum net_rx_csum check_l4(uint64_t sum, const uint8_t *l4,
					uint32_t l4len)
{
	return net_chksum_fold(net_chksum_acc(l4, l4len, sum)) == 0xffff
		       ? NET_RX_CSUM_GOOD
		       : NET_RX_CSUM_BAD;
}

static enum net_rx_csum verify_ipv4(const uint8_t *ip, uint32_t room)
{
	uint32_t hlen, tot;
	uint64_t sum;
	uint8_t proto;

	if (room < IP4_HLEN_MIN || ip[0] >> 4 != 4)
		return NET_RX_CSUM_UNCHECKED;
	hlen = (uint32_t)(ip[0] & 0xf) * 4;
	tot = wire_be16(ip + 2);
	proto = ip[9];
	if (hlen < IP4_HLEN_MIN || tot > room ||
	    (wire_be16(ip + 6) & IP4_FRAG_MASK))
		return NET_RX_CSUM_UNCHECKED;
	if (proto == PROTO_TCP) {
		if (tot < hlen + TCP_HLEN_MIN)
			return NET_RX_CSUM_UNCHECKED;
	} else if (proto == PROTO_UDP) {
		/* No sum sent (0): lwIP checks none either. */
		if (tot < hlen + UDP_HLEN || wire_be16(ip + hlen + 6) == 0)
			return NET_RX_CSUM_UNCHECKED;
	} else {
		return NET_RX_CSUM_UNCHECKED;
	}
	/* The header: three loads without options, else the loop. */
	if (hlen == IP4_HLEN_MIN)
		sum = net_chksum_add64(
			net_chksum_add64(wire_ld64(ip), wire_ld64(ip + 8)),
			wire_ld32(ip + 16));
	else
		sum = net_chksum_acc(ip, hlen, 0);
	if (net_chksum_fold(sum) != 0xffff)
		return NET_RX_CSUM_BAD;
	/* Source and destination address: one 8-byte piece. */
	sum = net_chksum_add64(pseudo_words(proto, tot - hlen),
			       wire_ld64(ip + 12));
	return check_l4(sum, ip + hlen, tot - hlen);
}

static enum net_rx_csum verify_ipv6(const uint8_t *ip, uint32_t room)
{
	uint32_t plen;
	uint64_t sum;
	uint8_t next;

	if (room < IP6_HLEN || ip[0] >> 4 != 6)
		return NET_RX_CSUM_UNCHECKED;
	plen = wire_be16(ip + 4);
	next = ip[6];
	if (plen > room - IP6_HLEN ||
	    !((next == PROTO_TCP && plen >= TCP_HLEN_MIN) ||
	      (next == PROTO_UDP && plen >= UDP_HLEN)))
		return NET_RX_CSUM_UNCHECKED;
	/* Source and destination address: 32 bytes from offset 8. */
	sum = pseudo_words(next, plen);
	for (int i = 8; i < IP6_HLEN; i += 8)
		sum = net_chksum_add64(sum, wire_ld64(ip + i));
	return check_l4(sum, ip + IP6_HLEN, plen);
}

enum net_rx_csum net_rx_csum_verify(const void *frame, uint32_t len)
{
	const uint8_t *f = frame;
	uint16_t type;

	if (len < ETH_HLEN)
		return NET_RX_CSUM_UNCHECKED;
	type = wire_be16(f + 12);
	if (type == ETH_TYPE_IPV4)
		return verify_ipv4(f + ETH_HLEN, len - ETH_HLEN);
	if (type == ETH_TYPE_IPV6)
		return verify_ipv6(f + ETH_HLEN, len - ETH_HLEN);
	return NET_RX_CSUM_UNCHECKED;
}
