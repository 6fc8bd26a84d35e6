/*
 * The page allocator's front door: alloc_pages*, the one shared free path,
 * NUMA fallback and the debug checks on free.
 *
 * Allocation: pick the preferred node (the caller's, or the current CPU's
 * memory node: its own, or the nearest with memory if it has none),
 * then walk its zonelist nearest first (numa.c). In each zone, orders
 * 0..PCP_MAX_ORDER come from this CPU's per-CPU list (pcp.c), larger ones
 * from the buddy lists (buddy.c). If every zone fails, the slow path drains
 * all per-CPU lists back to the buddy lists and tries once more.
 * __GFP_NORETRY stops after the preferred zone: no other node, no drain.
 * Failure returns NULL, is counted per node and printed unless
 * __GFP_NOWARN; it never panics.
 *
 * Free: __free_pages, free_pages and put_page all end in free_the_page():
 * small orders go to this CPU's per-CPU list of the page's zone (so that
 * order-0 frees from TX completion or page_frag_free stay off the zone
 * lock), larger orders straight to the buddy lists. One function, so the
 * two paths can never drift apart.
 */
#include <string.h>

#include "debug.h"
#include "pcp.h"

static bool pcp_on(void)
{
	return atomic_load_explicit(&mm_pcp_enabled, memory_order_relaxed);
}

static struct page *rmqueue(struct zone *z, int cpu, unsigned int order)
{
	if (order <= PCP_MAX_ORDER && pcp_on())
		return pcp_alloc(z, cpu, order);
	return buddy_alloc(z, order);
}

/* How many zonelist entries an allocation may try: only the preferred node
 * itself with __GFP_THISNODE or __GFP_NORETRY. */
static int zonelist_tries(const struct zone *pz, gfp_t gfp)
{
	return (gfp & (__GFP_THISNODE | __GFP_NORETRY)) ? 1 : pz->nr_zonelist;
}

/* Walk the preferred node's zonelist from entry `from`. */
static struct page *get_page_from_zonelist(int cpu, int nid, gfp_t gfp,
					   unsigned int order, int from)
{
	const struct zone *pz = &mm_zones[nid];
	int tries = zonelist_tries(pz, gfp);

	for (int i = from; i < tries; i++) {
		struct zone *z = &mm_zones[pz->zonelist[i]];
		if (!z->managed_pages)
			continue;
		struct page *page = rmqueue(z, cpu, order);
		if (page)
			return page;
	}
	return NULL;
}

/*
 * Slow path: the preferred zone had nothing. With __GFP_NORETRY that was
 * the one try. Otherwise try the other nodes nearest first (not with
 * __GFP_THISNODE); then drain every per-CPU list (pages parked there are
 * free too) and walk the zonelist once more.
 */
static struct page *alloc_pages_slowpath(int cpu, int nid, gfp_t gfp,
					 unsigned int order)
{
	if (gfp & __GFP_NORETRY)
		return NULL;
	struct page *page = get_page_from_zonelist(cpu, nid, gfp, order, 1);
	if (!page) {
		drain_all_pages();
		page = get_page_from_zonelist(cpu, nid, gfp, order, 0);
	}
	return page;
}

/* Make a block from the lists into an allocated one. */
static void prep_new_page(struct page *page, unsigned int order, gfp_t gfp)
{
	page->flags = 0;
	page->order = (uint8_t)order;
	page->slab_cache = NULL;
	page->freelist = NULL;
	page->inuse = 0;
	page->objects = 0;
	atomic_store_explicit(&page->_refcount, 1, memory_order_relaxed);
	if ((gfp & __GFP_COMP) && order > 0) {
		page->flags = PG_head;
		for (unsigned long i = 1; i < (1UL << order); i++) {
			page[i].flags = PG_tail;
			page[i].compound_head = page;
		}
	}
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, MM_PAGE_SIZE << order);
}

static void alloc_failed(int nid, gfp_t gfp, unsigned int order)
{
	atomic_fetch_add_explicit(&mm_zones[nid].alloc_fail, 1,
				  memory_order_relaxed);
	if (!(gfp & __GFP_NOWARN))
		mm_printf("mm: page allocation failure: order %u, node %d, "
			  "gfp %#x, %lu pages free\n",
			  order, nid, gfp, nr_free_pages());
}

