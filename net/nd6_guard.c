/*
 * The hooks lwIP's nd6.c calls for neighbour discovery's defences, and
 * their counters. See nd6_guard.h.
 *
 * Why a hook and not a filter in front of lwIP: the checks need the
 * ICMPv6 message, which lwIP finds only after walking the IPv6 extension
 * headers and verifying the checksum; a filter in the receive glue would
 * do both again for every frame. The hook runs where lwIP has done them,
 * once per ND message (a few a second normally), and the checks
 * themselves are plain C over bytes, tested on the host.
 */
#include "nd6_guard.h"

#include <stdint.h>

#include "libc/stat_table.h"
#include "lwip/ip.h"
#include "lwip/pbuf.h"
#include "lwip/prot/ip6.h"
#include "nd6_check.h"
#include "net_percpu.h"

/* Each stack instance's own (net/net_percpu.h). */
static NET_PERCPU struct nd6_counts {
	uint32_t refused[ND6_VERDICTS]; /* by enum nd6_verdict */
	uint32_t events[NET_ND6_EVENTS];
} nd6;

int net_nd6_accept(struct pbuf *p, struct netif *inp)
{
	static NET_PERCPU uint8_t flat[ND6_MAX_LEN]; /* a chained message */
	const struct ip6_hdr *ip6 = ip6_current_header();
	struct nd6_msg m = {
		.hop_limit = IP6H_HOPLIM(ip6),
		.src = (const uint8_t *)&ip6->src,
		.dst = (const uint8_t *)&ip6->dest,
		.icmp = p->payload,
		.len = p->tot_len,
	};
	enum nd6_verdict v;

	(void)inp;
	if (p->tot_len > sizeof(flat)) { /* reassembled: see ND6_MAX_LEN */
		nd6.refused[ND6_TOO_LONG]++;
		return 0;
	}
	if (p->len < p->tot_len) {
		pbuf_copy_partial(p, flat, p->tot_len, 0);
		m.icmp = flat;
	}
	v = nd6_check(&m);
	if (v == ND6_VALID)
		return 1;
	nd6.refused[v]++;
	return 0;
}

void net_nd6_note(enum net_nd6_event event)
{
	if ((unsigned)event < NET_ND6_EVENTS)
		nd6.events[event]++;
}

/* The counters, described (libc/stat_table.h): "nd6_refused" by the rule
 * a message broke (nd6_verdict_name's names), "nd6_events" by what lwIP
 * noted. */
#define REFUSED(v, n, l)                                       \
	[v - 1] = STAT_NAMED(n, struct nd6_counts, refused[v], \
			     STAT_KIND_COUNTER, "messages", l)
_Static_assert(NET_ND6_REFUSED_STATS == ND6_VERDICTS - 1,
	       "nd6_guard.h: NET_ND6_REFUSED_STATS");
const struct stat_desc net_nd6_refused_stats[NET_ND6_REFUSED_STATS] = {
	REFUSED(ND6_BAD_HOP_LIMIT, "hop_limit", "IP hop limit not 255"),
	REFUSED(ND6_BAD_CODE, "code", "ICMP code not 0"),
	REFUSED(ND6_TOO_SHORT, "too_short", "shorter than the fixed part"),
	REFUSED(ND6_TOO_LONG, "too_long", "reassembled from fragments"),
	REFUSED(ND6_BAD_OPTION, "option", "an option of length 0 or too long"),
	REFUSED(ND6_BAD_SOURCE, "source", "a source it may not come from"),
	REFUSED(ND6_BAD_TARGET, "target", "a multicast target"),
	REFUSED(ND6_BAD_DEST, "destination", "a destination it may not go to"),
};
#define EVENT(e, n, l)                                                       \
	[e] = STAT_NAMED(n, struct nd6_counts, events[e], STAT_KIND_COUNTER, \
			 "events", l)
const struct stat_desc net_nd6_event_stats[NET_ND6_EVENTS] = {
	EVENT(NET_ND6_CLAIM_IGNORED, "claim_ignored",
	      "NAs claiming an address in use, ignored"),
	EVENT(NET_ND6_PREFIX_IGNORED, "prefix_ignored",
	      "prefixes RFC 4862 5.5.3 ignores"),
	EVENT(NET_ND6_PREFIX_UNTRUSTED, "prefix_untrusted",
	      "prefixes from a router not yet answering"),
	EVENT(NET_ND6_ROUTER_EVICTED, "router_evicted",
	      "silent routers pushed out by a new one"),
	EVENT(NET_ND6_ROUTER_UNREACHABLE, "router_unreachable",
	      "routers that failed NUD, removed"),
	EVENT(NET_ND6_NEIGHBOR_UNREACHABLE, "neighbor_unreachable",
	      "neighbours that failed NUD"),
};

void net_nd6_json(struct strbuf *sb)
{
	struct nd6_counts sum = {0};

	for (int i = 0; i < net_instance_count; i++) {
		const struct nd6_counts *c = NET_INSTANCE_VAR(i, nd6);

		for (int v = 0; v < ND6_VERDICTS; v++)
			sum.refused[v] += c->refused[v];
		for (int e = 0; e < NET_ND6_EVENTS; e++)
			sum.events[e] += c->events[e];
	}
	strbuf_printf(sb, "\"nd6_refused\":{");
	stat_json_members(sb, net_nd6_refused_stats,
			  STAT_TABLE_LEN(net_nd6_refused_stats), &sum);
	strbuf_printf(sb, "},\"nd6_events\":{");
	stat_json_members(sb, net_nd6_event_stats,
			  STAT_TABLE_LEN(net_nd6_event_stats), &sum);
	strbuf_printf(sb, "}");
}
