/*
 * The page allocator's front door: alloc_pages*, the one shared free path,
 * NUMA fallback and the debug checks on free. Walk-through and measured
 * figures: docs/page_alloc.md.
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
 * Free: __free_pages, free_pages and put_page all end in the same free
 * path: small orders go to this CPU's per-CPU list of the page's zone (so
 * that order-0 frees from TX completion or page_frag_free stay off the
 * zone lock), larger orders straight to the buddy lists. One function
 * (free_the_page_general, with its common case inline in free_the_page),
 * so the two paths can never drift apart.
 *
 * Fast and general paths: the common case (a PCP order from this CPU's
 * own node, no __GFP_ZERO/__GFP_COMP, the list's lock free, debug off) is
 * inline in alloc_pages_fast() and free_pages_caller(): a trylock, a pop
 * or push, one counter add, and no call that returns, so no saved
 * registers. Everything else (fallback, failure injection, debug checks,
 * rare frees) is one out-of-line call away and uses the same lists. With
 * one path for all, an order-0 alloc+free took 251 guest instructions and
 * the per-CPU lists saved little over the buddy lists; split, it takes 99
 * (docs/page_alloc.md, section 3).
 *
 * Context: any. Nothing here sleeps; a held per-CPU list is never waited
 * for (pcp.c), and the zone lock is taken with interrupts masked.
 */
#include <string.h>

#include "debug.h"
#include "fault_inject.h"
#include "mm_trace.h"
#include "page_debug.h"
#include "pcp.h"

/* Trace points (mm_trace.h): while the mm class records, every call
 * takes the general paths, which record them. */
TRACE_EVENT(ev_page_alloc, TRACE_MM, "page_alloc", {"page", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"order", TRACE_DEC}, {"node", TRACE_DEC});
TRACE_EVENT(ev_page_free, TRACE_MM, "page_free", {"page", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"order", TRACE_DEC}, {"node", TRACE_DEC});
TRACE_EVENT(ev_page_alloc_bulk, TRACE_MM, "page_alloc_bulk",
	    {"first", TRACE_HEX}, {"caller", TRACE_SYM}, {"asked", TRACE_DEC},
	    {"got", TRACE_DEC});

/* A block's event: its address and node (a failed allocation: 0, and
 * the node 0xffff). */
static void trace_block(const struct trace_desc *ev, const struct page *page,
			unsigned int order, const void *caller)
{
	mm_trace(ev, page ? (uintptr_t)page_address(page) : 0,
		 (uintptr_t)caller, order, page ? (uint32_t)page->nid : 0xffff);
}

static bool pcp_on(void)
{
	return atomic_load_explicit(&mm_pcp_enabled, memory_order_relaxed);
}

/* One zone's block: this CPU's list when the order has one and its lock
 * is free, else the buddy lists (pcp.c: a held lock is never waited for). */
static struct page *rmqueue(struct zone *z, int cpu, unsigned int order)
{
	if (order <= PCP_MAX_ORDER && pcp_on()) {
		struct per_cpu_pages *pcp = &z->pcp[cpu];
		if (mm_likely(pcp_trylock(pcp)))
			return pcp_alloc_locked(z, pcp, order);
		mm_stat_add(&pcp->stats.busy, 1);
	}
	return buddy_alloc(z, order);
}

/*
 * rmqueue(), and when the zone has nothing, its next deferred chunk
 * initialised here and now (page_init.c) before anything else is tried:
 * early in a big machine's life most of a zone still waits to be
 * initialised, and a remote node or a failure would be the wrong answer.
 */
static struct page *rmqueue_or_grow(struct zone *z, int cpu, unsigned int order)
{
	struct page *page = rmqueue(z, cpu, order);

	while (mm_unlikely(!page) && zone_grow(z))
		page = rmqueue(z, cpu, order);
	return page;
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
		struct page *page = rmqueue_or_grow(z, cpu, order);
		if (page)
			return page;
	}
	return NULL;
}

/*
 * The preferred zone had nothing. With __GFP_NORETRY that was the one
 * try. Otherwise try the other nodes nearest first (not with
 * __GFP_THISNODE); then drain every per-CPU list (pages parked there are
 * free too) and walk the zonelist once more.
 */
