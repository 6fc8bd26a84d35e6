/*
 * Page allocator interface: struct page and the Linux-named calls on it.
 *
 * CONTRACT HEADER written before the implementation: the page-allocator
 * work (mm/buddy.c, mm/pcp.c, ...) may turn declarations into inline
 * functions and add fields, but must keep these names and meanings, because
 * the slab, page_frag and qmempool work is written against them in parallel.
 */
#ifndef MM_PAGE_ALLOC_H
#define MM_PAGE_ALLOC_H

#include "gfp.h"
#include "list.h"
#include "platform.h"

#define MAX_ORDER     10 /* largest block: 2^10 pages = 4 MiB */
#define PCP_MAX_ORDER 3	 /* per-CPU lists hold orders 0..3 */

/* page->flags */
#define PG_buddy    0x01u /* free, on a buddy free list (head of block) */
#define PG_pcp	    0x02u /* free, on a per-CPU list (head of block) */
#define PG_reserved 0x04u /* never handed out (hole, kernel, boot data) */
#define PG_slab	    0x08u /* owned by the slab allocator */
#define PG_head	    0x10u /* head of an allocated compound block */
#define PG_tail	    0x20u /* tail of a compound block: see compound_head */

/*
 * One per page frame, in a per-node array (mem_map). Kept small: the array
 * costs 56 bytes per 4 KiB page (1.4%).
 */
struct page {
	struct list_head lru; /* buddy list, PCP list, or slab list */
	atomic_int _refcount; /* 0 while free */
	uint16_t flags;	      /* PG_* */
	uint8_t order; /* block order (free block head, allocated head) */
	uint8_t nid;   /* node the frame belongs to */
	/*
	 * order + 1 while this page heads a block on the buddy lists, else 0.
	 * Read and written only under the zone lock: merging looks at a
	 * buddy page that may belong to someone else, whose flags and order
	 * its owner may be writing at that moment without any lock.
	 */
	uint8_t buddy_order;
	union {
		struct {		  /* PG_slab head page */
			void *slab_cache; /* struct kmem_cache * */
			void *freelist;	  /* first free object of the slab */
			uint16_t inuse;	  /* objects handed out */
			uint16_t objects; /* objects in the slab */
		};
		struct page *compound_head; /* PG_tail: the block's head */
		unsigned long private;	    /* free for the owner's use */
	};
};

/* Boot: hand every range from mm_platform_ranges() to the buddy lists. */
int mm_init(void);

/*
 * alloc_pages_node - a block of 2^order pages, preferring node nid and
 * falling back to other nodes in distance order, then draining the per-CPU
 * lists and trying once more. __GFP_THISNODE: node nid only (drain
 * included); __GFP_NORETRY: one try of node nid's lists, nothing more.
 * nid < 0 means the current CPU's node. Any context.
 * Returns the head page, refcount 1, or NULL (counted; a warning is printed
 * unless __GFP_NOWARN).
 */
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order);
/*
 * numa_node_order - the nodes an allocation preferring nid falls back to,
 * in the order the page allocator tries them: nid first, then by distance.
 * Fills order[] and returns how many (0 for a bad nid). Any context.
 */
int numa_node_order(int nid, int order[MM_MAX_NODES]);
/* alloc_pages - alloc_pages_node() on the current CPU's node. */
struct page *alloc_pages(gfp_t gfp, unsigned int order);
/*
 * alloc_pages_bulk - fill pages[0..nr) with order-0 pages from the current
 * node under one zone-lock acquisition, falling back as alloc_pages_node()
 * does (and honouring __GFP_THISNODE / __GFP_NORETRY the same way).
 * Returns how many were filled.
 */
unsigned int alloc_pages_bulk(gfp_t gfp, unsigned int nr, struct page **pages);

/*
 * __free_pages - drop a reference; at zero the block is freed through the
 * one shared free path: orders 0..PCP_MAX_ORDER go to this CPU's per-CPU
 * list for the page's zone, larger orders to the buddy lists. Any context.
 */
