/*
 * Lab pcp: per-CPU page lists with batch and high (docs/labs/pcp.md).
 * This file replaces mm/pcp.c in the host library when you run
 * make lab-pcp; your copy is in labs/work/.
 *
 * Each CPU keeps, per zone and per order 0..PCP_MAX_ORDER, a short list
 * of free blocks in front of the buddy lists, so that most allocations
 * and frees touch only that CPU's cache lines and not the zone lock that
 * every CPU shares. The fast paths are inline in mm/pcp.h: they pop and
 * push the list head under the list's own lock. You write the slow
 * halves, the only places that take the zone lock, in the three
 * functions marked LAB_TODO (the rest of the file is given):
 *  - pcp_zone_limits: each order's high and batch for a zone;
 *  - pcp_refill: an empty list takes up to `batch` blocks from the buddy
 *    lists in one zone-lock hold;
 *  - pcp_free_tail: a list gives its n coldest blocks (its tail) back.
 * The hot end is the head (mm/pcp.h takes and puts there).
 *
 * A block on a list has flags PG_pcp and page->order set to the list's
 * order; on the buddy lists it is the buddy allocator's (mm/buddy.c:
 * __rmqueue, __free_one_page, which want flags 0 on what they are given).
 * Lock order: pcp->lock, then z->lock, always with
 * mm_spin_lock_irqsave.
 */
#include "mm_trace.h"
#include "lab_todo.h"
#include "pcp.h"

/* Given: the trace point (mm_trace.h) of drain_all_pages. */
TRACE_EVENT(ev_drain_all, TRACE_MM, "drain_all_pages", {"caller", TRACE_SYM});

atomic_bool mm_pcp_enabled = PCP_ENABLED_DEFAULT != 0;

static const int pcp_default_batch[NR_PCP_ORDERS] = {
	PCP_BATCH_ORDER0, PCP_BATCH_ORDER1, PCP_BATCH_ORDER2, PCP_BATCH_ORDER3};
static const int pcp_default_high[NR_PCP_ORDERS] = {
	PCP_HIGH_ORDER0, PCP_HIGH_ORDER1, PCP_HIGH_ORDER2, PCP_HIGH_ORDER3};

/*
 * pcp_zone_limits - z->pcp_high[o] and z->pcp_batch[o] for every order o
 * of the lists: the tunables' values (pcp_default_high, _batch), cut so
 * that all CPUs' lists of all orders together hold at most
 * 1/PCP_ZONE_SHARE of the zone's managed pages (a small zone must not
 * vanish into per-CPU lists), and a batch at most half of high, at least
 * 1.
 */
static void pcp_zone_limits(struct zone *z)
{
	LAB_TODO("pcp");
	(void)pcp_default_batch;
	(void)pcp_default_high;
	for (int o = 0; o < NR_PCP_ORDERS; o++) {
		z->pcp_high[o] = 0;
		z->pcp_batch[o] = 1;
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

/*
 * pcp_refill - move up to z->pcp_batch[order] blocks from the buddy lists
 * (__rmqueue) to the tail of the list, in one hold of the zone lock;
 * pcp->lock held. Each block gets PG_pcp and its order. Returns the
 * list's new length (pcp_len, pcp_set_len) and counts one refill in
 * pcp->stats.refill.
 */
static int pcp_refill(struct zone *z, struct per_cpu_pages *pcp,
		      unsigned int order)
{
	LAB_TODO("pcp");
	(void)z;
	return pcp_len(pcp, order);
}

/*
 * pcp_free_tail - give the n coldest blocks (from the list's tail) back
 * to the buddy lists (__free_one_page, flags 0 first), in one hold of the
 * zone lock; pcp->lock held. Fewer if the list is shorter. Sets the
 * list's new length and counts one drain in pcp->stats.drain.
 */
static void pcp_free_tail(struct zone *z, struct per_cpu_pages *pcp,
			  unsigned int order, int n)
{
	LAB_TODO("pcp");
	(void)z;
	(void)pcp;
	(void)order;
	(void)n;
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
