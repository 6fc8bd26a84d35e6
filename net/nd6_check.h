/*
 * RFC 4861's validity checks for neighbour discovery messages (sections
 * 6.1.1, 6.1.2, 7.1.1, 7.1.2 and 8.1), on the bytes of one message: what
 * a node must verify before it uses anything in a Router Solicitation,
 * Router Advertisement, Neighbor Solicitation, Neighbor Advertisement or
 * Redirect. The ICMPv6 checksum is not among them: lwIP has checked it
 * before. Plain C with no machine in it (host-tested); net/nd6_guard.c
 * runs it on every ND message lwIP receives.
 */
#ifndef NET_ND6_CHECK_H
#define NET_ND6_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* ICMPv6 types of the five ND messages (RFC 4861 section 4). */
enum {
	ND6_TYPE_RS = 133,
	ND6_TYPE_RA = 134,
	ND6_TYPE_NS = 135,
	ND6_TYPE_NA = 136,
	ND6_TYPE_REDIRECT = 137,
};

/* The longest ND message taken: one Ethernet frame's IPv6 payload. A
 * longer one was reassembled from fragments, and RFC 6980 has ND
 * messages never fragmented. */
#define ND6_MAX_LEN (1500 - 40)

/* Why a message is invalid, or ND6_VALID. */
enum nd6_verdict {
	ND6_VALID,
	ND6_BAD_HOP_LIMIT, /* IP hop limit not 255: sent from off the link */
	ND6_BAD_CODE,	   /* ICMP code not 0 */
	ND6_TOO_SHORT,	   /* shorter than the message's fixed part */
	ND6_TOO_LONG,	   /* longer than ND6_MAX_LEN: it was fragmented */
	ND6_BAD_OPTION,	   /* an option of length 0, or past the end */
	ND6_BAD_SOURCE,	   /* a source the message may not come from */
	ND6_BAD_TARGET,	   /* a multicast target (or destination) */
	ND6_BAD_DEST,	   /* sent to an address it may not go to */
	ND6_VERDICTS
};

/* One received message: its IPv6 header's fields and its ICMPv6 bytes. */
struct nd6_msg {
	uint8_t hop_limit;
	const uint8_t *src;  /* IPv6 source address, 16 bytes */
	const uint8_t *dst;  /* IPv6 destination address, 16 bytes */
	const uint8_t *icmp; /* the ICMPv6 message, from its type byte */
	size_t len;	     /* its length in bytes (at least 1) */
};

/**
 * nd6_check - is @m a valid ND message?
 * Any ICMPv6 type that is not one of the five ND messages is ND6_VALID
 * (not ours to judge). Return: ND6_VALID, or the first rule it breaks.
 */
enum nd6_verdict nd6_check(const struct nd6_msg *m);

/* A short name for a verdict ("hop_limit", "option", ...), for counters. */
const char *nd6_verdict_name(enum nd6_verdict v);

#endif /* NET_ND6_CHECK_H */