static struct page *alloc_pages_fallback(int cpu, int nid, gfp_t gfp,
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

/*
 * Make a block from the lists into an allocated one: no flags (PG_pcp or
 * nothing before), its order, one reference, the owner's fields zero.
 */
static inline void prep_page(struct page *page, unsigned int order)
{
	page->flags = 0;
	page->order = (uint8_t)order;
	page->slab_cache = NULL;
	page->freelist = NULL;
	page->inuse = 0;
	page->objects = 0;
	atomic_store_explicit(&page->_refcount, 1, memory_order_relaxed);
}

/*
 * prep_page() for a block from a per-CPU list, which already carries its
 * order (the list's): one store fewer on the fast paths. Nor does it
 * clear freelist, inuse and objects: only the slab writes them, and it
 * sets them back to 0 when it gives a page back (slab_discard in
 * mm/slab.c), so a free page always has them 0 (the first word of the
 * union, slab_cache, is also compound_head and private, which others
 * write: that one is cleared). Two guest instructions per alloc_pages.
 */
static inline void prep_pcp_page(struct page *page)
{
	page->flags = 0;
	page->slab_cache = NULL;
	atomic_store_explicit(&page->_refcount, 1, memory_order_relaxed);
}

/* The fast path's end with the debug checks on: the poison checked
 * (page_debug.c) before prep_pcp_page() clears the stamp's caller. */
static __attribute__((noinline)) struct page *
alloc_pcp_checked(struct page *page, unsigned int order, const void *caller)
{
	page_debug_check(page, order, caller);
	prep_pcp_page(page);
	return page;
}

/* prep_page() plus what gfp asks for: compound tails, zeroed memory. */
static void prep_new_page(struct page *page, unsigned int order, gfp_t gfp)
{
	prep_page(page, order);
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

/*
 * alloc_pages_general - everything the fast path leaves out: a bad node
 * or order, __GFP_COMP/__GFP_ZERO, an empty or busy per-CPU list, orders
 * the lists do not hold, the PCP switched off, fallback and failure.
 * Out of line so that alloc_pages_node() needs no saved registers.
 */
static __attribute__((noinline)) struct page *
alloc_pages_general(int nid, gfp_t gfp, unsigned int order, const void *caller)
{
	int cpu = mm_this_cpu();
	struct page *page = NULL;

	if (nid < 0)
		nid = mm_cpu_mem_node[cpu];
	if (mm_unlikely(nid >= mm_nr_zones)) {
		mm_printf("mm: alloc_pages_node: no node %d (%d nodes)\n", nid,
			  mm_nr_zones);
		return NULL;
	}
	if (mm_unlikely(order > MAX_ORDER)) {
		alloc_failed(nid, gfp, order);
		return NULL;
	}
	struct zone *z = &mm_zones[nid];
	if (mm_likely(z->managed_pages))
		page = rmqueue_or_grow(z, cpu, order);
	if (mm_unlikely(!page)) {
		page = alloc_pages_fallback(cpu, nid, gfp, order);
		if (!page) {
			alloc_failed(nid, gfp, order);
			return NULL;
		}
	}
	page_debug_on_alloc(page, order, caller);
	prep_new_page(page, order, gfp);
	numa_count_alloc(cpu, nid, page->nid, 1UL << order);
	return page;
}

/* fail_page_alloc: fail as an exhausted allocator does, counted like any
 * failure and never printed. Out of line: the fast path keeps the test. */
static __attribute__((noinline)) struct page *
alloc_pages_injected(int nid, gfp_t gfp, unsigned int order)
{
	if (nid < 0 || nid >= mm_nr_zones)
		nid = mm_cpu_mem_node[mm_this_cpu()];
	alloc_failed(nid, gfp | __GFP_NOWARN, order);
	return NULL;
}

/*
 * The fast path: a block of a PCP order from this CPU's list in its
 * memory node's zone (its own node unless that one has no memory), with
 * no gfp work to do. The list holds only that zone's pages, so the
 * allocation is a numa_hit, local or other by the CPU's node: one counter
 * add (per_cpu_pages.local_hit). Anything else (another node asked for, an
 * empty or busy list, gfp work, the PCP switched off: pcp.c keeps the
 * lists locked then) goes to alloc_pages_general(), which uses the same
 * lists.
 */
static inline __attribute__((always_inline)) struct page *
alloc_pages_fast(int nid, gfp_t gfp, unsigned int order)
{
	unsigned int cpu = (unsigned int)mm_this_cpu();

	/* fail_page_alloc armed: every call takes __alloc_pages_caller(),
	 * which asks the injection. The fast path holds no call that
	 * returns to it, so alloc_pages() saves no registers. */
	if (mm_likely(!mm_fault_armed_any() && !mm_tracing() &&
		      (nid < 0 || nid == mm_cpu_mem_node[cpu]) &&
		      order <= PCP_MAX_ORDER &&
		      !(gfp & (__GFP_COMP | __GFP_ZERO)))) {
		struct per_cpu_pages *pcp = mm_cpu_pcp[cpu];
		if (mm_likely(pcp_trylock(pcp))) {
			int n = pcp_len(pcp, order);
			if (mm_likely(n > 0)) {
				/* local_hit is also this list's alloc_hit
				 * (pcp_alloc_hits): one add, not two. */
				mm_stat_add(&pcp->local_hit[order], 1);
				struct page *page = pcp_take(pcp, order, n);
				mm_spin_unlock(&pcp->lock);
				/* A tail call, the return address taken only
				 * there: the fast path pays the flag test. */
				if (mm_unlikely(mm_debug_on()))
					return alloc_pcp_checked(
						page, order,
						__builtin_return_address(0));
				prep_pcp_page(page);
				return page;
			}
			mm_spin_unlock(&pcp->lock);
		}
	}
	return __alloc_pages_caller(nid, gfp, order,
				    __builtin_return_address(0));
}

/* alloc_pages_fast() is always inline: its __builtin_return_address(0)
 * is the caller of these two. */
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	return alloc_pages_fast(nid, gfp, order);
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return alloc_pages_fast(-1, gfp, order);
}

/* The general path whole, failure injection first (kmalloc's large blocks
 * are compound: they never take the fast path). Also the fast path's way
 * out, by a tail call: out of line, or the injection's call would be
 * inline in alloc_pages() again. */
__attribute__((noinline)) struct page *
__alloc_pages_caller(int nid, gfp_t gfp, unsigned int order, const void *caller)
{
	struct page *page;

	if (mm_fault_should_fail(MM_FAULT_PAGE))
		page = alloc_pages_injected(nid, gfp, order);
	else
		page = alloc_pages_general(nid, gfp, order, caller);
	trace_block(&ev_page_alloc, page, order, caller);
	return page;
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
		do {
			n += pcp_on()
				     ? pcp_alloc_bulk(z, cpu, nr - n, pages + n)
				     : buddy_alloc_bulk(z, nr - n, pages + n);
		} while (n < nr && zone_grow(z)); /* as rmqueue_or_grow */
	}
	return n;
}

