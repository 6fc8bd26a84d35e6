/*
 * /stats.json: one JSON document with every counter the system keeps:
 * the guest's uptime (so clients compute rates in guest time), the
 * allocators' own *_json functions (buddyinfo, zoneinfo with the PCP
 * lists, numastat, slabinfo, the allocators' misuse reports by kind,
 * qmempool, page_frag, failure injection), the NICs' counters (with one
 * entry per queue), our lwIP memory glue, the poll rounds of every queue,
 * the lwIP core lock, lwIP's own statistics, and the serial shell's.
 */
#include <stdio.h>
#include <string.h>

#include "drivers/netdev.h"
#include "drivers/pci.h"
#include "kernel/console.h"
#include "kernel/cpu_stats.h"
#include "kernel/shell.h"
#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"
#include "lwip/stats.h"
#include "lwip/sys.h"
#include "mm/mm.h"
#include "apps.h"
#include "net.h"
#include "core_lock.h"
#include "net_ip6.h"
#include "net_mem.h"
#include "net_poll.h"
#include "net_numa.h"
#include "net_oom.h"
#include "tcp_syn_guard.h"

typedef int (*json_fn)(char *buf, size_t size);

static int lwip_stats_json(char *buf, size_t size);
static int uptime_json(char *buf, size_t size);

static const struct {
	const char *name;
	json_fn fn;
} sections[] = {
	{"uptime_ms", uptime_json}, /* first: clients take rates from it */
	{"buddyinfo", buddyinfo_json},
	{"zoneinfo", zoneinfo_json},
	{"numastat", numastat_json},
	{"slabinfo", slabinfo_json},
	{"mm_debug", mm_debug_json}, /* misuse reports by kind */
	{"qmempool", qmempool_stats_json},
	{"page_frag", page_frag_stats_json},
	{"fault_inject", mm_fault_json},
	{"cpus", cpustat_json},
	{"nic", netdev_stats_json},
	{"net_mem", net_mem_stats_json},
	{"net_numa", net_numa_json},
	{"net_oom", net_oom_stats_json},
	{"poll", net_poll_stats_json},
	{"core_lock", net_core_lock_stats_json},
	{"lwip", lwip_stats_json},
	{"ip6", net_ip6_json}, /* addresses; lwIP's IPv6 counters are in lwip */
	{"http", app_http_stats_json},
	{"pci", pci_json},
	{"shell", shell_stats_json},
};

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

/* Milliseconds since boot (lwIP's clock, the one its timers use). */
static int uptime_json(char *buf, size_t size)
{
	return snprintf(buf, size, "%lu", (unsigned long)sys_now());
}

static const char *const memp_names[] = {
#define LWIP_MEMPOOL(name, num, size, desc) #name,
#include "lwip/priv/memp_std.h"
};

static int lwip_stats_json(char *buf, size_t size)
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

/*
 * One section. A section must return the length it would write (snprintf
 * semantics); one that returns less than it wrote would make the document
 * shorter than its bytes and cut it off, so trust the bytes, and say once
 * which section misreported.
 */
static size_t section(size_t i, char *buf, size_t size)
{
	static bool reported[sizeof(sections) / sizeof(sections[0])];
	int r = sections[i].fn(buf, size);
	size_t wrote = size ? strnlen(buf, size) : 0;

	if (r < 0 || (size_t)r < wrote) {
		if (!reported[i]) {
			reported[i] = true;
			kprintf("net: stats section %s returned %d but wrote "
				"%lu bytes\n",
				sections[i].name, r, (unsigned long)wrote);
		}
		return wrote;
	}
	return (size_t)r;
}

int net_stats_json(char *buf, size_t size)
{
	size_t n = 0;

	APPEND("{");
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		APPEND("%s\"%s\":", i ? "," : "", sections[i].name);
		n += section(i, buf + CLAMP(n, size), size - CLAMP(n, size));
	}
	APPEND("}\n");
	return (int)n;
}
