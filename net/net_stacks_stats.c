/*
 * The "stacks" object of /stats.json (see net_stacks_stats.h): read from
 * the hand-off counters and each instance's lwIP statistics, without
 * entering the instances (each counter is written by one CPU; a reader
 * may see it a few increments old).
 */
#include "net_stacks_stats.h"

#include "libc/stat_table.h"
#include "libc/strbuf.h"
#include "lwip/stats.h"
#include "net_handoff.h"
#include "net_instance.h"

struct stacks_top {
	const char *mode;
	int count;
	struct net_handoff_totals t;
};
struct stacks_one {
	int cpu, node;
	struct net_handoff_totals h;
	uint64_t tcp_recv, tcp_xmit, udp_recv, udp_xmit;
};
#define HANDOFF_STATS(T, F)                                                   \
	STAT_NAMED("sent", T, F.sent, STAT_KIND_COUNTER, "packets",           \
		   "frames handed to the instance that owns them"),           \
		STAT_NAMED("taken", T, F.taken, STAT_KIND_COUNTER, "packets", \
			   "frames other instances handed to this one"),      \
		STAT_NAMED("copies", T, F.copies, STAT_KIND_COUNTER,          \
			   "packets",                                         \
			   "copies sent to every instance (ARP replies, "     \
			   "router and neighbour advertisements)"),           \
		STAT_NAMED("ring_full", T, F.ring_full, STAT_KIND_COUNTER,    \
			   "events",                                          \
			   "hand-offs refused by a full ring (the frame "     \
			   "waits for the next round)"),                      \
		STAT_NAMED("copy_fail", T, F.copy_fail, STAT_KIND_COUNTER,    \
			   "events", "copies not made: no memory (counted)")
static const struct stat_desc stacks_top_stats[] = {
	STAT_INFO_AT(struct stacks_top, mode, "",
		     "net_stack=: shared (one lwIP, one lock) or percpu"),
	STAT_INFO_AT(struct stacks_top, count, "", "stack instances"),
	HANDOFF_STATS(struct stacks_top, t),
};
static const struct stat_desc stacks_one_stats[] = {
	STAT_INFO_AT(struct stacks_one, cpu, "",
		     "the instance's CPU (-1: every CPU's, shared mode)"),
	STAT_INFO_AT(struct stacks_one, node, "",
		     "the NUMA node its state is on (-1: in the kernel "
		     "image, instance 0's)"),
	HANDOFF_STATS(struct stacks_one, h),
	STAT_COUNTER_AT(struct stacks_one, tcp_recv, "packets",
			"TCP segments this instance's lwIP received"),
	STAT_COUNTER_AT(struct stacks_one, tcp_xmit, "packets",
			"TCP segments it sent"),
	STAT_COUNTER_AT(struct stacks_one, udp_recv, "packets",
			"UDP datagrams it received"),
	STAT_COUNTER_AT(struct stacks_one, udp_xmit, "packets",
			"UDP datagrams it sent"),
};
static const struct stat_group stacks_groups[] = {
	STAT_GROUP("", stacks_top_stats),
	STAT_GROUP("instances[]", stacks_one_stats),
};
const struct stat_schema net_stacks_schema = STAT_SCHEMA(stacks_groups);

int net_stacks_stats_json(char *buf, size_t size)
{
	struct stacks_top top = {
		.mode = net_instance_percpu ? "percpu" : "shared",
		.count = net_instance_count,
	};
	struct strbuf sb;

	net_handoff_totals(&top.t);
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, stacks_top_stats,
			  STAT_TABLE_LEN(stacks_top_stats), &top);
	strbuf_printf(&sb, ",\"instances\":[");
	for (int i = 0; i < net_instance_count; i++) {
		const struct stats_ *ls = NET_INSTANCE_VAR(i, lwip_stats);
		struct stacks_one one = {
			.cpu = net_instance_percpu ? i : -1,
			.node = net_instance_node(i),
			.tcp_recv = ls->tcp.recv,
			.tcp_xmit = ls->tcp.xmit,
			.udp_recv = ls->udp.recv,
			.udp_xmit = ls->udp.xmit,
		};

		net_handoff_stats(i, &one.h);
		strbuf_printf(&sb, "%s{", i ? "," : "");
		stat_json_members(&sb, stacks_one_stats,
				  STAT_TABLE_LEN(stacks_one_stats), &one);
		strbuf_printf(&sb, "}");
	}
	strbuf_printf(&sb, "]}");
	return strbuf_done(&sb);
}
