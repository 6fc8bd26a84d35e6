/*
 * Software checksum verification of received frames, for NICs that do
 * not vouch for their sums. See net/rx_csum.c.
 */
#ifndef NET_RX_CSUM_H
#define NET_RX_CSUM_H

#include <stdint.h>

enum net_rx_csum {
	NET_RX_CSUM_UNCHECKED, /* not a frame checked here: lwIP checks it */
	NET_RX_CSUM_GOOD,      /* IP header (v4) and TCP/UDP sums right */
	NET_RX_CSUM_BAD,       /* a sum is wrong: lwIP checks, drops, counts */
};

/**
 * net_rx_csum_verify - check the sums of one received Ethernet frame.
 * @frame: the frame from its Ethernet header, in one buffer.
 * @len: its length in bytes (trailing padding allowed).
 *
 * Checked: an untagged IPv4 packet that is not a fragment (its header
 * sum, then its TCP or UDP sum over the IP length with the
 * pseudo-header), and an IPv6 packet whose next header is TCP or UDP.
 * Everything else (ARP, ICMP, fragments, IPv6 extension headers, an IPv4
 * UDP datagram without a sum, lengths that do not fit @len) is
 * UNCHECKED. Reads nothing outside [@frame, @frame + @len).
 * Context: any; reads only the frame.
 */
enum net_rx_csum net_rx_csum_verify(const void *frame, uint32_t len);

#endif /* NET_RX_CSUM_H */
