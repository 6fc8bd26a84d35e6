/*
 * lwIP's statistics (lwip_stats: per protocol, heap, memory pools) as the
 * "lwip" object of /stats.json; see lwip_stats.h.
 */
#include "lwip_stats.h"

#include <stdbool.h>

#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"
#include "lwip/stats.h"
#include "net_mem.h"
#include "libc/strbuf.h"
#include "tcp_syn_guard.h"

static void proto_json(struct strbuf *sb, const char *name,
		       const struct stats_proto *p, bool comma)
{
	strbuf_printf(sb,
		      "%s\"%s\":{\"xmit\":%u,\"recv\":%u,\"drop\":%u,"
		      "\"chkerr\":%u,\"memerr\":%u,\"err\":%u}",
		      comma ? "," : "", name, p->xmit, p->recv, p->drop,
		      p->chkerr, p->memerr, p->err);
}

/* MLD keeps IGMP's counter set: reports and queries seen and sent. */
static void mld6_json(struct strbuf *sb)
{
	const struct stats_igmp *m = &lwip_stats.mld6;

	strbuf_printf(sb,
		      ",\"mld6\":{\"xmit\":%u,\"recv\":%u,\"drop\":%u,"
		      "\"chkerr\":%u,\"lenerr\":%u,\"memerr\":%u,"
		      "\"proterr\":%u,\"rx_group\":%u,\"rx_general\":%u,"
		      "\"rx_report\":%u,\"tx_join\":%u,\"tx_leave\":%u,"
		      "\"tx_report\":%u}",
		      m->xmit, m->recv, m->drop, m->chkerr, m->lenerr,
		      m->memerr, m->proterr, m->rx_group, m->rx_general,
		      m->rx_report, m->tx_join, m->tx_leave, m->tx_report);
}

static const char *const memp_names[] = {
#define LWIP_MEMPOOL(name, num, size, desc) #name,
#include "lwip/priv/memp_std.h"
};

int net_lwip_stats_json(char *buf, size_t size)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	proto_json(&sb, "link", &lwip_stats.link, false);
	proto_json(&sb, "ip", &lwip_stats.ip, true);
	proto_json(&sb, "icmp", &lwip_stats.icmp, true);
	proto_json(&sb, "udp", &lwip_stats.udp, true);
	proto_json(&sb, "tcp", &lwip_stats.tcp, true);
	proto_json(&sb, "ip_frag", &lwip_stats.ip_frag, true);
	proto_json(&sb, "ip6", &lwip_stats.ip6, true);
	proto_json(&sb, "icmp6", &lwip_stats.icmp6, true);
	proto_json(&sb, "ip6_frag", &lwip_stats.ip6_frag, true);
	proto_json(&sb, "nd6", &lwip_stats.nd6, true);
	mld6_json(&sb);
	strbuf_printf(&sb, ",\"heap\":{\"used\":%lu,\"max\":%lu,\"err\":%u}",
		      (unsigned long)lwip_stats.mem.used,
		      (unsigned long)lwip_stats.mem.max, lwip_stats.mem.err);
	strbuf_printf(&sb, ",\"tcp_syn_evicted\":%lu", net_tcp_syn_evicted());
	strbuf_printf(&sb, ",\"memp\":{");
	for (int t = 0; t < MEMP_MAX; t++) {
		const struct stats_mem *m = memp_pools[t]->stats;

		strbuf_printf(&sb,
			      "%s\"%s\":{\"used\":%lu,\"max\":%lu,\"err\":%u,"
			      "\"limit\":%u,\"limit_hits\":%llu}",
			      t ? "," : "", memp_names[t],
			      (unsigned long)m->used, (unsigned long)m->max,
			      m->err, net_memp_limit(t),
			      (unsigned long long)net_memp_limit_hits(t));
	}
	strbuf_printf(&sb, "}}");
	return strbuf_done(&sb);
}
