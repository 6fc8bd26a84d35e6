/*
 * Lab buddy: the buddy allocator's split and merge (docs/labs/buddy.md).
 * This file replaces mm/buddy.c in the host library when you run
 * make lab-buddy; your copy is labs/work/buddy.c.
 *
 * One zone per NUMA node keeps free blocks of 2^order pages (order
 * 0..MAX_ORDER) on one list per order, z->free_area[order]. A block of
 * order k starts at a pfn that is a multiple of 2^k; its buddy is the other
 * half of the order k+1 block that contains it: buddy_pfn = pfn ^ (1 << k).
 *
 * You write the two functions marked LAB_TODO:
 *  - __rmqueue: take the smallest free block that fits and split it,
 *    giving each unused upper half back one order down;
 *  - __free_one_page: give a block back, merging it with its buddy for as
 *    long as the buddy is free and of the same order.
 * set_free_block() and take_free_block() keep a free block's struct page
 * and the lists' counts right; use them for every list change.
 *
 * All functions named __x here run with zone->lock held.
 */
#include "lab_todo.h"
#include "zone.h"

/* Given: the zones and the address lookups' tables (mm/page.h). Every
 * allocator reads them; they live with the zones. */
struct zone mm_zones[MM_MAX_NODES];
int mm_nr_zones;
struct mm_pfn_map mm_pfn_maps[MM_MAX_RANGES];
int mm_nr_pfn_maps;
struct mm_pfn_map mm_node_pfn_maps[MM_MAX_NODES];

/* Given: page becomes the head of a free block of order on its list.
 * buddy_order = order + 1 is how a neighbour recognises a free block
 * (0: not a free block's head, whatever else the page holds). */
static void set_free_block(struct zone *z, struct page *page,
			   unsigned int order)
{
	page->flags = PG_buddy;
	page->order = (uint8_t)order;
	page->buddy_order = (uint8_t)(order + 1);
	list_add(&page->lru, &z->free_area[order].free_list);
	z->free_area[order].nr_free++;
}

/* Given: the free block of order headed by page leaves its list. */
static void take_free_block(struct zone *z, struct page *page,
			    unsigned int order)
{
	list_del(&page->lru);
	z->free_area[order].nr_free--;
	page->flags = 0;
	page->buddy_order = 0;
}

/* Given: z->free_pages += n (pages on the buddy lists; read without the
 * lock by nr_free_pages(), so one relaxed store). */
static void zone_free_pages_add(struct zone *z, long n)
{
	atomic_store_explicit(
		&z->free_pages,
		atomic_load_explicit(&z->free_pages, memory_order_relaxed) + n,
		memory_order_relaxed);
}

/*
 * __rmqueue - take a block of 2^order pages off the buddy lists, splitting
 * a larger one if needed. Zone lock held. Returns the head page (flags 0)
 * or NULL when no block of that order or larger is free.
 *
 * The block returned starts at a pfn that is a multiple of 2^order; the
 * pages split off stay free, on their lists; z->free_pages drops by
 * 2^order.
 */
struct page *__rmqueue(struct zone *z, unsigned int order)
{
	LAB_TODO("buddy");
	(void)z;
	(void)order;
	(void)take_free_block;
	return NULL;
}

/*
 * __free_one_page - put a block back and merge it with its free buddies.
 * Zone lock held; page is the head of a block of 2^order pages of zone z.
 *
 * The pfn of a page is z->start_pfn + (page - z->mem_map); a pfn outside
 * the zone (zone_spans_pfn) has no struct page to look at. z->free_pages
 * grows by 2^order.
 */
void __free_one_page(struct zone *z, struct page *page, unsigned int order)
{
	LAB_TODO("buddy");
	(void)z;
	(void)page;
	(void)order;
	(void)set_free_block;
	(void)zone_free_pages_add;
}

/* Given: one block straight from the buddy lists. Any context. */
struct page *buddy_alloc(struct zone *z, unsigned int order)
{
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	struct page *page = __rmqueue(z, order);
	mm_spin_unlock_irqrestore(&z->lock, flags);
	return page;
}

/* Given: one block straight back to the buddy lists. Any context. */
void buddy_free(struct zone *z, struct page *page, unsigned int order)
{
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	__free_one_page(z, page, order);
	mm_spin_unlock_irqrestore(&z->lock, flags);
}

/* Given: up to nr order-0 pages under one lock acquisition. */
unsigned int buddy_alloc_bulk(struct zone *z, unsigned int nr,
			      struct page **pages)
{
	unsigned int n = 0;
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	while (n < nr) {
		struct page *page = __rmqueue(z, 0);
		if (!page)
			break;
		pages[n++] = page;
	}
	mm_spin_unlock_irqrestore(&z->lock, flags);
	return n;
}

/* Given: the per-node figures. */
unsigned long nr_free_pages_node(int nid)
{
	long n;

	if (nid < 0 || nid >= mm_nr_zones)
		return 0;
	n = atomic_load_explicit(&mm_zones[nid].free_pages,
				 memory_order_relaxed);
	return n > 0 ? (unsigned long)n : 0;
}

unsigned long nr_managed_pages_node(int nid)
{
	return nid >= 0 && nid < mm_nr_zones ? mm_zones[nid].managed_pages : 0;
}
