/*
 * tcp_merge: which consecutive TCP segments the stack sends may travel to
 * a segmenting NIC as one (TSO, or virtio's GSO), and what the batch
 * holds. lwIP builds every TCP segment at most one MSS long and hands
 * them to xmit one at a time, so the driver holds a segment and merges
 * the next ones of the same flow into one big frame the device cuts back
 * into MSS segments. The rules are the device's business only in what
 * the merged headers must say (virtio_net_gso.c, igb_tso.c); this file
 * says what may merge and keeps the pieces.
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
 * last segment.
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
	uint8_t flags;			/* TCP flags */
	bool ipv6;
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
	uint32_t gso_size;		/* the first frame's payload */
	uint32_t payload;		/* payload bytes held */
	uint32_t next_seq;		/* where the next segment must start */
	uint64_t bytes;			/* frame bytes as the stack gave them */
	bool psh, ipv6;
};

/**
 * tcp_merge_parse - is the frame a TCP segment that may merge? Fills @s
 * when it is. @ipv6: the device segments IPv6 too (else only IPv4 may).
 * Any context.
 */
bool tcp_merge_parse(const struct netdev_sg *sg, int nsg, bool ipv6,
		     struct tcp_merge_seg *s);

/* Does s continue the held batch b (same flow, next in sequence, and the
 * merged frame within its bounds)? False when nothing is held. */
bool tcp_merge_continues(const struct tcp_merge_batch *b,
			 const struct tcp_merge_seg *s);

/* Hold s (sg, nsg as the stack gave them) as the first of a new batch. */
void tcp_merge_start(struct tcp_merge_batch *b, const struct tcp_merge_seg *s,
		     const struct netdev_sg *sg, int nsg, void *cookie);

/* Add s to the held batch. Return: true when the batch is complete
 * (TCP_MERGE_SEGS, or s was shorter than gso_size: nothing may follow). */
bool tcp_merge_add(struct tcp_merge_batch *b, const struct tcp_merge_seg *s,
		   void *cookie);

#endif /* DRIVERS_TCP_MERGE_H */
