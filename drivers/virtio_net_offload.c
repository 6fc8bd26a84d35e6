/*
 * virtio-net offloads, the per-frame half: what goes into the header the
 * driver puts before each frame it sends, and what the header the device
 * puts before each frame it receives may be trusted with (virtio 1.x spec
 * 5.1.6.2 and 5.1.6.4).
 *
 * TX checksum (VIRTIO_NET_F_CSUM). The stack leaves TCP and UDP sums to
 * us (netdev.offloads NETDEV_OFF_TX_CSUM). For a whole IPv4 TCP or UDP
 * datagram, or an IPv6 one with TCP/UDP right after the fixed header
 * (frame_hdr.c finds them, as for igb), we set NEEDS_CSUM, csum_start =
 * the L4 header, csum_offset = the sum field's place in it, and write the
 * pseudo-header sum (source, destination, protocol, L4 length; folded, not
 * inverted) into that field, as the spec asks: the device then sums from
 * csum_start to the end and stores the complement. A fragment cannot be
 * summed by the device (the
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
#include "frame_hdr.h"
#include "virtio_net_internal.h"

int vnet_tx_csum(struct vnet_hdr *h, const struct netdev_sg *sg, int nsg)
{
	struct frame_l4 f;

	*h = (struct vnet_hdr){0};
	if (!frame_find_l4(sg, nsg, &f))
		return 0;
	frame_put_l4_sum(sg, nsg, &f, frame_pseudo_sum(&f, f.l4len));
	h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h->csum_start = (uint16_t)f.l4;
	h->csum_offset = (uint16_t)f.field;
	return 1;
}

/* Is this an IPv4 fragment (its sum belongs to the whole datagram)? */
static bool ipv4_fragment(const uint8_t *f, uint32_t len)
{
	return len >= FRAME_ETH_HLEN + FRAME_IPV4_HLEN &&
	       frame_be16(f + 12) == FRAME_ETHTYPE_IPV4 &&
	       (frame_be16(f + FRAME_ETH_HLEN + 6) & FRAME_IP_FRAG_MASK);
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
	    total < FRAME_ETH_HLEN)
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
	     h->csum_start < FRAME_ETH_HLEN))
		return -1;
	if (ipv4_fragment(first, first_len))
		return 0;
	return NETDEV_RX_CSUM_OK;
}
