/*
 * IPv6 addresses of the interfaces. See net_ip6.h.
 *
 * lwIP does the protocol (neighbour discovery, MLD, duplicate address
 * detection, SLAAC from router advertisements); here is only the policy:
 * which addresses an interface gets, and telling the console when each
 * is usable. An address is added TENTATIVE and lwIP's nd6 timer moves it
 * to PREFERRED after one unanswered neighbour solicitation (about 1 s);
 * lwIP reports each state change through its extended status callback,
 * and the change to a valid state is logged once per address:
 *   net: eth0 ip6 fe80::5054:ff:fe12:3456 ready (link-local)
 *   net: eth0 ip6 fec0::5054:ff:fe12:3456 ready (SLAAC)
 * Static addresses (ip6=) are taken as /64: lwIP 2.1.3 treats a static
 * address as on-link for its first 64 bits (nd6_is_prefix_in_netif,
 * whatever length was asked), so that is the only prefix ip6= accepts.
 */
#include "net_ip6.h"

#include <string.h>

#include "drivers/netdev.h"
#include "ip6_text.h"
#include "net_instance.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "lwip/ip6.h"
#include "lwip/netif.h"
#include "libc/stat_table.h"
#include "nd6_guard.h"

/* Each stack instance's own (net/net_percpu.h): its netif, and its
 * entry on its lwIP's callback list. */
static NET_PERCPU struct netif *static_nif; /* ip6=/gw6= apply to it */
static NET_PERCPU ip6_addr_t gw6;
static NET_PERCPU bool have_gw6;
static NET_PERCPU int static_idx = -1;
static NET_PERCPU netif_ext_callback_t ip6_callback;

/* A unicast address a host may be given: not ::, not ::1, not ff00::/8. */
static bool ip6_is_host_unicast(const uint8_t a[16])
{
	uint8_t zero[16] = {0};

	if (a[0] == 0xff || !memcmp(a, zero, 16))
		return false;
	return memcmp(a, zero, 15) != 0 || a[15] != 1;
}

static bool valid_ip6(const char *v, const char *allowed)
{
	uint8_t a[16];
	const char *end;

	(void)allowed;
	return ip6_text_parse(v, a, &end) && *end == 0 &&
	       ip6_is_host_unicast(a);
}

/* auto, or ADDR/64 (ADDR alone: /64; see the top for why only /64). */
static bool valid_ip6_cidr(const char *v, const char *allowed)
{
	uint8_t a[16];
	int prefix = 64;

	if (!strcmp(v, "auto"))
		return true;
	if (!strchr(v, '/'))
		return valid_ip6(v, allowed);
	return ip6_text_parse_prefix(v, a, &prefix) && prefix == 64 &&
	       ip6_is_host_unicast(a);
}

CMDLINE_KEY(net, ip6, "auto", valid_ip6_cidr,
	    "auto|ADDR/64, ADDR a unicast IPv6 address",
	    "IPv6 global address: from router advertisements (SLAAC) or this "
	    "one; the link-local fe80:: address is always there");
CMDLINE_KEY(net, gw6, "", valid_ip6, "a unicast IPv6 address",
	    "IPv6 gateway (with a static ip6=)");

char *net_ip6_text(const ip6_addr_t *a, char *buf, size_t size)
{
	ip6addr_ntoa_r(a, buf, (int)size);
	for (char *c = buf; *c; c++) /* RFC 5952: lower case */
		if (*c >= 'A' && *c <= 'F')
			*c = (char)(*c - 'A' + 'a');
	return buf;
}

static void to_ip6_addr(const uint8_t b[16], ip6_addr_t *a)
{
	for (int i = 0; i < 4; i++)
		a->addr[i] =
			lwip_htonl((uint32_t)b[4 * i] << 24 |
				   (uint32_t)b[4 * i + 1] << 16 |
				   (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3]);
	ip6_addr_clear_zone(a);
}

static const char *addr_origin(struct netif *nif, int i)
{
	if (ip6_addr_islinklocal(netif_ip6_addr(nif, i)))
		return "link-local";
	if (nif == static_nif && i == static_idx)
		return "static";
	return "SLAAC";
}

static const char *state_name(u8_t st)
{
	if (ip6_addr_istentative(st))
		return "tentative";
	if (ip6_addr_ispreferred(st))
		return "preferred";
	if (ip6_addr_isdeprecated(st))
		return "deprecated";
	if (ip6_addr_isduplicated(st))
		return "duplicated";
	return "invalid";
}

static void on_status(struct netif *nif, netif_nsc_reason_t reason,
		      const netif_ext_callback_args_t *args)
{
	struct netdev *dev = nif->state;
	int i;
	u8_t old, now;
	char text[IP6ADDR_STRLEN_MAX];

	/* a stack per CPU: every instance forms the same addresses from
	 * the same advertisements; instance 0 speaks for them */
	if (!(reason & LWIP_NSC_IPV6_ADDR_STATE_CHANGED) ||
	    net_instance_here() != 0)
		return;
	i = args->ipv6_addr_state_changed.addr_index;
	old = args->ipv6_addr_state_changed.old_state;
	now = netif_ip6_addr_state(nif, i);
	net_ip6_text(netif_ip6_addr(nif, i), text, sizeof(text));
	if (ip6_addr_isvalid(now) && !ip6_addr_isvalid(old))
		kprintf("net: %s ip6 %s ready (%s)\n", dev->name, text,
			addr_origin(nif, i));
	else if (ip6_addr_isduplicated(now))
		kprintf("net: %s ip6 %s is in use on the link (duplicate "
			"address detection), not used\n",
			dev->name, text);
}

