/*
 * The NUMA placement of packet buffers (rx_alloc=, tx_alloc=, nic_node=):
 * read once at boot and handed to the allocators. See net_numa.h.
 *
 * RX placement is a property of the per-CPU page_frag caches, not of the
 * driver: every CPU's caches get the policy, so whichever CPU polls a
 * queue (one today; one per queue with multiqueue) refills by it, and a
 * driver only ever calls napi_alloc_frag(). "device" gives every CPU the
 * node of the first NIC: with NICs on different nodes the CPUs would need
 * to know which NIC they poll, which a later per-queue hook can pass in
 * (the line printed at boot says when NICs disagree).
 */
#include "net_numa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/netdev.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "libc/stat_table.h"
#include "mm/mm.h"

struct net_numa_policy net_rx_policy = {PAGE_FRAG_NODE_LOCAL, -1};
struct net_numa_policy net_tx_policy = {PAGE_FRAG_NODE_LOCAL, -1};

static int nic_node;
static const char *nic_node_from = "none"; /* "firmware", "nic_node=" */
static int errors;

/* The node ids the keys below take, "0-15": mm's limit, as text. */
#define NODE_ID_TEXT_(max) "0-" #max
#define NODE_ID_TEXT(max)  NODE_ID_TEXT_(max)
#define NODE_IDS	   NODE_ID_TEXT(MM_MAX_NODE_ID)

/* local|device|interleave, or node:N with N a node id (NODE_IDS; whether
 * the machine has that node is checked when the policy is applied). */
static bool valid_node_policy(const char *v, const char *allowed)
{
	char *end;
	unsigned long n;

	(void)allowed;
	if (cmdline_valid_choice(v, "local|device|interleave"))
		return true;
	if (strncmp(v, "node:", 5) != 0 || v[5] < '0' || v[5] > '9')
		return false;
	n = strtoul(v + 5, &end, 10);
	return *end == 0 && n < MM_MAX_NODES;
}

CMDLINE_KEY(net, rx_alloc, "local", valid_node_policy,
	    "local|device|interleave|node:N, N=" NODE_IDS,
	    "NUMA node of RX buffers: the polling CPU's, the NIC's, every node "
	    "in turn, or node N");
CMDLINE_KEY(
	net, tx_alloc, "local", valid_node_policy,
	"local|device|interleave|node:N, N=" NODE_IDS,
	"NUMA node of TX buffers (lwIP's heap: PBUF_RAM pbufs), as rx_alloc");
CMDLINE_KEY(net, nic_node, "", cmdline_valid_uint, NODE_IDS,
	    "the NICs' NUMA node, for firmware that does not report it (_PXM)");

/* The first NIC's node, and whether another NIC sits on another node. */
static int first_nic_node(bool *disagree)
{
	int n = netdev_count(), node = n ? netdev_get(0)->dev_node : 0;

	*disagree = false;
	for (int i = 1; i < n; i++)
		if (netdev_get(i)->dev_node != node)
			*disagree = true;
	return node;
}

static void find_nic_node(void)
{
	bool disagree;

	nic_node = first_nic_node(&disagree);
	nic_node_from = netdev_count() ? "firmware" : "none";
	if (cmdline_given("nic_node")) {
		long n = cmdline_get_long("nic_node");

		if (n < mm_nr_nodes()) {
			nic_node = (int)n;
			nic_node_from = "nic_node=";
			return;
		}
		kprintf("net: nic_node=%ld: the machine has %d node(s), using "
			"the firmware's node %d\n",
			n, mm_nr_nodes(), nic_node);
		errors++;
	}
	if (disagree)
		kprintf("net: NICs on different nodes: rx_alloc=device uses "
			"%s's node %d on every CPU\n",
			netdev_get(0)->name, nic_node);
}

/* "local", "device", "interleave" or "node:N" (valid_node_policy checked
 * the form) into *p; a node the machine lacks is reported and local used. */
