/*
 * frame_hdr: the headers of an outgoing Ethernet frame as a NIC that sums
 * or segments it needs them -- where the IP and TCP/UDP headers start,
 * how long the L4 datagram is, and the pseudo-header sum its checksum
 * field is seeded with. Shared by virtio-net (the NEEDS_CSUM header) and
 * igb (the context descriptor): the rules of the frame are the same, only
 * the way each device is told differs. Headers are read through the
 * scatter list, so a header split over segments is handled too.
 */
#ifndef DRIVERS_FRAME_HDR_H
#define DRIVERS_FRAME_HDR_H

#include <stdbool.h>
#include <stdint.h>

#include "netdev.h"

#define FRAME_ETH_HLEN	   14
#define FRAME_IPV4_HLEN	   20 /* without options */
#define FRAME_IPV6_HLEN	   40
#define FRAME_ETHTYPE_IPV4 0x0800
#define FRAME_ETHTYPE_IPV6 0x86dd
#define FRAME_PROTO_TCP	   6
#define FRAME_PROTO_UDP	   17
#define FRAME_IP_FRAG_MASK 0x3fff /* IPv4 MF and the fragment offset */

/* Where a frame keeps its TCP or UDP datagram. */
struct frame_l4 {
	uint32_t l3;	   /* the IP header's offset (FRAME_ETH_HLEN) */
	uint32_t l4;	   /* the TCP/UDP header's offset */
	uint32_t l4len;	   /* TCP/UDP header + payload, as IP says */
	uint32_t field;	   /* the sum field's offset in the L4 header */
	uint32_t addr_sum; /* the addresses' 16-bit words added, unfolded */
	uint8_t proto;	   /* FRAME_PROTO_TCP or FRAME_PROTO_UDP */
	bool ipv6;
};

/**
 * frame_find_l4 - where the frame of @nsg segments keeps its L4 datagram,
 * when it is a whole IPv4 TCP or UDP datagram (not a fragment: its sum
 * would cover every fragment) or an IPv6 one with TCP/UDP right after
 * the fixed header (lwIP sends no other extension header before TCP or
 * UDP), with the sum field inside the frame. Any context.
 * Return: true and *f filled, or false for any other frame.
 */
bool frame_find_l4(const struct netdev_sg *sg, int nsg, struct frame_l4 *f);

/* The pseudo-header sum of f's datagram, folded, not inverted: addresses,
 * protocol and @len (pass f->l4len for a checksum; 0 for TSO, where the
 * device adds each segment's own length). */
uint16_t frame_pseudo_sum(const struct frame_l4 *f, uint32_t len);

/* Seed f's sum field with @sum (the stack's own TX bytes: a device with
 * NETDEV_OFF_TX_CSUM may write the field, netdev.h). */
void frame_put_l4_sum(const struct netdev_sg *sg, int nsg,
		      const struct frame_l4 *f, uint16_t sum);

/* Copy n bytes at frame offset off out of the scatter list; returns the
 * bytes copied (fewer when the frame is shorter). */
uint32_t frame_sg_read(const struct netdev_sg *sg, int nsg, uint32_t off,
		       uint8_t *out, uint32_t n);

/* A big-endian 16-bit field, and its store. */
static inline uint32_t frame_be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline void frame_put_be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A 32-bit one's complement sum folded to 16 bits. */
static inline uint32_t frame_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

#endif /* DRIVERS_FRAME_HDR_H */
