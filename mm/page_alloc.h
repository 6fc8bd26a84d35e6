/*
 * The page allocator's calls, with Linux's names: alloc_pages*,
 * __free_pages, the free-page figures. struct page and its conversions
 * are in page.h.
 */
#ifndef MM_PAGE_ALLOC_H
#define MM_PAGE_ALLOC_H

#include "gfp.h"
#include "page.h"
#include "platform.h"

#define MAX_ORDER     10 /* largest block: 2^10 pages = 4 MiB */
#define PCP_MAX_ORDER 3	 /* per-CPU lists hold orders 0..3 */

/* Boot: hand every range from mm_platform_ranges() to the buddy lists. */
int mm_init(void);

/*
 * Deferred struct page initialisation (mm/page_init.c). mm_init() writes
 * the struct pages of each node's first mm_set_boot_init_pages() usable
 * pages (MM_BOOT_INIT_PAGES by default; MM_INIT_ALL: every page, nothing
 * deferred) and hands those frames out; the rest reach the free lists
 * later: through mm_deferred_init_work() calls, or a chunk at a time when
 * an allocation finds its zone empty.
 *
 * mm_set_boot_init_pages - a setting, before mm_init().
 * mm_deferred_init_work - initialise up to max_pages of node nid's
 *   deferred span (a chunk at least) and free its frames; returns the
 *   pages of span done, 0 when none is left to claim. Any context but an
 *   interrupt handler; several CPUs may work on one node at once.
 * mm_deferred_pages - usable pages of node nid (-1: every node) not yet
 *   on the free lists. Any context.
 * mm_deferred_init_all - do every node's remaining work here, and wait
 *   for the chunks other CPUs hold: afterwards nr_free_pages() counts
 *   all memory (the self-tests' baseline). Not from an interrupt handler.
 */
#define MM_INIT_ALL (~0UL)
void mm_set_boot_init_pages(unsigned long pages);
unsigned long mm_deferred_init_work(int nid, unsigned long max_pages);
unsigned long mm_deferred_pages(int nid);
void mm_deferred_init_all(void);

/* mm_is_ready - true once mm_init() has handed memory to the buddy lists,
 * so the page allocator (and kmalloc on top of it) can be used; false
 * before, and after an mm_init() that found no memory. Any context. */
bool mm_is_ready(void);

/*
 * cpu_to_mem - the memory node of CPU cpu: its own node if that has memory,
 * else the nearest node that has (Linux's cpu_to_mem). numa_mem_id - the
 * same for the current CPU. Every allocator treats this node as "local": a
 * CPU of a memoryless node caches the nearest memory in its magazines and
 * fragment caches instead of none. Fixed at mm_init(). Any context.
 */
int cpu_to_mem(int cpu);
extern uint8_t mm_cpu_mem_node[MM_MAX_CPUS]; /* filled by mm_init */
static inline int numa_mem_id(void)
{
	/* Inline: page_frag_free asks on every free. mm_this_cpu() is
	 * always below mm_nr_cpus() (mm/platform.h). */
	return mm_cpu_mem_node[mm_this_cpu()];
}

/*
 * alloc_pages_node - a block of 2^order pages, preferring node nid and
 * falling back to other nodes in distance order, then draining the per-CPU
 * lists and trying once more. __GFP_THISNODE: node nid only (drain
 * included); __GFP_NORETRY: one try of node nid's lists, nothing more.
 * nid < 0 means the current CPU's memory node (numa_mem_id). Any context.
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
/* alloc_pages - alloc_pages_node() on the current CPU's memory node. */
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
/*
 * __alloc_pages_caller / __free_pages_caller - alloc_pages_node and
 * __free_pages for an allocator built on them (kmalloc's large blocks):
 * @caller is its own caller, which debug reports and the poison stamp
 * name instead of the allocator's inside.
 */
struct page *__alloc_pages_caller(int nid, gfp_t gfp, unsigned int order,
				  const void *caller);
void __free_pages_caller(struct page *page, unsigned int order,
			 const void *caller);
/* free_pages - __free_pages() by address; NULL is ignored, an address that
 * is not a page of any node is reported (mm/debug.h) and ignored. */
void free_pages(void *addr, unsigned int order);

/* put_page - drop a reference; the last one frees the whole block. A
 * drop from a block with no reference left (a double free) is reported
 * (MM_DBG_DOUBLE_FREE) and refused, in every build; so for the frees
 * above. */
void put_page(struct page *page);

/*
 * page_block_is_free - is the frame of @page inside a free block, on the
 * buddy lists or a per-CPU list? For telling a double free from a free
 * of memory never handed out. Takes the zone lock; any context.
 */
bool page_block_is_free(struct page *page);

/*
 * nr_free_pages - pages on the buddy lists of every node, as Linux counts
 * them: pages parked on per-CPU lists are not included, so call
 * drain_all_pages() first for an exact figure. Any context, lock-free.
 */
unsigned long nr_free_pages(void);
/* nr_free_pages_node / nr_managed_pages_node - pages on node nid's buddy
 * lists (counted the same way), and pages its zone was given at boot; 0
 * for a node the allocator does not have. Any context, lock-free. */
unsigned long nr_free_pages_node(int nid);
unsigned long nr_managed_pages_node(int nid);
/*
 * drain_all_pages - return every CPU's per-CPU list pages to the buddy
 * lists, after the drains added with drain_all_pages_add() have given
 * theirs back. The allocation slow path calls it when memory runs out.
 * Any context.
 */
void drain_all_pages(void);

/*
 * drain_all_pages_add - have drain_all_pages() call drain first: for a
 * cache built on this allocator that holds freed blocks back per CPU
 * (page_frag_free's batches), so that its blocks are back on the lists
 * before they are drained, also when memory runs out. A pointer rather
 * than a call: that cache uses this allocator, and a call would make the
 * two use each other. drain follows drain_all_pages' own rules: any
 * context, every CPU's share, never waiting for the code its own CPU
 * interrupted. Adding the same drain twice adds it once. mm_init() adds
 * page_frag's, before any other CPU runs. Returns 0, or -1 when all
 * DRAIN_ALL_PAGES_HOOKS places are taken.
 */
#define DRAIN_ALL_PAGES_HOOKS 4
int drain_all_pages_add(void (*drain)(void));

/* pcp_set_enabled - route orders 0..3 through the PCP (true, the default)
 * or straight to the buddy lists; disabling drains every list. Call it
 * while no other CPU allocates (benchmarks, tests). */
void pcp_set_enabled(bool on);

/*
 * mm_verify_free_lists - walk every buddy list and check it: each entry is
 * a PG_buddy head of its order, aligned, inside its zone, not overlapping
 * reserved pages, no two free buddies left unmerged, counts match.
 * Takes each zone lock. Returns the free pages found, or -1 (with a
 * message) on the first inconsistency. For tests and the boot self-test.
 */
long mm_verify_free_lists(void);

#endif /* MM_PAGE_ALLOC_H */