static void parse_policy(const char *key, struct net_numa_policy *p)
{
	const char *v = cmdline_get(key);

	p->node = -1;
	if (!strcmp(v, "device")) {
		p->policy = PAGE_FRAG_NODE_DEVICE;
		p->node = nic_node;
	} else if (!strcmp(v, "interleave")) {
		p->policy = PAGE_FRAG_NODE_INTERLEAVE;
	} else if (!strncmp(v, "node:", 5)) {
		p->policy = PAGE_FRAG_NODE_FIXED;
		p->node = (int)strtol(v + 5, NULL, 10);
		if (p->node >= mm_nr_nodes()) {
			kprintf("net: %s=%s: the machine has %d node(s), "
				"using 'local'\n",
				key, v, mm_nr_nodes());
			errors++;
			p->policy = PAGE_FRAG_NODE_LOCAL;
			p->node = -1;
		}
	} else {
		p->policy = PAGE_FRAG_NODE_LOCAL;
	}
}

/* "device (node 1)", "node:1", "local", "interleave" */
static const char *policy_text(const struct net_numa_policy *p, char *buf,
			       size_t size)
{
	const char *name = page_frag_policy_name(p->policy);

	if (p->policy == PAGE_FRAG_NODE_FIXED)
		snprintf(buf, size, "node:%d", p->node);
	else if (p->policy == PAGE_FRAG_NODE_DEVICE)
		snprintf(buf, size, "device (node %d)", p->node);
	else
		snprintf(buf, size, "%s", name);
	return buf;
}

void net_numa_apply(void)
{
	char rx[32], tx[32];
	int cpus = mm_nr_cpus();

	find_nic_node();
	parse_policy("rx_alloc", &net_rx_policy);
	parse_policy("tx_alloc", &net_tx_policy);
	for (int cpu = 0; cpu < cpus; cpu++)
		if (page_frag_percpu_set_policy(cpu, net_rx_policy.policy,
						net_rx_policy.node) != 0)
			errors++;
	/* The drivers filled their RX rings at probe, from this CPU's
	 * caches and by the old policy: give up the current blocks, so the
	 * next refill follows the new one (the buffers out in the rings free
	 * their blocks when they come back). This CPU is the one running
	 * here, so nothing else uses its caches meanwhile. */
	page_frag_percpu_drain(mm_this_cpu());
	kprintf("net: rx_alloc=%s tx_alloc=%s nic_node=%d (%s), %d cpu(s), "
		"%d node(s)\n",
		policy_text(&net_rx_policy, rx, sizeof(rx)),
		policy_text(&net_tx_policy, tx, sizeof(tx)), nic_node,
		nic_node_from, cpus, mm_nr_nodes());
}

int net_numa_nic_node(void)
{
	return nic_node;
}

int net_numa_errors(void)
{
	return errors;
}

/* The "net_numa" object of /stats.json: settings, and their errors. */
struct numa_snap {
	const char *rx_alloc;
	int rx_node;
	const char *tx_alloc;
	int tx_node, nic_node;
	const char *nic_node_from;
	int errors;
};
static const struct stat_desc numa_stats[] = {
	STAT_INFO_AT(struct numa_snap, rx_alloc, "",
		     "rx_alloc=: where RX buffers come from"),
	STAT_INFO_AT(struct numa_snap, rx_node, "",
		     "the node of a node:N policy (-1: none)"),
	STAT_INFO_AT(struct numa_snap, tx_alloc, "",
		     "tx_alloc=: where TX buffers come from"),
	STAT_INFO_AT(struct numa_snap, tx_node, "",
		     "the node of a node:N policy (-1: none)"),
	STAT_INFO_AT(struct numa_snap, nic_node, "",
		     "the node rx_alloc=device takes buffers from"),
	STAT_INFO_AT(struct numa_snap, nic_node_from, "",
		     "who said so: firmware, nic_node= or none"),
	STAT_INFO_AT(struct numa_snap, errors, "events",
		     "policies that could not apply, since boot"),
};
static const struct stat_group numa_groups[] = {
	STAT_GROUP("", numa_stats),
};
const struct stat_schema net_numa_schema = STAT_SCHEMA(numa_groups);

int net_numa_json(char *buf, size_t size)
{
	struct numa_snap o = {
		.rx_alloc = page_frag_policy_name(net_rx_policy.policy),
		.rx_node = net_rx_policy.node,
		.tx_alloc = page_frag_policy_name(net_tx_policy.policy),
		.tx_node = net_tx_policy.node,
		.nic_node = nic_node,
		.nic_node_from = nic_node_from,
		.errors = errors,
	};
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, numa_stats, STAT_TABLE_LEN(numa_stats), &o);
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