/* Report a bad node id (bad input: a clear message, then NULL). */
static struct page *bad_node(int nid)
{
	mm_printf("mm: alloc_pages_node: no node %d (%d nodes)\n", nid,
		  mm_nr_zones);
	return NULL;
}

struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	int cpu = mm_cpu_slot();
	struct page *page = NULL;

	if (nid < 0)
		nid = mm_cpu_mem_node[cpu];
	else if (mm_unlikely(nid >= mm_nr_zones))
		return bad_node(nid);
	if (mm_unlikely(order > MAX_ORDER)) {
		alloc_failed(nid, gfp, order);
		return NULL;
	}
	/* Fast path: the preferred zone, mostly this CPU's list. */
	struct zone *z = &mm_zones[nid];
	if (mm_likely(z->managed_pages))
		page = rmqueue(z, cpu, order);
	if (mm_unlikely(!page)) {
		page = alloc_pages_slowpath(cpu, nid, gfp, order);
		if (!page) {
			alloc_failed(nid, gfp, order);
			return NULL;
		}
	}
	prep_new_page(page, order, gfp);
	numa_count_alloc(cpu, nid, page->nid, 1UL << order);
	return page;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return alloc_pages_node(-1, gfp, order);
}

/* One pass over the zonelist, each zone under one zone-lock acquisition. */
static unsigned int bulk_from_zonelist(int cpu, int nid, gfp_t gfp,
				       unsigned int nr, struct page **pages)
{
	const struct zone *pz = &mm_zones[nid];
	int tries = zonelist_tries(pz, gfp);
	unsigned int n = 0;

	for (int i = 0; i < tries && n < nr; i++) {
		struct zone *z = &mm_zones[pz->zonelist[i]];
		if (!z->managed_pages)
			continue;
		n += pcp_on() ? pcp_alloc_bulk(z, cpu, nr - n, pages + n)
			      : buddy_alloc_bulk(z, nr - n, pages + n);
	}
	return n;
}

unsigned int alloc_pages_bulk(gfp_t gfp, unsigned int nr, struct page **pages)
{
	int cpu = mm_cpu_slot();
	int nid = mm_cpu_mem_node[cpu];
	if (nr == 0)
		return 0;
	unsigned int n = bulk_from_zonelist(cpu, nid, gfp, nr, pages);
	if (mm_unlikely(n < nr) && !(gfp & __GFP_NORETRY)) {
		drain_all_pages();
		n += bulk_from_zonelist(cpu, nid, gfp, nr - n, pages + n);
	}
	for (unsigned int i = 0; i < n; i++) {
		prep_new_page(pages[i], 0, gfp);
		numa_count_alloc(cpu, nid, pages[i]->nid, 1);
	}
	if (mm_unlikely(n == 0))
		alloc_failed(nid, gfp, 0);
	return n;
}

/* ---- free ---- */

/* The zone whose mem_map holds this struct page, by address; or NULL. */
static struct zone *zone_of_struct_page(const struct page *page)
{
	uintptr_t p = (uintptr_t)page;
	for (int i = 0; i < mm_nr_zones; i++) {
		struct zone *z = &mm_zones[i];
		uintptr_t base = (uintptr_t)z->mem_map;
		if (p - base < z->spanned_pages * sizeof(struct page) &&
		    (p - base) % sizeof(struct page) == 0)
			return z;
	}
	return NULL;
}

/*
 * free_check - debug checks before a block is given back. Returns false
 * (after a report) when the free must be refused.
 */
