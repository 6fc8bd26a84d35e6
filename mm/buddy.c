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
 * Every frame has a struct page in its node's mem_map, an array carved at
 * boot out of the node's own memory (the way Linux's memblock does it), so
 * that pfn -> struct page is one subtraction and an index. Frames in holes
 * or reserved ranges stay PG_reserved and never reach a free list.
 *
 * All functions named __x here run with zone->lock held.
 */
#include <string.h>

#include "debug.h"
#include "zone.h"

struct zone mm_zones[MM_MAX_NODES];
int mm_nr_zones;
static bool mm_ready;

/* Index of the lowest set bit; pfn 0 counts as aligned to everything. */
static unsigned int pfn_align_order(unsigned long pfn)
{
	return pfn ? (unsigned int)__builtin_ctzl(pfn) : MAX_ORDER;
}

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

/* ---- pfn, address and struct page ---- */

struct mm_pfn_map mm_pfn_maps[MM_MAX_NODES];
int mm_nr_pfn_maps;

/* Publish the zones' mem_maps for the inline lookups of page_alloc.h. */
static void publish_pfn_maps(void)
{
	for (int n = 0; n < mm_nr_zones; n++)
		mm_pfn_maps[n] = (struct mm_pfn_map){
			.mem_map = mm_zones[n].mem_map,
			.start_pfn = mm_zones[n].start_pfn,
			.spanned_pages = mm_zones[n].spanned_pages,
		};
	mm_nr_pfn_maps = mm_nr_zones;
}

/* ---- boot: from mm_platform_ranges() to free lists ---- */

struct node_span {
	unsigned long start, end;	/* pfn span of the node */
	unsigned long carve_s, carve_e; /* pfns holding the mem_map */
};

static void clip_range(const struct mm_range *r, unsigned long *s,
		       unsigned long *e)
{
	*s = (r->start + MM_PAGE_SIZE - 1) >> MM_PAGE_SHIFT;
	*e = r->end >> MM_PAGE_SHIFT;
	if (*e < *s)
		*e = *s;
}

static void find_spans(const struct mm_range *r, int nr, struct node_span *sp)
{
	for (int n = 0; n < MM_MAX_NODES; n++)
		sp[n] = (struct node_span){~0UL, 0, 0, 0};
	for (int i = 0; i < nr; i++) {
		unsigned long s, e;
		clip_range(&r[i], &s, &e);
		if (r[i].nid < 0 || r[i].nid >= mm_nr_zones || s == e)
			continue;
		struct node_span *n = &sp[r[i].nid];
		n->start = s < n->start ? s : n->start;
		n->end = e > n->end ? e : n->end;
	}
}

/* Carve the node's mem_map from the first of its ranges that can hold it
 * and mark every frame of the span reserved. Returns false if none fits. */
static bool zone_setup(struct zone *z, const struct mm_range *r, int nr,
		       struct node_span *sp)
{
	unsigned long span = sp->end - sp->start;
	unsigned long need = (span * sizeof(struct page) + MM_PAGE_SIZE - 1) >>
			     MM_PAGE_SHIFT;

	for (int i = 0; i < nr; i++) {
		unsigned long s, e;
		clip_range(&r[i], &s, &e);
		if (r[i].nid != z->nid || e - s < need)
			continue;
		sp->carve_s = s;
		sp->carve_e = s + need;
		z->mem_map = (struct page *)(s << MM_PAGE_SHIFT);
		z->start_pfn = sp->start;
		z->spanned_pages = span;
		memset(z->mem_map, 0, span * sizeof(struct page));
		for (unsigned long p = 0; p < span; p++) {
			z->mem_map[p].flags = PG_reserved;
			z->mem_map[p].nid = (uint8_t)z->nid;
		}
		return true;
	}
	mm_printf("mm: node %d: no range can hold its mem_map (%lu pages)\n",
		  z->nid, need);
	return false;
}

/* Hand [s, e) to the buddy lists in the largest aligned blocks. */
static void zone_free_range(struct zone *z, unsigned long s, unsigned long e)
{
	for (unsigned long p = s; p < e; p++)
		zone_pfn_page(z, p)->flags = 0;
	z->managed_pages += e - s;
	while (s < e) {
		unsigned int order = pfn_align_order(s);
		if (order > MAX_ORDER)
			order = MAX_ORDER;
		while (s + (1UL << order) > e)
			order--;
		__free_one_page(z, zone_pfn_page(z, s), order);
		s += 1UL << order;
	}
}

static void zone_free_ranges(struct zone *z, const struct mm_range *r, int nr,
			     const struct node_span *sp)
{
	for (int i = 0; i < nr; i++) {
		unsigned long s, e;
		clip_range(&r[i], &s, &e);
		if (r[i].nid != z->nid || s == e)
			continue;
		/* Everything but the pages holding the mem_map. */
		unsigned long a = e < sp->carve_s ? e : sp->carve_s;
		if (s < a)
			zone_free_range(z, s, a);
		unsigned long b = s > sp->carve_e ? s : sp->carve_e;
		if (b < e)
			zone_free_range(z, b, e);
	}
}

/*
 * mm_init - build every zone from mm_platform_ranges(): carve each node's
 * mem_map, hand the rest to the buddy lists, set up the per-CPU lists and
 * the NUMA fallback order. Called once at boot (the host calls it again
 * after mm_host_shutdown: it starts from a clean state). Single-threaded.
 * Returns 0, or -1 when no memory could be handed out.
 */
int mm_init(void)
{
	static struct mm_range ranges[MM_MAX_RANGES];
	struct node_span spans[MM_MAX_NODES];
	int nr = mm_platform_ranges(ranges, MM_MAX_RANGES);

	memset(mm_zones, 0, sizeof(mm_zones));
	memset(mm_pfn_maps, 0, sizeof(mm_pfn_maps));
	mm_nr_pfn_maps = 0;
	memset(mm_cpu_stats, 0, sizeof(mm_cpu_stats));
	mm_nr_zones = mm_nr_nodes();
	if (mm_nr_zones > MM_MAX_NODES)
		mm_nr_zones = MM_MAX_NODES;
	find_spans(ranges, nr, spans);

	unsigned long total = 0;
	for (int n = 0; n < mm_nr_zones; n++) {
		struct zone *z = &mm_zones[n];
		z->nid = n;
		mm_spin_init(&z->lock);
		for (int o = 0; o <= MAX_ORDER; o++)
			list_init(&z->free_area[o].free_list);
		if (spans[n].end > spans[n].start &&
		    zone_setup(z, ranges, nr, &spans[n]))
			zone_free_ranges(z, ranges, nr, &spans[n]);
		pcp_zone_init(z);
		total += z->managed_pages;
	}
	publish_pfn_maps();
	numa_build_zonelists();
	atomic_store(&mm_pcp_enabled, PCP_ENABLED_DEFAULT != 0);
	mm_ready = total != 0;
	return total ? 0 : -1;
}

bool mm_is_ready(void)
{
	return mm_ready;
}

/* ---- consistency check (tests, self-test) ---- */

static long verify_block(struct zone *z, struct page *page, unsigned int o)
{
	if (page < z->mem_map || page >= z->mem_map + z->spanned_pages) {
		mm_printf(
			"mm: verify: node %d order %u: page outside mem_map\n",
			z->nid, o);
		return -1;
	}
	unsigned long pfn = page_to_pfn(page);
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
