/*
 * tcp_merge: which TCP segments the stack sends may travel to a
 * segmenting NIC as one frame (TSO, or virtio's GSO), and what the batch
 * holds. The stack hands xmit two kinds of TCP segment:
 *
 *  - MSS segments, at most one MTU long (all lwIP builds on a NIC
 *    without NETDEV_OFF_TSO4/6). The driver holds one and merges the
 *    next ones of the same flow into one big frame the device cuts back
 *    into MSS segments: fewer frames cross the device boundary.
 *  - Large segments, whose IP datagram is longer than the MTU (lwIP
 *    builds them on a NIC with NETDEV_OFF_TSO4/6). Such a frame cannot
 *    go on the wire as it is: it goes to the device alone, as a batch of
 *    its own, complete at once, to be cut into segments as long as the
 *    MTU lets them be (gso_size = MTU - IP and TCP headers, the MSS lwIP
 *    cuts with), so the wire carries what lwIP would have sent.
 *
 * The rules are the device's business only in what the frame's headers
 * must say (virtio_net_gso.c, igb_tso.c); this file says what may merge
 * and keeps the pieces.
 *
 * What may merge (anything doubtful goes as it came): IPv4 without
 * options and not a fragment, or (when the device takes it) IPv6 with TCP
 * right after the fixed header; TCP with flags ACK or ACK|PSH only; the
 * same Ethernet header, IP header fields but lengths, id and sum (TOS or
 * traffic class and flow label, DF, TTL or hop limit, addresses), ports,
 * ack number, window, urgent pointer (0) and option bytes; the sequence
 * contiguous; every segment but the last exactly as long as the first
 * (gso_size), the last at most that long (a shorter one ends the batch).
 * PSH of any of them goes on the merged header: the device puts it on the
 * last segment. A large segment obeys the same header rules, may also
 * carry FIN (lwIP puts it on a stream's last segment; the device, as for
 * PSH, sets it on the last segment it cuts, or the driver sends it apart
 * where the device may not: igb_tso.c), and never merges with anything:
 * it neither joins a batch nor lets one follow it.
 */
#ifndef DRIVERS_TCP_MERGE_H
#define DRIVERS_TCP_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "netdev.h"

/*
 * At most TCP_MERGE_SEGS stack segments go into one batch: lwIP's send
 * buffer (TCP_SND_BUF) is 32 segments, so a full window still goes out as
 * two batches the device can take while the stack fills the second. 16
 * segments of 1460 bytes are 23 KiB, well inside the 64 KiB an IP
 * datagram may carry. A batch's payload is at most TCP_MERGE_PAY_MAX
 * pieces (lwIP's segments have one or two payload pbufs).
 */
#define TCP_MERGE_SEGS	  16
#define TCP_MERGE_PAY_MAX 48
/* Ethernet 14 + IPv6 40 + TCP <= 60, rounded up. */
#define TCP_MERGE_HDR_MAX 128

/* One TCP segment xmit was given, as far as merging cares. */
struct tcp_merge_seg {
	uint8_t hdr[TCP_MERGE_HDR_MAX]; /* Ethernet, IP and TCP, copied */
	uint32_t l4, hlen;		/* TCP header offset, header bytes */
	uint32_t payload, seq, frame;	/* payload and frame bytes */
	uint32_t gso_size; /* payload per wire segment (see tcp_merge_parse) */
	uint8_t flags;	   /* TCP flags */
	bool ipv6;
	bool large; /* the IP datagram is longer than the MTU */
	struct netdev_sg pay[TCP_MERGE_PAY_MAX]; /* its payload, in place */
	int npay;
};

/* Segments of one TCP flow held back, to go out as one merged frame (or
 * as the plain frame it was, when alone). */
struct tcp_merge_batch {
	int nseg; /* 0: nothing held */
	void *cookie[TCP_MERGE_SEGS];
	struct netdev_sg first[NETDEV_MAX_SG]; /* the first frame as given */
	int first_nsg;
	struct netdev_sg pay[TCP_MERGE_PAY_MAX]; /* every segment's payload */
	int npay;
	uint8_t hdr[TCP_MERGE_HDR_MAX]; /* the first frame's headers */
	uint32_t l4, hlen;		/* as in tcp_merge_seg */
	uint32_t gso_size;		/* the first segment's gso_size */
	uint32_t payload;		/* payload bytes held */
	uint32_t next_seq;		/* where the next segment must start */
	uint64_t bytes;			/* frame bytes as the stack gave them */
	bool psh, ipv6;
	bool large; /* holds one large segment: nothing may join */
};

/**
 * tcp_merge_parse - is the frame a TCP segment that may merge, or a large
 * segment the device may cut? Fills @s when it is. @ipv6: the device
 * segments IPv6 too (else only IPv4 may). @mtu: the device's MTU; a
 * segment whose IP datagram is longer is large, its gso_size the MTU
 * less its IP and TCP headers (and it is refused when longer than an IP
 * datagram may be). Any other segment's gso_size is its own payload.
 * Any context.
 */
bool tcp_merge_parse(const struct netdev_sg *sg, int nsg, bool ipv6,
		     uint32_t mtu, struct tcp_merge_seg *s);

/* Does s continue the held batch b (same flow, next in sequence, and the
 * merged frame within its bounds)? False when nothing is held. */
bool tcp_merge_continues(const struct tcp_merge_batch *b,
			 const struct tcp_merge_seg *s);

/* Hold s (sg, nsg as the stack gave them) as the first of a new batch.
 * Return: true when the batch is complete already (s is large: it goes
 * to the device at once, alone). */
bool tcp_merge_start(struct tcp_merge_batch *b, const struct tcp_merge_seg *s,
		     const struct netdev_sg *sg, int nsg, void *cookie);

/* Add s to the held batch. Return: true when the batch is complete
 * (TCP_MERGE_SEGS, or s was shorter than gso_size: nothing may follow). */
bool tcp_merge_add(struct tcp_merge_batch *b, const struct tcp_merge_seg *s,
		   void *cookie);

/* Must the held batch go to the device as one frame to cut: several
 * segments merged, or one large? (Else it goes as the frame it came as,
 * or is empty.) */
static inline bool tcp_merge_needs_cut(const struct tcp_merge_batch *b)
{
	return b->nseg > 1 || (b->nseg == 1 && b->large);
}

/* The segments the device cuts the batch into: for merged MSS segments
 * as many as the stack gave, for a large one more. */
static inline uint32_t tcp_merge_wire_segs(const struct tcp_merge_batch *b)
{
	return (b->payload + b->gso_size - 1) / b->gso_size;
}

#endif /* DRIVERS_TCP_MERGE_H */
