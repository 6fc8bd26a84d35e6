/*
 * lwIP's statistics (lwip_stats: per protocol, heap, memory pools) as the
 * "lwip" object of /stats.json; see lwip_stats.h.
 */
#include "lwip_stats.h"

#include <stdbool.h>
#include <stdio.h>

#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"
#include "lwip/stats.h"
#include "net_mem.h"
#include "tcp_syn_guard.h"

#define CLAMP(n, size) ((n) < (size) ? (n) : (size))
#define APPEND(...)                                                         \
	(n += (size_t)snprintf(buf + CLAMP(n, size), size - CLAMP(n, size), \
			       __VA_ARGS__))

static int proto_json(char *buf, size_t size, const char *name,
		      const struct stats_proto *p, bool comma)
{
	return snprintf(buf, size,
			"%s\"%s\":{\"xmit\":%u,\"recv\":%u,\"drop\":%u,"
			"\"chkerr\":%u,\"memerr\":%u,\"err\":%u}",
			comma ? "," : "", name, p->xmit, p->recv, p->drop,
			p->chkerr, p->memerr, p->err);
}

/* MLD keeps IGMP's counter set: reports and queries seen and sent. */
static int mld6_json(char *buf, size_t size)
{
	const struct stats_igmp *m = &lwip_stats.mld6;

	return snprintf(buf, size,
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
	size_t n = 0;

	APPEND("{");
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"link", &lwip_stats.link, false);
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"ip", &lwip_stats.ip, true);
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"icmp", &lwip_stats.icmp, true);
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"udp", &lwip_stats.udp, true);
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"tcp", &lwip_stats.tcp, true);
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"ip_frag", &lwip_stats.ip_frag, true);
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"ip6", &lwip_stats.ip6, true);
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"icmp6", &lwip_stats.icmp6, true);
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"ip6_frag", &lwip_stats.ip6_frag, true);
	n += (size_t)proto_json(buf + CLAMP(n, size), size - CLAMP(n, size),
				"nd6", &lwip_stats.nd6, true);
	n += (size_t)mld6_json(buf + CLAMP(n, size), size - CLAMP(n, size));
	APPEND(",\"heap\":{\"used\":%lu,\"max\":%lu,\"err\":%u}",
	       (unsigned long)lwip_stats.mem.used,
	       (unsigned long)lwip_stats.mem.max, lwip_stats.mem.err);
	APPEND(",\"tcp_syn_evicted\":%lu", net_tcp_syn_evicted());
	APPEND(",\"memp\":{");
	for (int t = 0; t < MEMP_MAX; t++) {
		const struct stats_mem *m = memp_pools[t]->stats;

		APPEND("%s\"%s\":{\"used\":%lu,\"max\":%lu,\"err\":%u,"
		       "\"limit\":%u,\"limit_hits\":%llu}",
		       t ? "," : "", memp_names[t], (unsigned long)m->used,
		       (unsigned long)m->max, m->err, net_memp_limit(t),
		       (unsigned long long)net_memp_limit_hits(t));
	}
	APPEND("}}");
	return (int)n;
}