/* ip6= on the first interface: the address, and gw6= for off-link. */
static void add_static(struct netif *nif)
{
	uint8_t b[16];
	ip6_addr_t a;
	const char *v = cmdline_get("ip6");
	s8_t idx;
	int prefix;

	if (!strchr(v, '/') ? !ip6_text_parse(v, b, NULL)
			    : !ip6_text_parse_prefix(v, b, &prefix))
		return; /* valid_ip6_cidr refused it already, and said so */
	to_ip6_addr(b, &a);
	if (netif_add_ip6_address(nif, &a, &idx) != ERR_OK) {
		kprintf("net: ip6=%s: no free address slot\n", v);
		return;
	}
	static_nif = nif;
	static_idx = idx;
	if (cmdline_given("gw6") &&
	    ip6_text_parse(cmdline_get("gw6"), b, NULL)) {
		to_ip6_addr(b, &gw6);
		have_gw6 = true;
	}
}

void net_ip6_start(struct netif *nif)
{
	static NET_PERCPU bool first = true; /* in this instance */

	if (first)
		netif_add_ext_callback(&ip6_callback, on_status);
	netif_create_ip6_linklocal_address(nif, 1);
	if (first && cmdline_given("ip6") &&
	    strcmp(cmdline_get("ip6"), "auto") != 0)
		add_static(nif);
	else
		netif_set_ip6_autoconfig_enabled(nif, 1);
	first = false;
}

int net_ip6_addrs_text(struct netif *nif, char *buf, size_t size)
{
	struct strbuf sb;
	char text[IP6ADDR_STRLEN_MAX];

	strbuf_init(&sb, buf, size);
	for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++) {
		u8_t st = netif_ip6_addr_state(nif, i);

		if (ip6_addr_isinvalid(st))
			continue;
		net_ip6_text(netif_ip6_addr(nif, i), text, sizeof(text));
		strbuf_printf(&sb, "%s%s%s", sb.len ? " " : "", text,
			      ip6_addr_istentative(st) ? "?" : "");
	}
	return strbuf_done(&sb);
}

const ip6_addr_t *net_ip6_gateway(struct netif *nif, const ip6_addr_t *dest)
{
	(void)dest;
	return have_gw6 && nif == static_nif ? &gw6 : NULL;
}

/*
 * The "ip6" object of /stats.json: the static gateway and the command
 * line's refusals (ip6_stats), then each interface's list of addresses
 * (ip6_addr_stats, one object per address).
 */
struct ip6_snap {
	const char *gw6;
	int cmdline_errors;
};
static const struct stat_desc ip6_stats[] = {
	STAT_INFO_AT(struct ip6_snap, gw6, "", "gw6=: the static gateway"),
	STAT_INFO_AT(struct ip6_snap, cmdline_errors, "events",
		     "values the command line refused at boot"),
};
struct ip6_addr_snap {
	const char *addr, *state, *origin;
};
static const struct stat_desc ip6_addr_stats[] = {
	STAT_INFO_AT(struct ip6_addr_snap, addr, "", "the address"),
	STAT_INFO_AT(struct ip6_addr_snap, state, "",
		     "tentative, preferred, deprecated..."),
	STAT_INFO_AT(struct ip6_addr_snap, origin, "",
		     "link-local, static (ip6=) or SLAAC"),
};
static const struct stat_group ip6_groups[] = {
	STAT_GROUP("", ip6_stats),
	STAT_GROUP("nd6_refused", net_nd6_refused_stats),
	STAT_GROUP("nd6_events", net_nd6_event_stats),
	STAT_GROUP("netifs.*[]", ip6_addr_stats),
};
const struct stat_schema net_ip6_schema = STAT_SCHEMA(ip6_groups);

/* nif's valid addresses, one object each. */
static void addrs_json(struct strbuf *sb, struct netif *nif)
{
	char text[IP6ADDR_STRLEN_MAX];
	bool first = true;

	for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++) {
		u8_t st = netif_ip6_addr_state(nif, i);
		struct ip6_addr_snap o;

		if (ip6_addr_isinvalid(st))
			continue;
		o = (struct ip6_addr_snap){net_ip6_text(netif_ip6_addr(nif, i),
							text, sizeof(text)),
					   state_name(st), addr_origin(nif, i)};
		strbuf_printf(sb, "%s{", first ? "" : ",");
		stat_json_members(sb, ip6_addr_stats,
				  STAT_TABLE_LEN(ip6_addr_stats), &o);
		strbuf_printf(sb, "}");
		first = false;
	}
}

int net_ip6_json(char *buf, size_t size)
{
	char gw[IP6ADDR_STRLEN_MAX];
	struct ip6_snap o = {
		.gw6 = have_gw6 ? net_ip6_text(&gw6, gw, sizeof(gw)) : "",
		.cmdline_errors = cmdline_errors(),
	};
	struct strbuf sb;
	struct netif *nif;
	bool first = true;

	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, ip6_stats, STAT_TABLE_LEN(ip6_stats), &o);
	strbuf_printf(&sb, ",");
	net_nd6_json(&sb);
	strbuf_printf(&sb, ",\"netifs\":{");
	NETIF_FOREACH(nif)
	{
		struct netdev *dev = nif->state;

		strbuf_printf(&sb, "%s\"%s\":[", first ? "" : ",", dev->name);
		addrs_json(&sb, nif);
		strbuf_printf(&sb, "]");
		first = false;
	}
	strbuf_printf(&sb, "}}");
	return strbuf_done(&sb);
}
