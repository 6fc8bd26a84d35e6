/*
 * Where packet buffers come from, chosen at boot (rx_alloc=, tx_alloc=,
 * nic_node=; see docs/net-memory.md):
 *
 *   local       the node of the CPU that allocates (default; the CPU that
 *               polls the NIC allocates its RX buffers)
 *   device      the NIC's node, as the firmware reports it (ACPI _PXM of
 *               the PCI host bridge it sits behind), or nic_node=N
 *   interleave  every node in turn (per new 32 KiB RX block; per TX
 *               allocation)
 *   node:N      node N
 *
 * RX: the refill policy of the per-CPU page_frag caches of every CPU
 * (page_frag_percpu_set_policy), so drivers keep calling napi_alloc_frag()
 * unchanged. TX: lwIP's heap (mem_malloc: the PBUF_RAM pbufs TCP and UDP
 * build for sending), kmalloc_node() by policy, in net_alloc=native mode.
 */
#ifndef NET_NET_NUMA_H
#define NET_NET_NUMA_H

#include <stddef.h>

/* A placement policy as net/ keeps it: an enum page_frag_node_policy and
 * its node (-1 when it has none). */
struct net_numa_policy {
	int policy;
	int node;
};

/* The policies in force: set by net_numa_apply(), read by net_mem.c. */
extern struct net_numa_policy net_rx_policy, net_tx_policy;

/**
 * net_numa_apply - read rx_alloc=, tx_alloc= and nic_node=, find the
 * NICs' node, and set the RX policy of every CPU's page_frag caches and
 * the TX policy of lwIP's heap. A policy that cannot apply (node:N or
 * nic_node=N beyond the machine's nodes) is reported and local is used
 * (counted in net_numa_errors). Prints one line, "net: rx_alloc=... ".
 * Context: boot, after the NICs are probed (netdev_count() > 0), before
 * the first poll.
 */
void net_numa_apply(void);

/**
 * net_numa_nic_node - the node "device" means: nic_node= if given, else
 * the first NIC's (its PCI host bridge's node). Valid after
 * net_numa_apply(). Any context.
 */
int net_numa_nic_node(void);

/* Policies that could not apply, since boot. */
int net_numa_errors(void);

/* The policies and the NIC node as JSON, for /stats.json, and its
 * description (libc/stat_table.h). snprintf semantics. */
int net_numa_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema net_numa_schema;

#endif /* NET_NET_NUMA_H */
