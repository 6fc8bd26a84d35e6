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
#include <stdio.h>

#include "lwip/ip.h"
#include "lwip/pbuf.h"
#include "lwip/prot/ip6.h"
#include "nd6_check.h"

static uint32_t refused[ND6_VERDICTS]; /* by enum nd6_verdict */
static uint32_t events[NET_ND6_EVENTS];

int net_nd6_accept(struct pbuf *p, struct netif *inp)
{
	static uint8_t flat[ND6_MAX_LEN]; /* a chained message, copied */
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
		refused[ND6_TOO_LONG]++;
		return 0;
	}
	if (p->len < p->tot_len) {
		pbuf_copy_partial(p, flat, p->tot_len, 0);
		m.icmp = flat;
	}
	v = nd6_check(&m);
	if (v == ND6_VALID)
		return 1;
	refused[v]++;
	return 0;
}

void net_nd6_note(enum net_nd6_event event)
{
	if ((unsigned)event < NET_ND6_EVENTS)
		events[event]++;
}

static const char *const event_names[NET_ND6_EVENTS] = {
	[NET_ND6_CLAIM_IGNORED] = "claim_ignored",
	[NET_ND6_PREFIX_IGNORED] = "prefix_ignored",
	[NET_ND6_PREFIX_UNTRUSTED] = "prefix_untrusted",
	[NET_ND6_ROUTER_EVICTED] = "router_evicted",
	[NET_ND6_ROUTER_UNREACHABLE] = "router_unreachable",
	[NET_ND6_NEIGHBOR_UNREACHABLE] = "neighbor_unreachable",
};

#define CLAMP(n, size) ((n) < (size) ? (n) : (size))
#define APPEND(...)                                                         \
	(n += (size_t)snprintf(buf + CLAMP(n, size), size - CLAMP(n, size), \
			       __VA_ARGS__))

int net_nd6_json(char *buf, size_t size)
{
	size_t n = 0;

	APPEND("\"nd6_refused\":{");
	for (int v = ND6_VALID + 1; v < ND6_VERDICTS; v++)
		APPEND("%s\"%s\":%u", v == ND6_VALID + 1 ? "" : ",",
		       nd6_verdict_name((enum nd6_verdict)v),
		       (unsigned)refused[v]);
	APPEND("},\"nd6_events\":{");
	for (int e = 0; e < NET_ND6_EVENTS; e++)
		APPEND("%s\"%s\":%u", e ? "," : "", event_names[e],
		       (unsigned)events[e]);
	APPEND("}");
	return (int)n;
}
