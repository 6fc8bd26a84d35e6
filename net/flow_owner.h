/*
 * Which stack instance a received frame belongs to (net_stack=percpu).
 *
 * A connection belongs to one instance: a passive open to the CPU whose
 * queue got its SYN, an active open to the CPU that opened it (its port
 * chosen so the redirection table steers the answers home,
 * net/rss_steer.c). With the device hashing flows to queues (RSS), every
 * later TCP or UDP frame of the flow reaches that queue, and its owner
 * is the instance that received it, but for a SYN-ACK (the answer to an
 * active open), whose owner is checked as below. Without device RSS the
 * owner is computed here the way the device would (Toeplitz over the
 * 4-tuple, net/rss_check.c, and the software table). The frames no RSS hash
 * places, and what follows from them:
 *
 *  - ARP replies, IPv6 router and neighbour advertisements and
 *    redirects: every instance needs them (each has its own ARP table
 *    and neighbour cache): FLOW_OWNER_ALL, a copy to each.
 *  - Answers to what only instance 0 asks (the configuring CPU): DHCP
 *    and DHCPv6 replies, ICMP and ICMPv6 echo replies (the shell's
 *    ping), IP fragments (reassembled in one place), and the TCP port
 *    pinned to instance 0 (the GDB stub's): instance 0.
 *  - Everything else (ARP requests, pings to us, neighbour
 *    solicitations, other protocols): answered where it arrived.
 */
#ifndef NET_FLOW_OWNER_H
#define NET_FLOW_OWNER_H

#include <stdbool.h>
#include <stdint.h>

#define FLOW_OWNER_ALL (-1)

struct flow_owner_rules {
	int self;	    /* the instance that received the frame */
	bool device_steers; /* the device hashes TCP/UDP flows to queues */
	/* software steering (device_steers false): key and table, the
	 * table naming instances, table_len a power of two */
	const uint8_t *key;
	const uint8_t *table;
	int table_len;
	uint16_t pinned_tcp_port; /* to instance 0; 0: none */
};

/**
 * flow_owner - the instance that owns the Ethernet frame [@frame,
 * @frame + @len), by the rules above; FLOW_OWNER_ALL for a copy to each.
 * Reads nothing outside the frame; a frame too short to classify stays
 * where it arrived. Context: any.
 */
int flow_owner(const struct flow_owner_rules *r, const void *frame,
	       uint32_t len);

#endif /* NET_FLOW_OWNER_H */
