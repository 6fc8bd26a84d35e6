/*
 * Per-CPU fragment caches for the receive path, as Duyck split them: each
 * CPU has one cache usable from any context and one for its poll loop only.
 *
 * netdev_alloc_frag() may be called with interrupts on or off, from an
 * interrupt handler or not, so it masks interrupts around the per-CPU cache
 * (nothing else can touch this CPU's cache meanwhile). napi_alloc_frag() is
 * called only from the CPU's own poll loop, which interrupts never re-enter
 * (handlers here only acknowledge and wake the poller), so it needs no
 * guard at all: Duyck measured ~11 ns saved per packet. Both refill from the
 * current CPU's NUMA node (Dumazet: "allocate skbs on local node"), which
 * page_frag.c's refill does for every cache, unless the CPU's refill
 * policy says otherwise: page_frag_percpu_set_policy() sets it for both
 * caches of a CPU (the network stack does, from rx_alloc=, for the CPUs
 * that poll a NIC), and drivers keep calling napi_alloc_frag() unchanged.
 *
 * Both caches of one CPU share one cache line; no other CPU writes it, so it
 * never bounces (fragments freed elsewhere only touch the block's head page).
 */
#include <string.h>

#include "page_frag_internal.h"

struct page_frag_percpu {
	struct page_frag_cache napi;
	struct page_frag_cache netdev;
} __mm_cacheline_aligned;

static struct page_frag_percpu page_frag_percpu[MM_MAX_CPUS];

void *netdev_alloc_frag_align(unsigned int fragsz, unsigned int align)
{
	unsigned long flags = mm_irq_save();
	struct page_frag_cache *nc = &page_frag_percpu[mm_this_cpu()].netdev;
	void *va = page_frag_alloc_align(nc, fragsz, GFP_ATOMIC, align);

	mm_irq_restore(flags);
	return va;
}

void *netdev_alloc_frag(unsigned int fragsz)
{
	unsigned long flags = mm_irq_save();
	struct page_frag_cache *nc = &page_frag_percpu[mm_this_cpu()].netdev;
	void *va = page_frag_alloc(nc, fragsz, GFP_ATOMIC);

	mm_irq_restore(flags);
	return va;
}

void *napi_alloc_frag_align(unsigned int fragsz, unsigned int align)
{
	return page_frag_alloc_align(&page_frag_percpu[mm_this_cpu()].napi,
				     fragsz, GFP_ATOMIC, align);
}

void *napi_alloc_frag(unsigned int fragsz)
{
	return page_frag_alloc(&page_frag_percpu[mm_this_cpu()].napi, fragsz,
			       GFP_ATOMIC);
}

void page_frag_percpu_drain(int cpu)
{
	if (cpu < 0 || cpu >= MM_MAX_CPUS) {
		mm_printf("page_frag: drain of cpu %d refused (0..%d)\n", cpu,
			  MM_MAX_CPUS - 1);
		return;
	}
	page_frag_cache_drain(&page_frag_percpu[cpu].napi);
	page_frag_cache_drain(&page_frag_percpu[cpu].netdev);
}

int page_frag_percpu_set_policy(int cpu, enum page_frag_node_policy policy,
				int node)
{
	if (cpu < 0 || cpu >= MM_MAX_CPUS) {
		mm_printf("page_frag: policy of cpu %d refused (0..%d)\n", cpu,
			  MM_MAX_CPUS - 1);
		return -1;
	}
	/* Both or neither: the first call checks the arguments. */
	if (page_frag_cache_set_policy(&page_frag_percpu[cpu].napi, policy,
				       node) != 0)
		return -1;
	return page_frag_cache_set_policy(&page_frag_percpu[cpu].netdev, policy,
					  node);
}

enum page_frag_node_policy page_frag_percpu_get_policy(int cpu, int *node)
{
	if (cpu < 0 || cpu >= MM_MAX_CPUS) {
		if (node)
			*node = -1;
		return PAGE_FRAG_NODE_LOCAL;
	}
	return page_frag_cache_get_policy(&page_frag_percpu[cpu].napi, node);
}

void page_frag_forget_all(void)
{
	memset(page_frag_percpu, 0, sizeof(page_frag_percpu));
	page_frag_free_forget();
	page_frag_counters_forget();
	page_frag_order0_forget();
}
