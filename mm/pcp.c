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
 * Locking. Each list has a spinlock, so that drain_all_pages() on any CPU
 * can empty every other CPU's lists synchronously, from any context, with
 * no inter-processor interrupt and nothing to wait for but a short hold
 * (Linux moved to the same scheme, a pcp spinlock, for the same reason).
 * The rules that make it cheap and safe:
 *  - the list's own CPU takes it with one exchange and never waits
 *    (pcp_trylock); interrupts stay enabled. If it is held, either an
 *    interrupt arrived while this CPU was inside a list operation (the
 *    handler must not spin: the holder is the code it interrupted) or a
 *    remote drain is running; the block then goes to or comes from the
 *    buddy lists (counted as "busy"), exactly what Linux's trylock does;
 *  - every other taker (a remote drain, the owner's own drain) masks
 *    interrupts while it holds a list lock, and a CPU never spins on its
 *    own list's lock: drain_all_pages() only tries it. So a spinner waits
 *    for a holder that is running, never for one it interrupted;
 *  - the zone lock is always taken with interrupts masked, inside a list
 *    lock or alone: lock order pcp, then zone.
 * Without the lock, an owner-only list would need either a store-load
 * fence on every operation (as costly as the exchange) or a drain that
 * interrupts the owner and waits for it, which cannot be done from an
 * interrupt handler or with interrupts masked, as "any context" requires.
 * Masking interrupts around the lock instead of trying it cost 5 guest
 * instructions per call (pushf/pop/cli, push/popf), and popf is one of the
 * slowest instructions on real hardware.
 *
 * Hot blocks are taken from and put at the head of a list; drains give
 * back the tail (the coldest). A list of order o holds only blocks of
 * order o with page->order == o and flags PG_pcp, so the allocation fast
 * path does not rewrite the order.
 */
#include "mm_trace.h"
#include "pcp.h"

/* Trace points (mm_trace.h): a list's refill from the buddy lists, and
 * blocks going back to them (above the list's high mark, or a drain). */
TRACE_EVENT(ev_pcp_refill, TRACE_MM, "pcp_refill", {"blocks", TRACE_DEC},
	    {"list_cpu", TRACE_DEC}, {"order", TRACE_DEC}, {"node", TRACE_DEC});
TRACE_EVENT(ev_pcp_drain, TRACE_MM, "pcp_drain", {"blocks", TRACE_DEC},
	    {"list_cpu", TRACE_DEC}, {"order", TRACE_DEC}, {"node", TRACE_DEC});
TRACE_EVENT(ev_drain_all, TRACE_MM, "drain_all_pages", {"caller", TRACE_SYM});

atomic_bool mm_pcp_enabled = PCP_ENABLED_DEFAULT != 0;

static const int pcp_default_batch[NR_PCP_ORDERS] = {
	PCP_BATCH_ORDER0, PCP_BATCH_ORDER1, PCP_BATCH_ORDER2, PCP_BATCH_ORDER3};
static const int pcp_default_high[NR_PCP_ORDERS] = {
	PCP_HIGH_ORDER0, PCP_HIGH_ORDER1, PCP_HIGH_ORDER2, PCP_HIGH_ORDER3};

/*
 * pcp_zone_limits - the lists' high and batch fitted to the zone: the
 * tunables' values, cut so that all CPUs' lists of all orders hold at
 * most 1/PCP_ZONE_SHARE of the zone's pages, and a batch at most half of
 * high, so that a list refilled from empty takes back as many frees as it
 * handed out before it gives a batch back.
 */
static void pcp_zone_limits(struct zone *z)
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
}

/* pcp_zone_init - empty lists for every CPU, with the zone's limits. */
void pcp_zone_init(struct zone *z)
{
	pcp_zone_limits(z);
	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++) {
		struct per_cpu_pages *pcp = &z->pcp[cpu];
		mm_spin_init(&pcp->lock);
		for (int o = 0; o < NR_PCP_ORDERS; o++) {
			list_init(&pcp->lists[o]);
			atomic_init(&pcp->count[o], 0);
			pcp->high[o] = z->pcp_high[o];
		}
	}
}

/* Move up to `batch` blocks from the buddy lists; pcp->lock held.
 * Returns the list's new length. */
