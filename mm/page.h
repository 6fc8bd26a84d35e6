/*
 * struct page, one per page frame, and the conversions every allocator
 * starts with: pfn <-> struct page <-> address, the head of a compound
 * block, the reference count. The page allocator's calls are in
 * page_alloc.h, which includes this.
 */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include "list.h"
#include "platform.h"

/* page->flags */
#define PG_buddy    0x01u /* free, on a buddy free list (head of block) */
#define PG_pcp	    0x02u /* free, on a per-CPU list (head of block) */
#define PG_reserved 0x04u /* never handed out (hole, kernel, boot data) */
#define PG_slab	    0x08u /* owned by the slab allocator */
#define PG_head	    0x10u /* head of an allocated compound block */
#define PG_tail	    0x20u /* tail of a compound block: see compound_head */

/*
 * One per page frame, in a per-node array (mem_map): 64 bytes per 4 KiB
 * frame (1.56% of RAM). 56 would do, but a power of two turns every
 * address -> struct page step into a shift: slab_free_fast_ok's owner
 * lookup (mm/slab_internal.h) was shr + lea + sub + lea + add at 56
 * bytes, shr + add at 64 (3 guest instructions per kmem_cache_free);
 * the 8 bytes cost 2 MiB per GiB of RAM.
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
	/*
	 * Debug only: mm_debug_epoch() when the page was freed and poisoned
	 * with the checks on (its freeing caller then in .private), else 0.
	 * Checked and cleared when the page is handed out (mm/page_debug.c).
	 * In what was padding.
	 */
	uint8_t poison_epoch;
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
	unsigned long _unused; /* pads to 64 bytes: MM_PAGE_STRUCT_SHIFT */
};

/* log2(sizeof(struct page)): a frame's struct page is at
 * mem_map + ((address - first address) >> (MM_PAGE_SHIFT -
 * MM_PAGE_STRUCT_SHIFT)) once the offset is page aligned. */
#define MM_PAGE_STRUCT_SHIFT 6
_Static_assert(sizeof(struct page) == (1u << MM_PAGE_STRUCT_SHIFT),
	       "struct page is a power of two bytes");

/*
 * Where the mem_maps live, filled by mm_init() (mm/mm_init.c): the lookups
 * below are inline because every kfree and page_frag_free starts with one.
 *
 * mm_pfn_maps: the machine's memory as runs of pfns, each owned by one
 * node, sorted by start_pfn; mem_map is the struct page of start_pfn.
 * A node whose ranges no other node's memory separates (the usual case) is
 * one run, so with N nodes a lookup is at most N compares, as with one
 * entry per node. A node split around another's (node 0 at [0, 4M) and
 * [8M, 12M), node 1 at [4M, 8M): firmware can say so, and the kernel
 * gives RAM that no SRAT entry covers to node 0) has one run per piece,
 * each pointing into the node's own mem_map, so every address finds its
 * owner's struct page. A pfn belongs to run i when
 * pfn - start_pfn < spanned_pages.
 *
 * mm_node_pfn_maps: each node's whole span (its mem_map), for page_to_pfn.
 */
struct mm_pfn_map {
	struct page *mem_map;
	unsigned long start_pfn;
	unsigned long spanned_pages;
};
extern struct mm_pfn_map mm_pfn_maps[MM_MAX_RANGES];
extern int mm_nr_pfn_maps;
extern struct mm_pfn_map mm_node_pfn_maps[MM_MAX_NODES];

/* pfn_to_page - the struct page of frame pfn, or NULL outside every node's
 * memory. A hole between two ranges of one node has a PG_reserved struct
 * page; a gap between two nodes' ranges may have either. Any context. */
static inline struct page *pfn_to_page(unsigned long pfn)
{
	/*
	 * By pointer, and the first entry tried before any bound test (the
	 * array always has one; with no map it is all zero and matches
	 * nothing): the hit is one multiply and add from the entry in hand.
	 * kfree's lookup took 12 guest instructions fewer this way.
	 */
	const struct mm_pfn_map *m = mm_pfn_maps, *end = m + mm_nr_pfn_maps;

	do {
		if (pfn - m->start_pfn < m->spanned_pages) {
			struct page *page = m->mem_map + (pfn - m->start_pfn);
			/* A map that spans pages has a mem_map: a caller's
			 * NULL test then only looks at the miss. */
			if (!page)
				__builtin_unreachable();
			return page;
		}
	} while (++m < end);
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
	const struct mm_pfn_map *m = &mm_node_pfn_maps[page->nid];
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
/* get_page - take a reference on the block page is part of; put_page
 * (page_alloc.h) drops one, and the last frees the block. */
static inline void get_page(struct page *page)
{
	page_ref_inc(compound_head(page));
}

#endif /* MM_PAGE_H */
