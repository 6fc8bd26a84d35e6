/*
 * virtio-net offloads, the per-frame half: what goes into the header the
 * driver puts before each frame it sends, and what the header the device
 * puts before each frame it receives may be trusted with (virtio 1.x spec
 * 5.1.6.2 and 5.1.6.4).
 *
 * TX checksum (VIRTIO_NET_F_CSUM). The stack leaves TCP and UDP sums to
 * us (netdev.offloads NETDEV_OFF_TX_CSUM). For a whole IPv4 TCP or UDP
 * datagram, or an IPv6 one with TCP/UDP right after the fixed header,
 * we set NEEDS_CSUM, csum_start = the L4 header, csum_offset =
 * the sum field's place in it, and write the pseudo-header sum (source,
 * destination, protocol, L4 length; folded, not inverted) into that field,
 * as the spec asks: the device then sums from csum_start to the end and
 * stores the complement. A fragment cannot be summed by the device (the
 * sum covers every fragment); lwIP computes the UDP sum before it
 * fragments, so without it a fragment goes with a zero UDP sum, which
 * IPv4 reads as "no sum" (RFC 768); IPv6 has no such "no sum", so a
 * fragmented IPv6 UDP datagram would go out unsummed (lwIP fragments
 * only UDP datagrams beyond the MTU). Headers are read through the scatter
 * list, so a header split over segments is handled too.
 *
 * RX checksum (VIRTIO_NET_F_GUEST_CSUM). DATA_VALID: the device checked
 * the sum. NEEDS_CSUM: the frame never crossed a wire (the host's stack
 * left the sum partial) and its field holds only the pseudo-header sum,
 * which lwIP would reject. Either way the frame is flagged
 * NETDEV_RX_CSUM_OK and the stack skips its own TCP/UDP check; an IPv4
 * fragment is never flagged (its sum is checked on the whole datagram).
 * A NEEDS_CSUM whose csum_start/csum_offset fall outside the frame, a GSO
 * type we did not negotiate (TCPV4 needs GUEST_TSO4, TCPV6 GUEST_TSO6), or
 * flags without GUEST_CSUM are refused.
 */
#include <string.h>

#include "virtio_net_internal.h"

#define ETH_HLEN     14
#define ETHTYPE_IPV4 0x0800
#define ETHTYPE_IPV6 0x86dd
#define IPV6_HLEN    40
#define IP_PROTO_TCP 6
#define IP_PROTO_UDP 17
#define TCP_CSUM_OFF 16
#define UDP_CSUM_OFF 6
#define IP_FRAG_MASK 0x3fff		  /* MF and the fragment offset */
#define HDR_PEEK     (ETH_HLEN + 60 + 20) /* Ethernet + IPv4 + TCP fixed */

uint32_t vnet_sg_read(const struct netdev_sg *sg, int nsg, uint32_t off,
		      uint8_t *out, uint32_t n)
{
	uint32_t got = 0;

	for (int i = 0; i < nsg && got < n; i++) {
		uint32_t len = sg[i].len, take;

		if (off >= len) {
			off -= len;
			continue;
		}
		take = len - off < n - got ? len - off : n - got;
		memcpy(out + got, (const uint8_t *)sg[i].addr + off, take);
		got += take;
		off = 0;
	}
	return got;
}

/* Store one byte at frame offset off (the frame is at least that long). */
static void sg_put(const struct netdev_sg *sg, int nsg, uint32_t off, uint8_t v)
{
	for (int i = 0; i < nsg; i++) {
		if (off < sg[i].len) {
			/* The stack's own TX bytes: NETDEV_OFF_TX_CSUM lets
			 * the driver write the sum field (netdev.h). */
			((uint8_t *)(uintptr_t)sg[i].addr)[off] = v;
			return;
		}
		off -= sg[i].len;
	}
}

static uint32_t be16_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* The sum field's offset in an L4 header of protocol proto, l4len bytes
 * long; 0 when it is neither TCP nor UDP or too short. */
static uint32_t l4_field(uint8_t proto, uint32_t l4len)
{
	if (proto == IP_PROTO_TCP && l4len >= 20)
		return TCP_CSUM_OFF;
	if (proto == IP_PROTO_UDP && l4len >= 8)
		return UDP_CSUM_OFF;
	return 0;
}

/* Seed the field at frame offset l4 + field with the folded pseudo-header
 * sum and ask the device for the rest. */
static int request_csum(struct vnet_hdr *h, const struct netdev_sg *sg, int nsg,
			uint32_t l4, uint32_t field, uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sg_put(sg, nsg, l4 + field, (uint8_t)(sum >> 8));
	sg_put(sg, nsg, l4 + field + 1, (uint8_t)sum);
	h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h->csum_start = (uint16_t)l4;
	h->csum_offset = (uint16_t)field;
	return 1;
}

