/*
 * The buddy allocator: one zone per NUMA node, free blocks of 2^order pages
 * (order 0..MAX_ORDER) on one list per order.
 *
 * A block of order k starts at a pfn that is a multiple of 2^k. Its "buddy"
 * is the other half of the order k+1 block that contains it, found by
 * flipping one bit: buddy_pfn = pfn ^ (1 << k). Allocation takes the
 * smallest free block that fits and splits it, putting each unused upper
 * half back on the list one order down. Freeing looks at the buddy: if it is
 * a free block of the same order the two merge, and again one order up, so
 * free memory returns to large blocks by itself.
 *
 * Every frame has a struct page in its node's mem_map (mm/page.h); the
 * zones, their mem_maps and the first free lists are built at boot by
 * mm/mm_init.c. Frames in holes or reserved ranges stay PG_reserved and
 * never reach a free list.
 *
 * All functions named __x here run with zone->lock held.
 */
#include "zone.h"

struct zone mm_zones[MM_MAX_NODES];
int mm_nr_zones;

/* The address lookups' tables (mm/page.h), filled by mm_init() beside the
 * zones. They live here, with the zones, and not in mm_init.c: every
 * allocator reads them, and mm_init calls up into every allocator (to
 * forget a previous machine), so there they would close a circle. */
struct mm_pfn_map mm_pfn_maps[MM_MAX_RANGES];
int mm_nr_pfn_maps;
struct mm_pfn_map mm_node_pfn_maps[MM_MAX_NODES];

static void set_free_block(struct zone *z, struct page *page,
			   unsigned int order)
{
	page->flags = PG_buddy;
	page->order = (uint8_t)order;
	page->buddy_order = (uint8_t)(order + 1);
	list_add(&page->lru, &z->free_area[order].free_list);
	z->free_area[order].nr_free++;
}

static void take_free_block(struct zone *z, struct page *page,
			    unsigned int order)
{
	list_del(&page->lru);
	z->free_area[order].nr_free--;
	page->flags = 0;
	page->buddy_order = 0;
}

static void zone_free_pages_add(struct zone *z, long n)
{
	/* Written only under zone->lock, read without it: load + store. */
	atomic_store_explicit(
		&z->free_pages,
		atomic_load_explicit(&z->free_pages, memory_order_relaxed) + n,
		memory_order_relaxed);
}

/*
 * __rmqueue - take a block of 2^order pages off the buddy lists, splitting
 * a larger one if needed. Zone lock held. Returns the head page (flags 0)
 * or NULL when no block of that order or larger is free.
 */
struct page *__rmqueue(struct zone *z, unsigned int order)
{
	for (unsigned int o = order; o <= MAX_ORDER; o++) {
		struct free_area *fa = &z->free_area[o];
		if (list_empty(&fa->free_list))
			continue;
		struct page *page =
			list_first_entry(&fa->free_list, struct page, lru);
		take_free_block(z, page, o);
		/* Give back the upper halves, largest first. */
		while (o > order) {
			o--;
			set_free_block(z, page + (1UL << o), o);
		}
		zone_free_pages_add(z, -(1L << order));
		return page;
	}
	return NULL;
}

/*
 * __free_one_page - put a block back and merge it with its free buddies.
 * Zone lock held; page is the head of a block of 2^order pages of zone z.
 */
void __free_one_page(struct zone *z, struct page *page, unsigned int order)
{
	unsigned long pfn = z->start_pfn + (unsigned long)(page - z->mem_map);

	zone_free_pages_add(z, 1L << order);
	while (order < MAX_ORDER) {
		unsigned long buddy_pfn = pfn ^ (1UL << order);
		if (!zone_spans_pfn(z, buddy_pfn))
			break;
		struct page *buddy = zone_pfn_page(z, buddy_pfn);
		/* Only buddy_order: the buddy may be someone's page. */
		if (buddy->buddy_order != order + 1)
			break;
		take_free_block(z, buddy, order);
		pfn &= ~(1UL << order);
		order++;
	}
	set_free_block(z, zone_pfn_page(z, pfn), order);
}

/* buddy_alloc - one block straight from the buddy lists. Any context. */
struct page *buddy_alloc(struct zone *z, unsigned int order)
{
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	struct page *page = __rmqueue(z, order);
	mm_spin_unlock_irqrestore(&z->lock, flags);
	return page;
}

/* buddy_free - one block straight back to the buddy lists. Any context. */
void buddy_free(struct zone *z, struct page *page, unsigned int order)
{
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	__free_one_page(z, page, order);
	mm_spin_unlock_irqrestore(&z->lock, flags);
}

/* buddy_alloc_bulk - up to nr order-0 pages under one lock acquisition. */
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

/* ---- per-node figures ---- */

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
