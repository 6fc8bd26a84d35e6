/*
 * virtio-net TCP segmentation offload on transmit (VIRTIO_NET_F_HOST_TSO4
 * for IPv4, VIRTIO_NET_F_HOST_TSO6 for IPv6). The stack hands xmit two
 * kinds of TCP segment (tcp_merge.h): MSS segments, one at a time, which
 * the driver merges, consecutive ones of one flow, into one chain with a
 * GSO header (virtio 1.x spec 5.1.6.2); and large segments (the stack
 * builds them when dev.offloads has NETDEV_OFF_TSO4/6), each sent alone
 * as such a chain. Either way the device (the host kernel behind a tap)
 * cuts the chain into segments of gso_size payload bytes, or delivers it
 * whole to a local socket.
 * On a vnet_hdr tap every frame costs QEMU one tap write: guest->host
 * iperf (tools/bench-offload, 2 rounds) went from 491 Mbit/s with one
 * frame per 1460 bytes to 1724 with up to 16 segments per chain.
 *
 * The window. xmit only publishes; tx_flush rings the doorbell once per
 * hold of the stack's TX guard (net/core_lock.c flushes every queue used
 * before the guard goes). Within that window a TCP segment is held in the
 * pair's tx_batch; the next one joins it when it continues the same flow,
 * else the batch goes first (order on the wire is kept) and the newcomer
 * starts a new one. tx_flush sends what is held. A batch of one MSS
 * segment goes out as the very frame it was, exactly as without
 * HOST_TSO4; a large segment is a batch of its own, posted at once.
 *
 * What may merge is tcp_merge.c's (the rules igb's TSO shares): IPv4
 * without options, not a fragment, or IPv6 with TCP right after the fixed
 * header (lwIP sends no extension header with TCP), each only when its
 * feature was negotiated (virtio_net.c asks), and only when the headers
 * fit the chain's slot (VNET_GSO_HDR_MAX; a longer one goes as it came,
 * or, when it is longer than the MTU, is refused).
 *
 * The merged frame. Its headers are a copy of the first segment's, in
 * the chain's vnet_gso_slot (the stack keeps its segments for
 * retransmission: its bytes are not edited), with the IP length for the
 * merged length (IPv4: tot_len and the header sum; IPv6: payload length)
 * and the TCP sum field seeded with the pseudo-header sum over the whole
 * TCP length (NEEDS_CSUM, csum_start at the TCP header, csum_offset 16),
 * gso_type TCPV4 or TCPV6, hdr_len the header bytes, gso_size the first
 * segment's payload (merged) or the MTU less the headers (large: lwIP's
 * own MSS, so the wire carries the segments lwIP would have sent). The
 * device copies the TCP flags into each segment it cuts but clears FIN
 * and PSH on all but the last (as Linux's GSO does). The device fixes the
 * sum, the IPv4 id and the lengths of each segment it cuts. The payloads
 * are read in place from the stack's segments. The chain's cookie is its
 * slot, which lists every segment's cookie for tx_done.
 *
 * The ring work (holding, posting, reaping, a full ring) is the TX
 * path's, in virtio_net.c; this file only says what the merged header
 * holds.
 */
#include <string.h>

#include "frame_hdr.h"
#include "virtio_net_internal.h"

#define IP_OFF	     FRAME_ETH_HLEN
#define TCP_CSUM_OFF 16
#define TCP_FLAG_PSH 0x08

_Static_assert(FRAME_ETH_HLEN + FRAME_IPV4_HLEN + 60 <= VNET_GSO_HDR_MAX,
	       "every merged IPv4 chain's headers fit its slot");

void vnet_gso_headers(const struct tcp_merge_batch *b, uint8_t *h,
		      struct vnet_hdr *vh)
{
	uint32_t t = b->l4, tcp_len = b->hlen - t + b->payload, sum = 0;

	memcpy(h, b->hdr, b->hlen);
	if (b->ipv6) {
		/* IPv6 has no header sum */
		frame_put_be16(h + IP_OFF + 4, tcp_len);
	} else {
		frame_put_be16(h + IP_OFF + 2, FRAME_IPV4_HLEN + tcp_len);
		frame_put_be16(h + IP_OFF + 10, 0);
		for (int i = 0; i < FRAME_IPV4_HLEN; i += 2)
			sum += frame_be16(h + IP_OFF + i);
		frame_put_be16(h + IP_OFF + 10, ~frame_fold(sum) & 0xffff);
	}
	if (b->psh)
		h[t + 13] |= TCP_FLAG_PSH;
	/* The pseudo-header: the addresses (they end where TCP starts), the
	 * protocol, the TCP length. */
	sum = FRAME_PROTO_TCP + tcp_len;
	for (uint32_t i = b->ipv6 ? IP_OFF + 8 : IP_OFF + 12; i < t; i += 2)
		sum += frame_be16(h + i);
	frame_put_be16(h + t + TCP_CSUM_OFF, frame_fold(sum));
	*vh = (struct vnet_hdr){
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = b->ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6
				    : VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = (uint16_t)b->hlen,
		.gso_size = (uint16_t)b->gso_size,
		.csum_start = (uint16_t)t,
		.csum_offset = TCP_CSUM_OFF,
	};
}