void __free_pages(struct page *page, unsigned int order);
/* free_pages - __free_pages() by address; NULL is ignored, an address that
 * is not a page of any node is reported (mm/debug.h) and ignored. */
void free_pages(void *addr, unsigned int order);

/*
 * Where each node's mem_map lives, filled by mm_init(): the lookups below
 * are inline because every kfree and page_frag_free starts with one.
 * A pfn belongs to node n when pfn - start_pfn < spanned_pages.
 */
struct mm_pfn_map {
	struct page *mem_map;
	unsigned long start_pfn;
	unsigned long spanned_pages;
};
extern struct mm_pfn_map mm_pfn_maps[MM_MAX_NODES];
extern int mm_nr_pfn_maps;

/* pfn_to_page - the struct page of frame pfn, or NULL outside every node
 * (holes inside a node's span have a PG_reserved struct page). Any context. */
static inline struct page *pfn_to_page(unsigned long pfn)
{
	for (int i = 0; i < mm_nr_pfn_maps; i++) {
		const struct mm_pfn_map *m = &mm_pfn_maps[i];
		if (pfn - m->start_pfn < m->spanned_pages)
			return &m->mem_map[pfn - m->start_pfn];
	}
	return NULL;
}

/* page_to_nid - the node the frame belongs to. */
static inline int page_to_nid(const struct page *page)
{
	return page->nid;
}

/* page_to_pfn - frame number of a struct page from a mem_map. */
static inline unsigned long page_to_pfn(const struct page *page)
{
	const struct mm_pfn_map *m = &mm_pfn_maps[page->nid];
	return m->start_pfn + (unsigned long)(page - m->mem_map);
}

/* page_address - the address the frame is used at (also its physical
 * address in the kernel, which identity-maps RAM). */
static inline void *page_address(const struct page *page)
{
	return (void *)(page_to_pfn(page) << MM_PAGE_SHIFT);
}

/* virt_to_page - the struct page of the frame holding addr, or NULL if
 * addr is not in any node's memory. */
static inline struct page *virt_to_page(const void *addr)
{
	return pfn_to_page((uintptr_t)addr >> MM_PAGE_SHIFT);
}

/* compound_head - the head of the compound block page is part of (page
 * itself for a head or a non-compound page). */
static inline struct page *compound_head(struct page *page)
{
	return (page->flags & PG_tail) ? page->compound_head : page;
}

/* virt_to_head_page - the head page of the (compound) block that contains
 * addr, or NULL if addr is not in any node's memory. */
static inline struct page *virt_to_head_page(const void *addr)
{
	struct page *page = virt_to_page(addr);
	return page ? compound_head(page) : NULL;
}

static inline int page_ref_count(const struct page *page)
{
	return atomic_load_explicit(&page->_refcount, memory_order_relaxed);
}
static inline void page_ref_add(struct page *page, int nr)
{
	atomic_fetch_add_explicit(&page->_refcount, nr, memory_order_relaxed);
}
static inline void page_ref_inc(struct page *page)
{
	page_ref_add(page, 1);
}
/* Returns true when the count reached zero (caller now owns the page). */
static inline bool page_ref_sub_and_test(struct page *page, int nr)
{
	return atomic_fetch_sub_explicit(&page->_refcount, nr,
					 memory_order_acq_rel) == nr;
}
static inline bool page_ref_dec_and_test(struct page *page)
{
	return page_ref_sub_and_test(page, 1);
}
static inline void get_page(struct page *page)
{
	page_ref_inc(compound_head(page));
}
/* put_page - drop a reference; the last one frees the whole block. */
void put_page(struct page *page);

/*
 * nr_free_pages - pages on the buddy lists of every node, as Linux counts
 * them: pages parked on per-CPU lists are not included, so call
 * drain_all_pages() first for an exact figure. Any context, lock-free.
 */
unsigned long nr_free_pages(void);
/* Return every CPU's per-CPU list pages to the buddy lists. Any context. */
void drain_all_pages(void);

#endif /* MM_PAGE_ALLOC_H */