/* The rest of a bulk allocation, the general way: every zone of the
 * zonelist under one lock each, a drain and a second pass if short.
 * `have` pages are already in hand (a failure is one that got none). */
static __attribute__((noinline)) unsigned int
alloc_pages_bulk_general(int cpu, gfp_t gfp, unsigned int nr,
			 struct page **pages, unsigned int have,
			 const void *caller)
{
	int nid = mm_cpu_mem_node[cpu];
	unsigned int n = bulk_from_zonelist(cpu, nid, gfp, nr, pages);
	if (mm_unlikely(n < nr) && !(gfp & __GFP_NORETRY)) {
		drain_all_pages();
		n += bulk_from_zonelist(cpu, nid, gfp, nr - n, pages + n);
	}
	for (unsigned int i = 0; i < n; i++) {
		page_debug_on_alloc(pages[i], 0, caller);
		prep_new_page(pages[i], 0, gfp);
		numa_count_alloc(cpu, nid, pages[i]->nid, 1);
	}
	if (mm_unlikely(n + have == 0))
		alloc_failed(nid, gfp, 0);
	return n;
}

/*
 * alloc_pages_bulk: first what this CPU's local list holds, under one
 * trylock, counted with one add of each kind (as alloc_pages_fast() does
 * for one page); the rest the general way.
 */
