/*
 * lwIP's statistics (lwip_stats: per protocol, heap, memory pools) as the
 * "lwip" object of /stats.json; see lwip_stats.h.
 *
 * The tables read lwIP's own structs where the members are lwIP's
 * counters (struct stats_proto for each protocol, struct stats_igmp for
 * MLD), and snapshots where our figures join them (the heap, each pool
 * with its limit). Which protocols are shown is the list below, one
 * schema group each.
 */
#include "lwip_stats.h"

#include <stdbool.h>
#include <stddef.h>

#include "libc/stat_table.h"
#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"
#include "lwip/stats.h"
#include "net_mem.h"
#include "net_percpu.h"
#include "tcp_syn_guard.h"

#define PROTO(f, l) STAT_COUNTER_AT(struct stats_proto, f, "packets", l)
static const struct stat_desc proto_stats[] = {
	PROTO(xmit, "sent"),
	PROTO(recv, "received"),
	PROTO(drop, "dropped"),
	PROTO(chkerr, "dropped: checksum wrong"),
	PROTO(memerr, "dropped: no memory"),
	PROTO(err, "other errors"),
};

/* MLD keeps IGMP's counter set: reports and queries seen and sent. */
#define MLD(f, l) STAT_COUNTER_AT(struct stats_igmp, f, "packets", l)
static const struct stat_desc mld6_stats[] = {
	MLD(xmit, "sent"),
	MLD(recv, "received"),
	MLD(drop, "dropped"),
	MLD(chkerr, "dropped: checksum wrong"),
	MLD(lenerr, "dropped: length wrong"),
	MLD(memerr, "dropped: no memory"),
	MLD(proterr, "dropped: protocol error"),
	MLD(rx_group, "group-specific queries received"),
	MLD(rx_general, "general queries received"),
	MLD(rx_report, "reports received"),
	MLD(tx_join, "joins sent"),
	MLD(tx_leave, "leaves sent"),
	MLD(tx_report, "reports sent"),
};

struct lwip_heap_snap {
	unsigned long used, max;
	unsigned int err;
};
static const struct stat_desc heap_stats[] = {
	STAT_GAUGE_AT(struct lwip_heap_snap, used, "bytes", "lwIP heap in use"),
	STAT_GAUGE_AT(struct lwip_heap_snap, max, "bytes", "most ever in use"),
	STAT_COUNTER_AT(struct lwip_heap_snap, err, "events",
			"allocations failed"),
};

struct lwip_top_snap {
	unsigned long tcp_syn_evicted;
};
static const struct stat_desc top_stats[] = {
	STAT_COUNTER_AT(struct lwip_top_snap, tcp_syn_evicted, "events",
			"half-open connections evicted (SYN guard)"),
};

struct memp_snap {
	unsigned long used, max;
	unsigned int err, limit;
	uint64_t limit_hits;
};
static const struct stat_desc memp_stats[] = {
	STAT_GAUGE_AT(struct memp_snap, used, "objects", "objects in use"),
	STAT_GAUGE_AT(struct memp_snap, max, "objects",
		      "most ever in use (a stack per CPU: each one's peak, "
		      "summed)"),
	STAT_COUNTER_AT(struct memp_snap, err, "events", "allocations failed"),
	STAT_INFO_AT(struct memp_snap, limit, "objects",
		     "the pool's bound (net_mem.c)"),
	STAT_COUNTER_AT(struct memp_snap, limit_hits, "events",
			"allocations refused at the bound"),
};

/* Where each protocol's counters sit in lwip_stats: offsets, because
 * lwip_stats is per CPU (LWIP_PERCPU) and its address is no link-time
 * constant. */
static const struct {
	const char *name;
	size_t off;
} protos[] = {
	{"link", offsetof(struct stats_, link)},
	{"ip", offsetof(struct stats_, ip)},
	{"icmp", offsetof(struct stats_, icmp)},
	{"udp", offsetof(struct stats_, udp)},
	{"tcp", offsetof(struct stats_, tcp)},
	{"ip_frag", offsetof(struct stats_, ip_frag)},
	{"ip6", offsetof(struct stats_, ip6)},
	{"icmp6", offsetof(struct stats_, icmp6)},
	{"ip6_frag", offsetof(struct stats_, ip6_frag)},
	{"nd6", offsetof(struct stats_, nd6)},
};

