/*
 * Receive coalescing of TCP segments before lwIP (what Linux calls GRO):
 * the frame checks and the header rewrite. net/rx_gro.c says why and
 * what joins; net/netif_glue.c joins the frames of one poll round.
 */
#ifndef NET_RX_GRO_H
#define NET_RX_GRO_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Most segments in one coalesced packet. lwIP takes a TCP segment of up
 * to 65,535 - 40 bytes; 16 full segments are 23,360 bytes, so the length
 * never comes near the bound (the glue still keeps the IP packet, IPv4
 * or IPv6 header included, within 65,535 bytes), and with a 32-segment
 * window (TCP_WND, net/lwipopts.h) one ACK per coalesced packet still
 * arrives at the sender twice per window.
 */
#define NET_GRO_MAX_SEGS 16

/* The TCP flags a joining segment may carry: ACK, and PSH. */
#define NET_GRO_TCP_ACK 0x10u
#define NET_GRO_TCP_PSH 0x08u

/* One frame as the coalescing sees it (lengths in bytes). */
struct net_gro_seg {
	uint32_t seq;	  /* TCP sequence number, host order */
	uint16_t ip_len;  /* IP packet: IPv4 total length, IPv6 40 + payload
			     length */
	uint16_t hdr_len; /* Ethernet, IP and TCP headers */
	uint16_t payload; /* TCP payload */
	uint8_t tcp_off;  /* where TCP starts: 34 (IPv4) or 54 (IPv6) */
	uint8_t flags;	  /* TCP flags: ACK, or ACK and PSH */
};

/**
 * net_gro_parse - may this frame start or join a coalesced packet?
 * @frame: the frame from its Ethernet header, in one buffer.
 * @len: its length (trailing padding allowed).
 * @s: filled in when it may.
 *
 * True for an untagged IPv4 packet with a 20-byte header, not a fragment,
 * or an untagged IPv6 packet whose next header is TCP (no extension
 * header), carrying a TCP segment with a payload and only ACK or ACK|PSH
 * set, all within @len. Says nothing of the sums: the caller joins only
 * frames whose sums are known right. Reads nothing outside [@frame,
 * @frame + @len). Context: any.
 */
bool net_gro_parse(const void *frame, uint32_t len, struct net_gro_seg *s);

/**
 * net_gro_ip_sum_ok - is the IP header of a frame net_gro_parse()
 * accepted right as far as sums go? The IPv4 header sum checked; an IPv6
 * header has none (true). For a frame whose TCP sum the device vouched
 * for (the device says nothing of the IPv4 header's). Context: any.
 */
bool net_gro_ip_sum_ok(const void *frame);

/**
 * net_gro_follows - does frame @f (parsed into @s) continue the packet
 * that frame @h (parsed into @head) starts?
 * @next_seq: the sequence number right after the packet's payload so far.
 *
 * True when @f has the same Ethernet header, the same IP header but for
 * lengths, IPv4 id and sum (IPv4: TOS, TTL, DF and addresses; IPv6:
 * traffic class, flow label, hop limit and addresses), the same ports,
 * acknowledgement, window and TCP header (options included, byte for
 * byte), and its sequence number is @next_seq. Context: any; reads only
 * the two parsed frames' headers.
 */
bool net_gro_follows(const void *h, const struct net_gro_seg *head,
		     uint32_t next_seq, const void *f,
		     const struct net_gro_seg *s);

/**
 * net_gro_rewrite_head - make the first frame's headers those of the
 * whole packet: an IP packet of @ip_len bytes (IPv4: total length, and
 * its header sum redone; IPv6: payload length @ip_len - 40), and @flags
 * (PSH from a later segment) added to the TCP flags. The TCP sum is left
 * as it was: lwIP takes the packet with its checks off.
 * @frame: at least the first frame's hdr_len bytes, writable, accepted
 * by net_gro_parse().
 */
void net_gro_rewrite_head(void *frame, uint16_t ip_len, uint8_t flags);

#endif /* NET_RX_GRO_H */
