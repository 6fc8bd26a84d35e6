/*
 * Refill-node policy of the page fragment caches: which NUMA node a
 * cache's next new block comes from (enum page_frag_node_policy in
 * page_frag.h). The policy is one 16-bit word in the cache, written with
 * a relaxed atomic store by whoever sets it (the network stack at boot,
 * for every CPU that polls a NIC) and read only by the cache's refill, so
 * it costs the allocation fast path nothing and may be changed while the
 * cache is in use: the change applies from the next new block.
 *
 * Why it exists: "local" is what the packet path wants (Dumazet: RX
 * buffers live briefly, so allocating and freeing them on the polling
 * CPU's node beats DMA locality to the NIC); "device" is what drivers did
 * before, and "interleave" spreads the blocks, so that an experiment can
 * boot each (rx_alloc=) and compare numastat and throughput.
 */
#include "page_frag_internal.h"

/* refill_policy packs the policy (low byte) and its node (high byte). */
#define PF_POLICY_WORD(policy, node) \
	((unsigned short)((unsigned int)(policy) | (unsigned int)(node) << 8))

int page_frag_cache_set_policy(struct page_frag_cache *nc,
			       enum page_frag_node_policy policy, int node)
{
	bool fixed = policy == PAGE_FRAG_NODE_FIXED ||
		     policy == PAGE_FRAG_NODE_DEVICE;

	if ((unsigned int)policy >= PAGE_FRAG_NODE_NR_POLICIES ||
	    (fixed && (node < 0 || node >= mm_nr_nodes()))) {
		mm_printf("page_frag: refill policy %d node %d refused "
			  "(nodes 0..%d)\n",
			  (int)policy, node, mm_nr_nodes() - 1);
		return -1;
	}
	atomic_store_explicit(&nc->refill_policy,
			      PF_POLICY_WORD(policy, fixed ? node : 0),
			      memory_order_relaxed);
	return 0;
}

enum page_frag_node_policy
page_frag_cache_get_policy(const struct page_frag_cache *nc, int *node)
{
	unsigned int word =
		atomic_load_explicit(&nc->refill_policy, memory_order_relaxed);
	enum page_frag_node_policy policy = word & 0xff;

	if (node)
		*node = (policy == PAGE_FRAG_NODE_FIXED ||
			 policy == PAGE_FRAG_NODE_DEVICE)
				? (int)(word >> 8)
				: -1;
	return policy;
}

const char *page_frag_policy_name(enum page_frag_node_policy policy)
{
	static const char *const names[PAGE_FRAG_NODE_NR_POLICIES] = {
		[PAGE_FRAG_NODE_LOCAL] = "local",
		[PAGE_FRAG_NODE_FIXED] = "node",
		[PAGE_FRAG_NODE_DEVICE] = "device",
		[PAGE_FRAG_NODE_INTERLEAVE] = "interleave",
	};

	return (unsigned int)policy < PAGE_FRAG_NODE_NR_POLICIES ? names[policy]
								 : "?";
}

/*
 * The node nc's next new block should come from, by its policy. Read once
 * per new block (the slow path of the slow path), so the policy costs the
 * allocation fast path nothing. A node that has gone out of range (the
 * host library rebooted with fewer nodes) reads as local.
 */
int page_frag_refill_node(struct page_frag_cache *nc)
{
	unsigned int word =
		atomic_load_explicit(&nc->refill_policy, memory_order_relaxed);
	int nodes = mm_nr_nodes();
	int nid;

	switch (word & 0xff) {
	case PAGE_FRAG_NODE_FIXED:
	case PAGE_FRAG_NODE_DEVICE:
		nid = (int)(word >> 8);
		return nid < nodes ? nid : numa_mem_id();
	case PAGE_FRAG_NODE_INTERLEAVE:
		nid = nc->next_node < nodes ? nc->next_node : 0;
		nc->next_node = (unsigned short)((nid + 1) % nodes);
		return nid;
	default:
		return numa_mem_id(); /* the nearest memory if the node has none */
	}
}