static int pcp_refill(struct zone *z, struct per_cpu_pages *pcp,
		      unsigned int order)
{
	int n = 0;
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	while (n < z->pcp_batch[order]) {
		struct page *page = __rmqueue(z, order);
		if (!page)
			break;
		page->flags = PG_pcp;
		page->order = (uint8_t)order;
		list_add_tail(&page->lru, &pcp->lists[order]);
		n++;
	}
	mm_spin_unlock_irqrestore(&z->lock, flags);
	mm_trace(&ev_pcp_refill, (uint64_t)n, (uint64_t)(pcp - z->pcp), order,
		 (uint32_t)z->nid);
	n += pcp_len(pcp, order);
	pcp_set_len(pcp, order, n);
	mm_stat_add(&pcp->stats.refill, 1);
	return n;
}

/* Give the `n` coldest blocks back to the buddy lists; pcp->lock held. */
static void pcp_free_tail(struct zone *z, struct per_cpu_pages *pcp,
			  unsigned int order, int n)
{
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	int left = pcp_len(pcp, order);

	mm_trace(&ev_pcp_drain, (uint64_t)(n < left ? n : left),
		 (uint64_t)(pcp - z->pcp), order, (uint32_t)z->nid);
	for (; n > 0 && left > 0; n--, left--) {
		struct page *page =
			list_entry(pcp->lists[order].prev, struct page, lru);
		list_del(&page->lru);
		page->flags = 0;
		__free_one_page(z, page, order);
	}
	pcp_set_len(pcp, order, left);
	mm_spin_unlock_irqrestore(&z->lock, flags);
	mm_stat_add(&pcp->stats.drain, 1);
}

/*
 * pcp_alloc_refill - slow path of pcp_alloc_locked() (pcp.h): the list is
 * empty; refill it with one batch and take the first block, then release
 * pcp->lock (held on entry). Returns the block or NULL when the zone has
 * none.
 */
struct page *pcp_alloc_refill(struct zone *z, struct per_cpu_pages *pcp,
			      unsigned int order)
{
	struct page *page = NULL;

	int n = pcp_refill(z, pcp, order);

	if (n)
		page = pcp_take(pcp, order, n);
	mm_spin_unlock(&pcp->lock);
	return page;
}

/* pcp_free_batch - slow path of pcp_free_locked(): above high, give one
 * batch of node nid's list back, then release pcp->lock (held on entry). */
void pcp_free_batch(struct per_cpu_pages *pcp, int nid, unsigned int order)
{
	struct zone *z = &mm_zones[nid];

	pcp_free_tail(z, pcp, order, z->pcp_batch[order]);
	mm_spin_unlock(&pcp->lock);
}

/*
 * pcp_alloc_bulk - up to nr order-0 pages for alloc_pages_bulk(): first
 * what this CPU's list holds, then the rest straight from the buddy lists
 * under a single zone-lock acquisition. Returns how many were filled.
 */
unsigned int pcp_alloc_bulk(struct zone *z, int cpu, unsigned int nr,
			    struct page **pages)
{
	struct per_cpu_pages *pcp = &z->pcp[cpu];
	unsigned int n = 0;

	if (mm_unlikely(!pcp_trylock(pcp))) {
		mm_stat_add(&pcp->stats.busy, 1);
		return buddy_alloc_bulk(z, nr, pages);
	}
	for (int left = pcp_len(pcp, 0); n < nr && left > 0; left--)
		pages[n++] = pcp_take(pcp, 0, left);
	mm_stat_add(&pcp->stats.alloc_hit, n);
	if (n < nr)
		n += buddy_alloc_bulk(z, nr - n, pages + n);
	mm_spin_unlock(&pcp->lock);
	return n;
}

/*
 * pcp_drain_cpu - every block on cpu's lists for zone z back to the buddy
 * lists. Any CPU may call it for any CPU, from any context. Interrupts
 * stay masked while the lock is held. Its own CPU's list is only tried:
 * held, it belongs to the code this call interrupted (or to another
 * drain), which must not be waited for; that list is then left as it is.
 */
