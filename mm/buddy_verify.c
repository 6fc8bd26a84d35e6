/*
 * The buddy lists' consistency check, for tests and the self-test: every
 * free block is the head of an aligned block of its order, its pages are
 * not marked in use, its buddy is not a free block of the same order (it
 * would have merged), and the counters agree with the lists. Kept apart
 * from buddy.c so the allocator reads alone, and so that a lab replacing
 * buddy.c (labs/) is checked by this code, not by its own.
 */
#include "debug.h"
#include "zone.h"

static long verify_block(struct zone *z, struct page *page, unsigned int o)
{
	if (page < z->mem_map || page >= z->mem_map + z->spanned_pages) {
		mm_printf(
			"mm: verify: node %d order %u: page outside mem_map\n",
			z->nid, o);
		return -1;
	}
	unsigned long pfn = z->start_pfn + (unsigned long)(page - z->mem_map);
	if (!(page->flags & PG_buddy) || page->buddy_order != o + 1 ||
	    page->order != o || (pfn & ((1UL << o) - 1)) ||
	    !zone_spans_pfn(z, pfn + (1UL << o) - 1)) {
		mm_printf("mm: verify: node %d pfn %#lx order %u: bad head\n",
			  z->nid, pfn, o);
		return -1;
	}
	for (unsigned long i = 1; i < (1UL << o); i++) {
		if (page[i].buddy_order ||
		    (page[i].flags & (PG_reserved | PG_buddy | PG_pcp))) {
			mm_printf(
				"mm: verify: pfn %#lx inside free block %#lx\n",
				pfn + i, pfn);
			return -1;
		}
	}
	struct page *buddy =
		o < MAX_ORDER && zone_spans_pfn(z, pfn ^ (1UL << o))
			? zone_pfn_page(z, pfn ^ (1UL << o))
			: NULL;
	if (buddy && buddy->buddy_order == o + 1) {
		mm_printf(
			"mm: verify: pfn %#lx order %u: buddy left unmerged\n",
			pfn, o);
		return -1;
	}
	return 1L << o;
}

static long verify_zone(struct zone *z)
{
	long pages = 0;
	for (unsigned int o = 0; o <= MAX_ORDER; o++) {
		unsigned long blocks = 0;
		struct list_head *pos;
		list_for_each (pos, &z->free_area[o].free_list) {
			long n = verify_block(
				z, list_entry(pos, struct page, lru), o);
			if (n < 0)
				return -1;
			pages += n;
			blocks++;
		}
		if (blocks != z->free_area[o].nr_free) {
			mm_printf("mm: verify: node %d order %u: %lu blocks, "
				  "nr_free says %lu\n",
				  z->nid, o, blocks, z->free_area[o].nr_free);
			return -1;
		}
	}
	if (pages != atomic_load(&z->free_pages)) {
		mm_printf("mm: verify: node %d: %ld free pages listed, "
			  "counter says %ld\n",
			  z->nid, pages, atomic_load(&z->free_pages));
		return -1;
	}
	return pages;
}

long mm_verify_free_lists(void)
{
	long total = 0;
	for (int n = 0; n < mm_nr_zones; n++) {
		struct zone *z = &mm_zones[n];
		unsigned long flags = mm_spin_lock_irqsave(&z->lock);
		long pages = verify_zone(z);
		mm_spin_unlock_irqrestore(&z->lock, flags);
		if (pages < 0)
			return -1;
		total += pages;
	}
	return total;
}