unsigned int alloc_pages_bulk(gfp_t gfp, unsigned int nr, struct page **pages)
{
	const void *caller = __builtin_return_address(0);
	unsigned int cpu = (unsigned int)mm_this_cpu();
	struct per_cpu_pages *pcp = mm_cpu_pcp[cpu];
	unsigned int n = 0;

	if (nr == 0)
		return 0;
	if (mm_fault_should_fail(MM_FAULT_PAGE)) {
		alloc_pages_injected(-1, gfp, 0);
		return 0;
	}
	if (mm_likely(!(gfp & __GFP_ZERO) && pcp_trylock(pcp))) {
		for (int len = pcp_len(pcp, 0); n < nr && len > 0; len--)
			pages[n++] = pcp_take(pcp, 0, len);
		mm_stat_add(&pcp->local_hit[0], n);
		mm_spin_unlock(&pcp->lock);
		for (unsigned int i = 0; i < n; i++) {
			page_debug_on_alloc(pages[i], 0, caller);
			prep_pcp_page(pages[i]);
		}
	}
	if (n < nr)
		n += alloc_pages_bulk_general((int)cpu, gfp, nr - n, pages + n,
					      n, caller);
	mm_trace(&ev_page_alloc_bulk, n ? (uintptr_t)page_address(pages[0]) : 0,
		 (uintptr_t)caller, nr, n);
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
	if (!zone_pfn_initialised(z, pfn)) {
		mm_debug_report(MM_DBG_NOT_ALLOCATED, caller,
				"pfn %#lx is in memory not yet initialised "
				"(deferred): never handed out",
				pfn);
		return false;
	}
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
 * free_the_page_general - the one free path, whole: the block's last
 * reference is gone. Compound tails are cleared; orders up to
 * PCP_MAX_ORDER go to this CPU's list for the page's zone (the buddy lists
 * if that list is busy), larger ones straight to the buddy lists. Any
 * context. free_the_page() below is its inline first half.
 */
static __attribute__((noinline)) void free_the_page_general(struct page *page,
							    unsigned int order)
{
	if (page->flags & PG_head) {
		for (unsigned long i = 1; i < (1UL << order); i++) {
			page[i].flags = 0;
			page[i].compound_head = NULL;
		}
	}
	if (order <= PCP_MAX_ORDER && pcp_on()) {
		struct per_cpu_pages *pcp =
			&page_zone(page)->pcp[mm_this_cpu()];
		if (mm_likely(pcp_trylock(pcp))) {
			pcp_free_locked(pcp, page, order);
			return;
		}
		mm_stat_add(&pcp->stats.busy, 1);
	}
	page->flags = 0;
	buddy_free(page_zone(page), page, order);
}

/*
 * free_the_page - the common case of free_the_page_general() inline: a
 * block of a PCP order that is not compound goes onto this CPU's list of
 * its zone if the lock is free. The same list code (pcp_free_locked)
 * either way.
 */
static inline void free_the_page(struct page *page, unsigned int order)
{
	/* No test of the PCP switch: off, the lists stay locked (pcp.c). */
	if (mm_likely(order <= PCP_MAX_ORDER && !(page->flags & PG_head))) {
		struct per_cpu_pages *pcp =
			mm_zone_pcp[page->nid] + (unsigned int)mm_this_cpu();
		if (mm_likely(pcp_trylock(pcp))) {
			pcp_free_locked(pcp, page, order);
			return;
		}
	}
	free_the_page_general(page, order);
}

/* A reference dropped from a block that had none: freed already. */
static __attribute__((noinline)) void page_put_unowned(struct page *page,
						       const void *caller)
{
	mm_debug_report(MM_DBG_DOUBLE_FREE, caller,
			"pfn %#lx order %u: free of a block with no reference "
			"left (freed already); refused",
			page_to_pfn(page), page->order);
}

/*
 * Drop the caller's reference if it is the only one; true if it was. A
 * count of 1 means no other CPU may touch the count: no locked
 * read-modify-write (the acquire load still orders the earlier puts of
 * other CPUs before the free). page_pool reuses pages on the same
 * reasoning.
 */
static inline bool put_page_sole(struct page *page)
{
	if (atomic_load_explicit(&page->_refcount, memory_order_acquire) != 1)
		return false;
	atomic_store_explicit(&page->_refcount, 0, memory_order_relaxed);
	return true;
}

/*
 * Drop one reference; true when it was the last. A count that was
 * already 0 or less is a free of a freed block, in every build: put
 * back, reported, refused.
 */
static inline bool put_page_testzero(struct page *page, const void *caller)
{
	if (put_page_sole(page))
		return true;
	int old = atomic_fetch_sub_explicit(&page->_refcount, 1,
					    memory_order_acq_rel);
	if (mm_unlikely(old <= 0)) {
		atomic_fetch_add_explicit(&page->_refcount, 1,
					  memory_order_relaxed);
		page_put_unowned(page, caller);
		return false;
	}
	return old == 1;
}

/* A free with the debug checks on (or a bad order): checked, reported and
 * refused if wrong, poisoned and stamped with @caller (page_debug.c checks
 * the poison when the pages are handed out again), then the same free
 * path. */
static __attribute__((noinline)) void
free_pages_checked(struct page *page, unsigned int order, const void *caller)
{
	if (order > MAX_ORDER) {
		mm_debug_report(MM_DBG_WRONG_ORDER, caller,
				"order %u is above MAX_ORDER", order);
		return;
	}
	if (!free_check(page, order, caller) ||
	    !put_page_testzero(page, caller))
		return;
	trace_block(&ev_page_free, page, order, caller);
	page_debug_poison(page, order, caller);
	free_the_page_general(page, order);
}

/* Every free but the fast path's: a shared block, a large order, the
 * debug checks, a block freed already, the mm class tracing. */
static __attribute__((noinline)) void
free_pages_slow(struct page *page, unsigned int order, const void *caller)
{
	if (order > MAX_ORDER || mm_debug_on()) {
		free_pages_checked(page, order, caller);
		return;
	}
	if (put_page_testzero(page, caller)) {
		trace_block(&ev_page_free, page, order, caller);
		free_the_page_general(page, order);
	}
}

/*
 * The fast path: the caller's was the only reference to a block of a PCP
 * order, debug off. Nothing else inline, so that the caller's address is
 * taken only on the way to free_pages_slow (taken at the top, for the
 * slow cases inline here, it was 2 guest instructions per __free_pages).
 */
static inline __attribute__((always_inline)) void
free_pages_caller(struct page *page, unsigned int order, const void *caller)
{
	if (mm_likely(order <= PCP_MAX_ORDER && !mm_debug_on() &&
		      !mm_tracing() && put_page_sole(page))) {
		free_the_page(page, order);
		return;
	}
	free_pages_slow(page, order, caller);
}

void __free_pages(struct page *page, unsigned int order)
{
	free_pages_caller(page, order, __builtin_return_address(0));
}

void __free_pages_caller(struct page *page, unsigned int order,
			 const void *caller)
{
	free_pages_caller(page, order, caller);
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

bool page_block_is_free(struct page *page)
{
	struct zone *z = page_zone(page);
	unsigned long pfn = page_to_pfn(page);
	bool free = false;
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);

	/* The head of any block containing pfn is pfn with its low o bits
	 * cleared, for the block's order o: try every order. */
	for (unsigned int o = 0; o <= MAX_ORDER && !free; o++) {
		unsigned long h = pfn & ~((1UL << o) - 1);
		if (!zone_spans_pfn(z, h))
			break;
		const struct page *hp = zone_pfn_page(z, h);
		free = (hp->buddy_order && hp->buddy_order - 1u >= o) ||
		       ((hp->flags & PG_pcp) && hp->order >= o);
	}
	mm_spin_unlock_irqrestore(&z->lock, flags);
	return free;
}

unsigned long nr_free_pages(void)
{
	long sum = 0;
	for (int i = 0; i < mm_nr_zones; i++)
		sum += atomic_load_explicit(&mm_zones[i].free_pages,
					    memory_order_relaxed);
	return sum > 0 ? (unsigned long)sum : 0;
}