/* IPv6 (lwIP's per-netif sum switches cover both families): TCP or UDP
 * right after the fixed header. Anything behind an extension header
 * (lwIP sends only the fragment header) is left alone. */
static int tx_csum_ipv6(struct vnet_hdr *h, const struct netdev_sg *sg, int nsg,
			const uint8_t *b, uint32_t got)
{
	uint32_t l4len, field, sum = 0;
	uint8_t nh;

	if (got < ETH_HLEN + IPV6_HLEN || (b[ETH_HLEN] >> 4) != 6)
		return 0;
	l4len = be16_at(b + ETH_HLEN + 4);
	nh = b[ETH_HLEN + 6];
	field = l4_field(nh, l4len);
	if (!field || got < ETH_HLEN + IPV6_HLEN + field + 2)
		return 0;
	for (int i = 0; i < 32; i += 2) /* source and destination */
		sum += be16_at(b + ETH_HLEN + 8 + i);
	return request_csum(h, sg, nsg, ETH_HLEN + IPV6_HLEN, field,
			    sum + nh + l4len);
}

int vnet_tx_csum(struct vnet_hdr *h, const struct netdev_sg *sg, int nsg)
{
	uint8_t b[HDR_PEEK];
	uint32_t got = vnet_sg_read(sg, nsg, 0, b, sizeof(b));
	uint32_t ihl, tot, l4len, sum, field;
	uint8_t proto;

	*h = (struct vnet_hdr){0};
	if (got >= ETH_HLEN && be16_at(b + 12) == ETHTYPE_IPV6)
		return tx_csum_ipv6(h, sg, nsg, b, got);
	if (got < ETH_HLEN + 20 || be16_at(b + 12) != ETHTYPE_IPV4)
		return 0;
	ihl = (b[ETH_HLEN] & 15u) * 4;
	tot = be16_at(b + ETH_HLEN + 2);
	proto = b[ETH_HLEN + 9];
	if ((b[ETH_HLEN] >> 4) != 4 || ihl < 20 || tot < ihl ||
	    (be16_at(b + ETH_HLEN + 6) & IP_FRAG_MASK))
		return 0;
	l4len = tot - ihl;
	field = l4_field(proto, l4len);
	/* The field must be inside the frame we were given. */
	if (!field || got < ETH_HLEN + ihl + field + 2)
		return 0;
	sum = be16_at(b + ETH_HLEN + 12) + be16_at(b + ETH_HLEN + 14) +
	      be16_at(b + ETH_HLEN + 16) + be16_at(b + ETH_HLEN + 18) + proto +
	      l4len;
	return request_csum(h, sg, nsg, ETH_HLEN + ihl, field, sum);
}

/* Is this an IPv4 fragment (its sum belongs to the whole datagram)? */
static bool ipv4_fragment(const uint8_t *f, uint32_t len)
{
	return len >= ETH_HLEN + 20 && be16_at(f + 12) == ETHTYPE_IPV4 &&
	       (be16_at(f + ETH_HLEN + 6) & IP_FRAG_MASK);
}

int vnet_rx_check(const struct vnet *vn, const struct vnet_hdr *h,
		  const uint8_t *first, uint32_t first_len, uint32_t total)
{
	uint8_t gso = h->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	bool tso4 = vnet_has(vn->features, VIRTIO_NET_F_GUEST_TSO4);
	bool tso6 = vnet_has(vn->features, VIRTIO_NET_F_GUEST_TSO6);
	uint8_t known =
		VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID;

	if (total > (tso4 || tso6 ? NETDEV_RX_BIG_MAX : NETDEV_FRAME_MAX) ||
	    total < ETH_HLEN)
		return -1;
	if (gso != VIRTIO_NET_HDR_GSO_NONE &&
	    !(gso == VIRTIO_NET_HDR_GSO_TCPV4 && tso4) &&
	    !(gso == VIRTIO_NET_HDR_GSO_TCPV6 && tso6))
		return -1;
	if (gso == VIRTIO_NET_HDR_GSO_NONE && total > NETDEV_FRAME_MAX)
		return -1;
	if (!(h->flags & known))
		return 0;
	if (!vn->rx_csum)
		return -1; /* flags the device may not send us */
	if ((h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    ((uint32_t)h->csum_start + h->csum_offset + 2 > total ||
	     h->csum_start < ETH_HLEN))
		return -1;
	if (ipv4_fragment(first, first_len))
		return 0;
	return NETDEV_RX_CSUM_OK;
}