void pcp_drain_cpu(struct zone *z, int cpu)
{
	struct per_cpu_pages *pcp = &z->pcp[cpu];
	unsigned long flags = mm_irq_save();

	if (cpu == mm_this_cpu()) {
		if (!pcp_trylock(pcp)) {
			mm_irq_restore(flags);
			return;
		}
	} else {
		mm_spin_lock(&pcp->lock);
	}
	for (unsigned int o = 0; o < NR_PCP_ORDERS; o++)
		if (pcp_len(pcp, o))
			pcp_free_tail(z, pcp, o, pcp_len(pcp, o));
	mm_spin_unlock(&pcp->lock);
	mm_irq_restore(flags);
}

/* The drains of caches above (drain_all_pages_add), set at boot only. */
static void (*drain_hooks[DRAIN_ALL_PAGES_HOOKS])(void);

int drain_all_pages_add(void (*drain)(void))
{
	for (int i = 0; i < DRAIN_ALL_PAGES_HOOKS; i++) {
		if (drain_hooks[i] == drain)
			return 0;
		if (!drain_hooks[i]) {
			drain_hooks[i] = drain;
			return 0;
		}
	}
	return -1;
}

/*
 * drain_all_pages - return every CPU's per-CPU pages, in every zone, to the
 * buddy lists, once the caches above have given back what their CPUs hold
 * (their blocks land on this CPU's lists, drained next). Any context;
 * takes each list's lock in turn, so it is safe while other CPUs keep
 * allocating (they may refill right after). A list of this CPU that the
 * interrupted code holds is left alone.
 */
void drain_all_pages(void)
{
	const void *caller = __builtin_return_address(0);

	mm_trace_begin(&ev_drain_all, (uintptr_t)caller, 0, 0, 0);
	for (int i = 0; i < DRAIN_ALL_PAGES_HOOKS && drain_hooks[i]; i++)
		drain_hooks[i]();
	/* Off, the lists are empty and held by the switch. All slots, not
	 * just mm_nr_cpus(): a thread that never said which CPU it is runs
	 * as CPU 0, but a misnumbered one must not leak. */
	if (atomic_load_explicit(&mm_pcp_enabled, memory_order_relaxed))
		for (int n = 0; n < mm_nr_zones; n++)
			for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
				pcp_drain_cpu(&mm_zones[n], cpu);
	mm_trace_end(&ev_drain_all, (uintptr_t)caller, 0, 0, 0);
}

/*
 * pcp_set_enabled - switch the per-CPU lists on or off (page_alloc.h).
 * Off, every list is drained and its lock stays held by the switch: the
 * fast paths' trylock then fails and they take the general path, which
 * sees the switch off and goes to the buddy lists. So the switch costs
 * the fast paths nothing (no flag to test on every call).
 */
void pcp_set_enabled(bool on)
{
	if (on == atomic_load(&mm_pcp_enabled))
		return;
	if (!on)
		atomic_store(&mm_pcp_enabled, false);
	for (int n = 0; n < mm_nr_zones; n++) {
		for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++) {
			struct per_cpu_pages *pcp = &mm_zones[n].pcp[cpu];
			if (on) {
				mm_spin_unlock(&pcp->lock);
				continue;
			}
			unsigned long flags = mm_spin_lock_irqsave(&pcp->lock);
			for (unsigned int o = 0; o < NR_PCP_ORDERS; o++)
				if (pcp_len(pcp, o))
					pcp_free_tail(&mm_zones[n], pcp, o,
						      pcp_len(pcp, o));
			mm_irq_restore(flags);
		}
	}
	if (on)
		atomic_store(&mm_pcp_enabled, true);
}

int pcp_batch(int nid, unsigned int order)
{
	return order < NR_PCP_ORDERS ? mm_zones[nid].pcp_batch[order] : 0;
}

int pcp_high(int nid, unsigned int order)
{
	return order < NR_PCP_ORDERS ? mm_zones[nid].pcp_high[order] : 0;
}

/* pcp_count - blocks on one list now: a relaxed read, exact when the
 * list's CPU is quiet. Any context. */
int pcp_count(int nid, int cpu, unsigned int order)
{
	if (order >= NR_PCP_ORDERS)
		return 0;
	return pcp_len(&mm_zones[nid].pcp[cpu], order);
}
