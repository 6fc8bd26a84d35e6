/*
 * Per-CPU page lists (PCP): a small stack of free blocks per CPU, per zone
 * and per order 0..PCP_MAX_ORDER, in front of the buddy lists.
 *
 * Why: every buddy operation takes the zone lock, one cache line that all
 * CPUs of the machine fight over. A CPU that allocates and frees pages in a
 * loop (a NIC refilling its RX ring, TX completion freeing) would bounce it
 * on every page. The PCP takes the zone lock once per *batch* of blocks:
 * an empty list is refilled with `batch` blocks, a list that grows beyond
 * `high` gives `batch` blocks back (page_alloc_tunables.h has the values).
 * Most operations then touch only this CPU's cache lines; the benchmark
 * (make bench) measures the difference against the buddy lists alone.
 *
 * Safety: each list has its own spinlock. The owning CPU takes it on every
 * operation, but it is uncontended, so it costs one atomic exchange on a
 * line already in this CPU's cache. The lock is what lets drain_all_pages()
 * on any CPU empty every other CPU's lists without interrupting them (Linux
 * moved to the same scheme, a pcp spinlock, for the same reason). In the
 * kernel, mm_irq_save() around it keeps an interrupt handler on this CPU
 * from re-entering while the lock is held.
 *
 * Hot blocks are taken from and put at the head of a list; drains give
 * back the tail (the coldest).
 */
#include "pcp.h"

atomic_bool mm_pcp_enabled = PCP_ENABLED_DEFAULT != 0;

static const int pcp_default_batch[NR_PCP_ORDERS] = {
	PCP_BATCH_ORDER0, PCP_BATCH_ORDER1, PCP_BATCH_ORDER2, PCP_BATCH_ORDER3};
static const int pcp_default_high[NR_PCP_ORDERS] = {
	PCP_HIGH_ORDER0, PCP_HIGH_ORDER1, PCP_HIGH_ORDER2, PCP_HIGH_ORDER3};

/*
 * pcp_zone_init - empty lists for every CPU, and the limits fitted to the
 * zone: together, all CPUs' lists of all orders may hold at most
 * 1/PCP_ZONE_SHARE of the zone's pages.
 */
void pcp_zone_init(struct zone *z)
{
	int cpus = mm_nr_cpus() > 0 ? mm_nr_cpus() : 1;
	long budget = (long)z->managed_pages /
		      (PCP_ZONE_SHARE * cpus * NR_PCP_ORDERS);

	for (int o = 0; o < NR_PCP_ORDERS; o++) {
		long high = budget >> o;
		if (high > pcp_default_high[o])
			high = pcp_default_high[o];
		long batch = pcp_default_batch[o];
		if (batch > high / 2)
			batch = high / 2;
		z->pcp_high[o] = (int)high;
		z->pcp_batch[o] = batch > 0 ? (int)batch : 1;
	}
	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++) {
		struct per_cpu_pages *pcp = &z->pcp[cpu];
		mm_spin_init(&pcp->lock);
		for (int o = 0; o < NR_PCP_ORDERS; o++) {
			list_init(&pcp->lists[o]);
			pcp->count[o] = 0;
		}
	}
}

/* Move up to `batch` blocks from the buddy lists; pcp->lock held. */
static int pcp_refill(struct zone *z, struct per_cpu_pages *pcp,
		      unsigned int order)
{
	int n = 0;
	mm_spin_lock(&z->lock);
	while (n < z->pcp_batch[order]) {
		struct page *page = __rmqueue(z, order);
		if (!page)
			break;
		page->flags = PG_pcp;
		page->order = (uint8_t)order;
		list_add_tail(&page->lru, &pcp->lists[order]);
		n++;
	}
	mm_spin_unlock(&z->lock);
	pcp->count[order] += n;
	mm_stat_add(&pcp->stats.refill, 1);
	return n;
}

