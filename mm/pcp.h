/*
 * Fast paths of the per-CPU page lists (design and the locking argument in
 * pcp.c), inline so that an order-0 alloc+free that hits the list is a few
 * dozen instructions: try this CPU's list lock with one exchange, push or
 * pop the list head, count, release. No interrupt masking: a held lock
 * means the code an interrupt interrupted (or a remote drain) is inside,
 * and the caller goes to the buddy lists instead. Refill and batch drain,
 * which take the zone lock, are out of line in pcp.c.
 */
#ifndef MM_PCP_H
#define MM_PCP_H

#include "zone.h"

/* The slow halves, out of line; both release pcp->lock. */
struct page *pcp_alloc_refill(struct zone *z, struct per_cpu_pages *pcp,
			      unsigned int order);
void pcp_free_batch(struct per_cpu_pages *pcp, int nid, unsigned int order);

/* Blocks on one list. Written only under pcp->lock; statistics read it
 * without the lock (relaxed), so it is atomic, at no cost on x86. */
static inline int pcp_len(const struct per_cpu_pages *pcp, unsigned int order)
{
	return atomic_load_explicit(&pcp->count[order], memory_order_relaxed);
}

static inline void pcp_set_len(struct per_cpu_pages *pcp, unsigned int order,
			       int n)
{
	atomic_store_explicit(&pcp->count[order], n, memory_order_relaxed);
}

/*
 * pcp_trylock - this CPU's list lock in one exchange, or false at once.
 * It is free almost always (the line is in this CPU's cache): held means
 * an interrupt came while this CPU was inside a list operation, or
 * drain_all_pages() on another CPU is emptying the list. Either way the
 * caller must not wait (the holder may be the code it interrupted).
 */
static inline bool pcp_trylock(struct per_cpu_pages *pcp)
{
	return mm_spin_trylock_once(&pcp->lock);
}

/* Pop the hottest block of a list holding n > 0; pcp->lock held. The
 * block keeps its order (the list's); PG_pcp is cleared by the allocator.
 * Its lru is left as it was: an allocated page's lru is its owner's. */
static inline struct page *pcp_take(struct per_cpu_pages *pcp,
				    unsigned int order, int n)
{
	struct list_head *head = &pcp->lists[order];
	struct list_head *first = head->next, *next = first->next;

	head->next = next;
	next->prev = head;
	pcp_set_len(pcp, order, n - 1);
	return list_entry(first, struct page, lru);
}

/*
 * pcp_alloc_locked - a block of 2^order pages from a list whose lock the
 * caller took with pcp_trylock(); refills an empty list with one batch.
 * Releases the lock. Returns the block (flags still PG_pcp, order set) or
 * NULL if the zone has none.
 */
static inline struct page *
pcp_alloc_locked(struct zone *z, struct per_cpu_pages *pcp, unsigned int order)
{
	int n = pcp_len(pcp, order);

	if (mm_unlikely(n == 0))
		return pcp_alloc_refill(z, pcp, order);
	mm_stat_add(&pcp->stats.alloc_hit, 1);
	struct page *page = pcp_take(pcp, order, n);
	mm_spin_unlock(&pcp->lock);
	return page;
}

/*
 * pcp_free_locked - put a block (its last reference gone, no compound
 * tails) on a list whose lock the caller took with pcp_trylock(); above
 * high, one batch goes back to the buddy lists. Releases the lock. The
 * slow call is the last thing done, so the fast path keeps nothing live
 * across it (no registers to save).
 */
static inline void pcp_free_locked(struct per_cpu_pages *pcp, struct page *page,
				   unsigned int order)
{
	int n = pcp_len(pcp, order) + 1;

	page->flags = PG_pcp;
	page->order = (uint8_t)order;
	list_add(&page->lru, &pcp->lists[order]);
	pcp_set_len(pcp, order, n);
	mm_stat_add(&pcp->stats.free, 1);
	if (mm_unlikely(n > pcp->high[order])) {
		pcp_free_batch(pcp, page->nid, order);
		return;
	}
	mm_spin_unlock(&pcp->lock);
}

#endif /* MM_PCP_H */