static const struct stat_group lwip_groups[] = {
	STAT_GROUP("link", proto_stats),     STAT_GROUP("ip", proto_stats),
	STAT_GROUP("icmp", proto_stats),     STAT_GROUP("udp", proto_stats),
	STAT_GROUP("tcp", proto_stats),	     STAT_GROUP("ip_frag", proto_stats),
	STAT_GROUP("ip6", proto_stats),	     STAT_GROUP("icmp6", proto_stats),
	STAT_GROUP("ip6_frag", proto_stats), STAT_GROUP("nd6", proto_stats),
	STAT_GROUP("mld6", mld6_stats),	     STAT_GROUP("heap", heap_stats),
	STAT_GROUP("", top_stats),	     STAT_GROUP("memp.*", memp_stats),
};
const struct stat_schema net_lwip_schema = STAT_SCHEMA(lwip_groups);

static const char *const memp_names[] = {
#define LWIP_MEMPOOL(name, num, size, desc) #name,
#include "lwip/priv/memp_std.h"
};

/* sep, then "name":{the members of t in src}. */
static void object(struct strbuf *sb, const char *sep, const char *name,
		   const struct stat_desc *t, size_t n, const void *src)
{
	strbuf_printf(sb, "%s\"%s\":{", sep, name);
	stat_json_members(sb, t, n, src);
	strbuf_printf(sb, "}");
}

static void memp_json(struct strbuf *sb)
{
	strbuf_printf(sb, ",\"memp\":{");
	for (int t = 0; t < MEMP_MAX; t++) {
		const struct stats_mem *m = memp_pools[t]->stats;
		struct memp_snap o = {
			.used = net_memp_in_use(t),
			.max = net_memp_max(t),
			.err = m->err,
			.limit = net_memp_limit(t),
			.limit_hits = net_memp_limit_hits(t),
		};

		object(sb, t ? "," : "", memp_names[t], memp_stats,
		       STAT_TABLE_LEN(memp_stats), &o);
	}
	strbuf_printf(sb, "}");
}

/* *out = the counters (STAT_COUNTERs) of the object at @off in
 * lwip_stats, @bytes long, summed over the stack instances. */
static void sum_counters(void *out, size_t off, size_t bytes)
{
	STAT_COUNTER *sum = out;

	for (size_t k = 0; k < bytes / sizeof(STAT_COUNTER); k++)
		sum[k] = 0;
	for (int i = 0; i < net_instance_count; i++) {
		const STAT_COUNTER *c =
			(const STAT_COUNTER *)((const char *)NET_INSTANCE_VAR(
						       i, lwip_stats) +
					       off);

		for (size_t k = 0; k < bytes / sizeof(STAT_COUNTER); k++)
			sum[k] += c[k];
	}
}

int net_lwip_stats_json(char *buf, size_t size)
{
	struct lwip_heap_snap heap = {0};
	struct lwip_top_snap top = {net_tcp_syn_evicted()};
	struct stats_proto proto;
	struct stats_igmp mld;
	struct strbuf sb;

	for (int i = 0; i < net_instance_count; i++) {
		const struct stats_ *s = NET_INSTANCE_VAR(i, lwip_stats);

		heap.used += s->mem.used;
		heap.max += s->mem.max;
		heap.err += s->mem.err;
	}
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	/* every stack instance's counters, summed */
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		sum_counters(&proto, protos[i].off, sizeof(proto));
		object(&sb, i ? "," : "", protos[i].name, proto_stats,
		       STAT_TABLE_LEN(proto_stats), &proto);
	}
	sum_counters(&mld, offsetof(struct stats_, mld6), sizeof(mld));
	object(&sb, ",", "mld6", mld6_stats, STAT_TABLE_LEN(mld6_stats), &mld);
	object(&sb, ",", "heap", heap_stats, STAT_TABLE_LEN(heap_stats), &heap);
	strbuf_printf(&sb, ",");
	stat_json_members(&sb, top_stats, STAT_TABLE_LEN(top_stats), &top);
	memp_json(&sb);
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