/* Give the `n` coldest blocks back to the buddy lists; pcp->lock held. */
static void pcp_free_tail(struct zone *z, struct per_cpu_pages *pcp,
			  unsigned int order, int n)
{
	mm_spin_lock(&z->lock);
	for (; n > 0 && pcp->count[order] > 0; n--) {
		struct page *page =
			list_entry(pcp->lists[order].prev, struct page, lru);
		list_del(&page->lru);
		pcp->count[order]--;
		page->flags = 0;
		__free_one_page(z, page, order);
	}
	mm_spin_unlock(&z->lock);
	mm_stat_add(&pcp->stats.drain, 1);
}

/*
 * pcp_alloc_refill - slow path of pcp_alloc() (pcp.h): the list is empty;
 * refill it with one batch and take the first block. pcp->lock held.
 * Returns the block (flags 0) or NULL when the zone has none.
 */
struct page *pcp_alloc_refill(struct zone *z, struct per_cpu_pages *pcp,
			      unsigned int order)
{
	mm_stat_add(&pcp->stats.alloc_miss, 1);
	if (!pcp_refill(z, pcp, order))
		return NULL;
	return pcp_take(pcp, order);
}

/* pcp_free_batch - slow path of pcp_free(): the list went above high;
 * give one batch back. pcp->lock held. */
void pcp_free_batch(struct zone *z, struct per_cpu_pages *pcp,
		    unsigned int order)
{
	pcp_free_tail(z, pcp, order, z->pcp_batch[order]);
}

/*
 * pcp_alloc_bulk - up to nr order-0 pages for alloc_pages_bulk(): first
 * what this CPU's list holds, then the rest straight from the buddy lists
 * under a single zone-lock acquisition. Returns how many were filled.
 */
unsigned int pcp_alloc_bulk(struct zone *z, int cpu, unsigned int nr,
			    struct page **pages)
{
	unsigned long flags = mm_irq_save();
	struct per_cpu_pages *pcp = &z->pcp[cpu];
	unsigned int n = 0;

	mm_spin_lock(&pcp->lock);
	while (n < nr && pcp->count[0] > 0)
		pages[n++] = pcp_take(pcp, 0);
	mm_stat_add(&pcp->stats.alloc_hit, n);
	if (n < nr)
		n += buddy_alloc_bulk(z, nr - n, pages + n);
	mm_spin_unlock(&pcp->lock);
	mm_irq_restore(flags);
	return n;
}

/* pcp_drain_cpu - every block on cpu's lists for zone z back to the buddy
 * lists. Any CPU may call it for any CPU. */
void pcp_drain_cpu(struct zone *z, int cpu)
{
	struct per_cpu_pages *pcp = &z->pcp[cpu];
	unsigned long flags = mm_spin_lock_irqsave(&pcp->lock);
	for (unsigned int o = 0; o < NR_PCP_ORDERS; o++)
		if (pcp->count[o])
			pcp_free_tail(z, pcp, o, pcp->count[o]);
	mm_spin_unlock_irqrestore(&pcp->lock, flags);
}

/*
 * drain_all_pages - return every CPU's per-CPU pages, in every zone, to the
 * buddy lists. Any context; takes each list's lock in turn, so it is safe
 * while other CPUs keep allocating (they may refill right after).
 */
void drain_all_pages(void)
{
	/* All slots, not just mm_nr_cpus(): a thread that never said which
	 * CPU it is runs as CPU 0, but a misnumbered one must not leak. */
	for (int n = 0; n < mm_nr_zones; n++)
		for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
			pcp_drain_cpu(&mm_zones[n], cpu);
}

void pcp_set_enabled(bool on)
{
	atomic_store(&mm_pcp_enabled, on);
	if (!on)
		drain_all_pages();
}

int pcp_batch(int nid, unsigned int order)
{
	return order < NR_PCP_ORDERS ? mm_zones[nid].pcp_batch[order] : 0;
}

int pcp_high(int nid, unsigned int order)
{
	return order < NR_PCP_ORDERS ? mm_zones[nid].pcp_high[order] : 0;
}

int pcp_count(int nid, int cpu, unsigned int order)
{
	struct per_cpu_pages *pcp = &mm_zones[nid].pcp[cpu];
	unsigned long flags = mm_spin_lock_irqsave(&pcp->lock);
	int n = order < NR_PCP_ORDERS ? pcp->count[order] : 0;
	mm_spin_unlock_irqrestore(&pcp->lock, flags);
	return n;
}
