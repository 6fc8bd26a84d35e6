/*
 * The port's side of neighbour discovery's defences: the two hooks our
 * patches give lwIP's nd6.c (net/lwip-patches/0005 to 0009, described in
 * docs/ipv6.md). LWIP_HOOK_ND6_INPUT: every ND message must pass RFC
 * 4861's validity checks (net/nd6_check.c) before lwIP uses any of it;
 * those refused are counted by reason. LWIP_HOOK_ND6_NOTE: lwIP tells us
 * of what it ignored or gave up, and we count it. /stats.json shows both
 * in its ip6 section. Included by net/lwipopts.h, so no lwIP header here
 * (libc/stat_table.h, which describes the counters, includes none).
 */
#ifndef NET_ND6_GUARD_H
#define NET_ND6_GUARD_H

#include <stddef.h>

#include "libc/stat_table.h"

struct pbuf;
struct netif;

/* What nd6.c notes (LWIP_HOOK_ND6_NOTE(CLAIM_IGNORED) is
 * net_nd6_note(NET_ND6_CLAIM_IGNORED)). */
enum net_nd6_event {
	NET_ND6_CLAIM_IGNORED,	  /* an NA claiming an address we use */
	NET_ND6_PREFIX_IGNORED,	  /* a prefix RFC 4862 5.5.3 ignores */
	NET_ND6_PREFIX_UNTRUSTED, /* a prefix from a router not yet answering */
	NET_ND6_ROUTER_EVICTED,	  /* such a router, pushed out by a new one */
	NET_ND6_ROUTER_UNREACHABLE,   /* a router that failed NUD, removed */
	NET_ND6_NEIGHBOR_UNREACHABLE, /* any neighbour that failed NUD */
	NET_ND6_EVENTS
};

/**
 * net_nd6_accept - LWIP_HOOK_ND6_INPUT: may nd6_input() use @p?
 * @p:   an ICMPv6 message lwIP hands to nd6_input() (payload at its
 *       ICMPv6 header; ip6_current_header() is its IPv6 header)
 * @inp: the netif it came on
 * Return: nonzero to go on; 0 to drop it (counted by reason here, and by
 * lwIP in nd6.proterr and nd6.drop). Under the core lock.
 */
int net_nd6_accept(struct pbuf *p, struct netif *inp);

/* LWIP_HOOK_ND6_NOTE: count @event. Under the core lock. */
void net_nd6_note(enum net_nd6_event event);

/**
 * net_nd6_json - the counters as two JSON members appended to @sb,
 * "nd6_refused":{reason:n,...},"nd6_events":{event:n,...}; the two tables
 * below describe them (net_ip6.c adds them to the ip6 section's schema).
 * Any context (reads counters only).
 */
void net_nd6_json(struct strbuf *sb);
#define NET_ND6_REFUSED_STATS 8 /* every verdict but valid */
extern const struct stat_desc net_nd6_refused_stats[NET_ND6_REFUSED_STATS];
extern const struct stat_desc net_nd6_event_stats[NET_ND6_EVENTS];

#endif /* NET_ND6_GUARD_H */
