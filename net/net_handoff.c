/*
 * The hand-off rings between stack instances (see net_handoff.h).
 *
 * Why pairs of pointers: an ALF queue carries pointers, and a buffer
 * needs its length and flags besides. The second pointer packs them:
 * length in bits 0-31, flags in 32-47, the device's index in 48-55. A
 * frame's pairs are enqueued in one multi-producer bulk (one
 * compare-and-swap), so a consumer that asks for an even count always
 * gets whole pairs, and the rest of a frame begun is already there.
 *
 * Counters, per instance, each written by one CPU: frames handed on and
 * refused by a full ring (the sender's), frames taken (the owner's),
 * fan-out copies and copies that found no memory (the sender's).
 */
#include "net_handoff.h"

#include "drivers/netdev.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "libc/stat_table.h"
#include "lwip/stats.h"
#include "mm/alf_queue.h"
#include "mm/mm.h"
#include "net_instance.h"

/* Slots per ring: 2048 buffers, 32 full poll batches of 64. */
#define HANDOFF_SLOTS 4096u

struct handoff_stats {
	uint64_t sent, taken, copies, ring_full, copy_fail;
} __attribute__((aligned(64)));

static struct alf_queue *rings[NET_INSTANCES_MAX];
static struct handoff_stats stats[NET_INSTANCES_MAX];
static int nrings;

int net_handoff_init(int n)
{
	for (int i = 0; i < n; i++) {
		rings[i] = alf_queue_alloc_node(HANDOFF_SLOTS, ALF_SC_DEQ,
						GFP_KERNEL, cpus[i].node);
		if (rings[i])
			continue;
		while (i--) {
			alf_queue_free(rings[i]);
			rings[i] = NULL;
		}
		return -1;
	}
	nrings = n;
	return 0;
}

static void *pack(const struct net_handoff_buf *b, int dev_index)
{
	return (void *)((uintptr_t)b->len |
			(uintptr_t)(b->flags & 0xffffu) << 32 |
			(uintptr_t)(dev_index & 0xff) << 48);
}

static void unpack(void *meta, void *frame, struct net_handoff_buf *b,
		   int *dev_index)
{
	uintptr_t m = (uintptr_t)meta;

	b->frame = frame;
	b->len = (uint32_t)m;
	b->flags = (unsigned int)(m >> 32 & 0xffffu);
	*dev_index = (int)(m >> 48 & 0xff);
}

bool net_handoff_send(int from, int to, int dev_index,
		      const struct net_handoff_buf *buf, int n, bool copy)
{
	void *pairs[2 * (NETDEV_RX_CHAIN_MAX + 1)];

	if (n > NETDEV_RX_CHAIN_MAX + 1)
		return false;
	for (int i = 0; i < n; i++) {
		pairs[2 * i] = buf[i].frame;
		pairs[2 * i + 1] = pack(&buf[i], dev_index);
	}
	if (!alf_mp_enqueue(rings[to], pairs, 2u * (unsigned int)n)) {
		stats[from].ring_full++;
		return false;
	}
	if (copy)
		stats[from].copies++;
	else
		stats[from].sent++;
	poll_wake(to); /* instance i's home is CPU i */
	return true;
}

void net_handoff_copy_failed(int from)
{
	stats[from].copy_fail++;
}

int net_handoff_take(int self, int max,
		     void (*park)(void *arg, int dev_index,
				  const struct net_handoff_buf *buf),
		     void *arg)
{
	void *pairs[2 * 16];
	int taken = 0;
	bool more = false;

	while (taken < max || more) {
		/* in a frame begun: one pair at a time, to its end */
		unsigned int want = more ? 2 : sizeof(pairs) / sizeof(pairs[0]);
		unsigned int got = alf_sc_dequeue(rings[self], pairs, want);

		if (got == 0)
			break;
		for (unsigned int i = 0; i + 1 < got; i += 2) {
			struct net_handoff_buf b;
			int dev;

			unpack(pairs[i + 1], pairs[i], &b, &dev);
			more = b.flags & NETDEV_RX_MORE;
			if (!more)
				stats[self].taken++;
			park(arg, dev, &b);
			taken++;
		}
	}
	return taken;
}

bool net_handoff_waiting(int self)
{
	return self < nrings && !alf_queue_empty(rings[self]);
}

void net_handoff_totals(struct net_handoff_totals *out)
{
	*out = (struct net_handoff_totals){0};
	for (int i = 0; i < nrings; i++) {
		out->sent += stats[i].sent;
		out->taken += stats[i].taken;
		out->copies += stats[i].copies;
		out->ring_full += stats[i].ring_full;
		out->copy_fail += stats[i].copy_fail;
	}
}

/*
 * The "stacks" object of /stats.json: the mode, the hand-off totals, and
 * each instance's hand-offs with its lwIP's TCP and UDP counters (the
 * "lwip" object sums them over the instances).
 */
struct stacks_top {
	const char *mode;
	int count;
	struct net_handoff_totals t;
};
struct stacks_one {
	int cpu, node;
	struct handoff_stats h;
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
			.h = stats[i],
			.tcp_recv = ls->tcp.recv,
			.tcp_xmit = ls->tcp.xmit,
			.udp_recv = ls->udp.recv,
			.udp_xmit = ls->udp.xmit,
		};

		strbuf_printf(&sb, "%s{", i ? "," : "");
		stat_json_members(&sb, stacks_one_stats,
				  STAT_TABLE_LEN(stacks_one_stats), &one);
		strbuf_printf(&sb, "}");
	}
	strbuf_printf(&sb, "]}");
	return strbuf_done(&sb);
}
