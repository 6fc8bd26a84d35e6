/*
 * Fast paths of the per-CPU page lists (design in pcp.c), inline so that
 * an order-0 alloc+free that hits the list is a handful of instructions:
 * mask interrupts (kernel), take this CPU's uncontended list lock, push or
 * pop the list head, count, release. Refill and drain, which take the
 * zone lock, are out of line in pcp.c.
 */
#ifndef MM_PCP_H
#define MM_PCP_H

#include "zone.h"

struct page *pcp_alloc_refill(struct zone *z, struct per_cpu_pages *pcp,
			      unsigned int order);
void pcp_free_batch(struct zone *z, struct per_cpu_pages *pcp,
		    unsigned int order);

/* Pop the hottest block of a non-empty list; pcp->lock held. */
static inline struct page *pcp_take(struct per_cpu_pages *pcp,
				    unsigned int order)
{
	struct page *page =
		list_first_entry(&pcp->lists[order], struct page, lru);
	list_del(&page->lru);
	pcp->count[order]--;
	page->flags = 0;
	return page;
}

/*
 * pcp_alloc - a block of 2^order pages (order <= PCP_MAX_ORDER) from CPU
 * cpu's list for zone z (cpu is the caller's own). Any context.
 * Returns the head (flags 0) or NULL if the zone has no such block.
 */
static inline struct page *pcp_alloc(struct zone *z, int cpu,
				     unsigned int order)
{
	unsigned long flags = mm_irq_save();
	struct per_cpu_pages *pcp = &z->pcp[cpu];
	struct page *page;

	mm_spin_lock(&pcp->lock);
	if (mm_likely(pcp->count[order] > 0)) {
		mm_stat_add(&pcp->stats.alloc_hit, 1);
		page = pcp_take(pcp, order);
	} else {
		page = pcp_alloc_refill(z, pcp, order);
	}
	mm_spin_unlock(&pcp->lock);
	mm_irq_restore(flags);
	return page;
}

/*
 * pcp_free - put a block (flags already cleared) on CPU cpu's list for
 * zone z (cpu is the caller's own); above high, one batch goes back to
 * the buddy lists. Any context.
 */
static inline void pcp_free(struct zone *z, int cpu, struct page *page,
			    unsigned int order)
{
	unsigned long flags = mm_irq_save();
	struct per_cpu_pages *pcp = &z->pcp[cpu];

	mm_spin_lock(&pcp->lock);
	page->flags = PG_pcp;
	page->order = (uint8_t)order;
	list_add(&page->lru, &pcp->lists[order]);
	pcp->count[order]++;
	mm_stat_add(&pcp->stats.free, 1);
	if (mm_unlikely(pcp->count[order] > z->pcp_high[order]))
		pcp_free_batch(z, pcp, order);
	mm_spin_unlock(&pcp->lock);
	mm_irq_restore(flags);
}

#endif /* MM_PCP_H */