static bool free_check(struct page *page, unsigned int order,
		       const void *caller)
{
	struct zone *z = zone_of_struct_page(page);
	if (!z) {
		mm_debug_report(MM_DBG_WRONG_ZONE, caller,
				"struct page %p is in no zone's mem_map",
				(void *)page);
		return false;
	}
	unsigned long pfn = z->start_pfn + (unsigned long)(page - z->mem_map);
	if (page->nid != z->nid) {
		mm_debug_report(MM_DBG_WRONG_ZONE, caller,
				"pfn %#lx is in node %d but says node %d", pfn,
				z->nid, page->nid);
		return false;
	}
	if (page->flags & (PG_buddy | PG_pcp)) {
		mm_debug_report(MM_DBG_DOUBLE_FREE, caller,
				"pfn %#lx order %u is already free", pfn,
				order);
		return false;
	}
	if ((page->flags & (PG_reserved | PG_tail)) ||
	    page_ref_count(page) <= 0) {
		mm_debug_report(MM_DBG_NOT_ALLOCATED, caller,
				"pfn %#lx (flags %#x, refcount %d) was not "
				"handed out",
				pfn, page->flags, page_ref_count(page));
		return false;
	}
	if (order != page->order || (pfn & ((1UL << order) - 1))) {
		mm_debug_report(MM_DBG_WRONG_ORDER, caller,
				"pfn %#lx freed as order %u, allocated as "
				"order %u",
				pfn, order, page->order);
		return false;
	}
	return true;
}

/*
 * free_the_page - the one free path: the block's last reference is gone.
 * Orders up to PCP_MAX_ORDER go to this CPU's list for the page's zone,
 * larger ones straight to the buddy lists. Any context.
 */
static void free_the_page(struct page *page, unsigned int order)
{
	struct zone *z = page_zone(page);

	if (page->flags & PG_head) {
		for (unsigned long i = 1; i < (1UL << order); i++) {
			page[i].flags = 0;
			page[i].compound_head = NULL;
		}
	}
	page->flags = 0;
	/* Poison so that a use after free reads an obvious pattern. */
	if (mm_unlikely(mm_debug_on()))
		memset(page_address(page), PAGE_POISON_BYTE,
		       MM_PAGE_SIZE << order);
	if (order <= PCP_MAX_ORDER && pcp_on())
		pcp_free(z, mm_cpu_slot(), page, order);
	else
		buddy_free(z, page, order);
}

/*
 * Drop one reference; true when it was the last. A count of 1 means the
 * caller holds the only reference, so no other CPU may touch the count:
 * skip the locked read-modify-write (the acquire load still orders the
 * earlier puts of other CPUs before the free). page_pool reuses pages on
 * the same reasoning.
 */
static bool put_page_testzero(struct page *page)
{
	if (atomic_load_explicit(&page->_refcount, memory_order_acquire) == 1) {
		atomic_store_explicit(&page->_refcount, 0,
				      memory_order_relaxed);
		return true;
	}
	return page_ref_dec_and_test(page);
}

static void free_pages_caller(struct page *page, unsigned int order,
			      const void *caller)
{
	if (mm_unlikely(order > MAX_ORDER)) {
		mm_debug_report(MM_DBG_WRONG_ORDER, caller,
				"order %u is above MAX_ORDER", order);
		return;
	}
	if (mm_unlikely(mm_debug_on()) && !free_check(page, order, caller))
		return;
	if (put_page_testzero(page))
		free_the_page(page, order);
}

void __free_pages(struct page *page, unsigned int order)
{
	free_pages_caller(page, order, __builtin_return_address(0));
}

void free_pages(void *addr, unsigned int order)
{
	const void *caller = __builtin_return_address(0);
	if (!addr)
		return;
	struct page *page = virt_to_page(addr);
	if (mm_unlikely(!page || ((uintptr_t)addr & (MM_PAGE_SIZE - 1)))) {
		mm_debug_report(MM_DBG_NOT_ALLOCATED, caller,
				"address %p is not a page of any zone", addr);
		return;
	}
	free_pages_caller(page, order, caller);
}

void put_page(struct page *page)
{
	struct page *head = compound_head(page);
	free_pages_caller(head, head->order, __builtin_return_address(0));
}

unsigned long nr_free_pages(void)
{
	long sum = 0;
	for (int i = 0; i < mm_nr_zones; i++)
		sum += atomic_load_explicit(&mm_zones[i].free_pages,
					    memory_order_relaxed);
	return sum > 0 ? (unsigned long)sum : 0;
}
