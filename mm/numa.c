/*
 * NUMA policy of the page allocator: which node to try next, and the
 * numastat counters that show where allocations really landed.
 *
 * Fallback: each zone keeps a "zonelist", every node sorted by SLIT
 * distance from it (mm_node_distance), itself first, ties broken by node
 * id. An allocation that prefers node N walks N's zonelist, unless it says
 * __GFP_THISNODE.
 *
 * numastat, as Linux defines it, counted in pages on the node the pages
 * came from (numa_foreign on the node that was wanted):
 *   numa_hit     the preferred node had the pages
 *   numa_miss    pages came from here though another node was preferred
 *   numa_foreign this node was preferred, the pages came from another
 *   local_node   pages from here for a CPU of this node
 *   other_node   pages from here for a CPU of another node
 * Memory node (Linux's numa_mem_id): a CPU's node may have no memory (a
 * memoryless node: firmware lists its CPUs, no RAM). Its memory node is
 * the nearest node that has some, the first of its zonelist with managed
 * pages; every allocator treats that node as the CPU's local one, so the
 * CPU's magazines and fragment caches hold the nearest memory instead of
 * sending every call down the fallback path, and alloc_pages prefers it
 * (numastat: a hit there, counted other_node since the CPU is not of that
 * node, as in Linux).
 *
 * The counters live per CPU and only their CPU writes them, each with one
 * add that an interrupt cannot split (mm_cpu_counter_add: allocations come
 * from any context, with no guard around the count), so counting costs
 * two unlocked adds on the fast path; numastat sums the CPUs.
 */
#include "zone.h"

struct mm_cpu_stats mm_cpu_stats[MM_MAX_CPUS];
uint8_t mm_cpu_node[MM_MAX_CPUS];
uint8_t mm_cpu_mem_node[MM_MAX_CPUS];

static int node_distance(int from, int to)
{
	return mm_node_distance(from, to);
}

/* Insertion sort by distance; node ids ascending on ties (stable). */
static void build_zonelist(struct zone *z)
{
	int n = 0;
	for (int nid = 0; nid < mm_nr_zones; nid++) {
		int d = node_distance(z->nid, nid);
		int i = n++;
		while (i > 0 && node_distance(z->nid, z->zonelist[i - 1]) > d) {
			z->zonelist[i] = z->zonelist[i - 1];
			i--;
		}
		z->zonelist[i] = nid;
	}
	z->nr_zonelist = n;
}

/* The first node of nid's zonelist that has memory (nid itself when it
 * has; nid when no node has any). */
static int nearest_mem_node(int nid)
{
	const struct zone *z = &mm_zones[nid];
	for (int i = 0; i < z->nr_zonelist; i++)
		if (mm_zones[z->zonelist[i]].managed_pages)
			return z->zonelist[i];
	return nid;
}

/* numa_build_zonelists - fallback order of every zone, the CPU to node
 * table and each CPU's memory node; boot only, after the zones are
 * filled. */
void numa_build_zonelists(void)
{
	for (int nid = 0; nid < mm_nr_zones; nid++)
		build_zonelist(&mm_zones[nid]);
	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++) {
		int nid = cpu < mm_nr_cpus() ? mm_cpu_to_node(cpu) : 0;
		if (nid < 0 || nid >= mm_nr_zones)
			nid = 0;
		mm_cpu_node[cpu] = (uint8_t)nid;
		mm_cpu_mem_node[cpu] =
			(uint8_t)(mm_nr_zones ? nearest_mem_node(nid) : 0);
	}
}

int cpu_to_mem(int cpu)
{
	return (unsigned)cpu < MM_MAX_CPUS ? mm_cpu_mem_node[cpu] : 0;
}

int numa_node_order(int nid, int order[MM_MAX_NODES])
{
	if (nid < 0 || nid >= mm_nr_zones)
		return 0;
	const struct zone *z = &mm_zones[nid];
	for (int i = 0; i < z->nr_zonelist; i++)
		order[i] = z->zonelist[i];
	return z->nr_zonelist;
}

/* numa_stat_read - one numastat counter of node nid, all CPUs summed. */
unsigned long numa_stat_read(int nid, enum numa_stat item)
{
	unsigned long sum = 0;
	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
		sum += mm_stat_read(&mm_cpu_stats[cpu].numa[nid][item]);
	return sum;
}
