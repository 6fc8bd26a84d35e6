/*
 * Private to mm/page_frag*.c: the per-CPU counters and the helpers that
 * read a cache's encoded block. Not part of the public API.
 */
#ifndef MM_PAGE_FRAG_INTERNAL_H
#define MM_PAGE_FRAG_INTERNAL_H

#include "mm_trace.h"
#include "page_frag.h"

enum page_frag_stat {
	PF_FRAGMENTS,
	PF_REFILLS_ORDER3,
	PF_REFILLS_ORDER0,
	PF_ORDER3_FALLBACKS,
	PF_REFILLS_REMOTE,
	PF_RECYCLES,
	PF_FREES,
	PF_REMOTE_FREES,
	PF_BLOCKS_RETURNED,
	PF_PAGES_RETURNED,
	PF_DRAINS,
	PF_ERR_OVERSIZE,
	PF_ERR_BAD_ALIGN,
	PF_ALLOC_FAILED,
	PF_TX_MISUSE,
	PF_FREE_ATOMICS,
	PF_FREES_BUSY,
	PF_NR_STATS
};

/*
 * Per-CPU counters, one cache line set per CPU so counting never bounces a
 * line between CPUs. Only the owning CPU writes its set; readers sum all
 * sets. page_frag_free() may run in an interrupt handler that lands while
 * this CPU's poll loop is counting on the same set, so the bump is
 * mm_cpu_counter_add: one add instruction in the kernel, which an
 * interrupt cannot split, and no locked instruction.
 */
struct page_frag_cpu_stats {
	atomic_ulong v[PF_NR_STATS];
	atomic_ulong refills_node[MM_MAX_NODES]; /* new blocks by their node */
} __mm_cacheline_aligned;

extern struct page_frag_cpu_stats page_frag_cpu_stats[MM_MAX_CPUS];

/* Zero every CPU's counters (page_frag_counters.c), and put the order-0
 * tunable back to off (page_frag.c): for a new machine only
 * (page_frag_forget_all). */
void page_frag_counters_forget(void);
void page_frag_order0_forget(void);

static inline void page_frag_count_add(enum page_frag_stat i, unsigned long n)
{
	mm_cpu_counter_add(&page_frag_cpu_stats[mm_this_cpu()].v[i], n);
}

/* page_frag_count() for a caller that has read mm_this_cpu() already. */
static inline void page_frag_count_cpu(int cpu, enum page_frag_stat i)
{
	mm_cpu_counter_add(&page_frag_cpu_stats[cpu].v[i], 1);
}

static inline void page_frag_count(enum page_frag_stat i)
{
	page_frag_count_add(i, 1);
}

/* A new block came from node nid (page_to_nid, always < MM_MAX_NODES). */
static inline void page_frag_count_node(int nid)
{
	mm_cpu_counter_add(
		&page_frag_cpu_stats[mm_this_cpu()].refills_node[nid], 1);
}

/*
 * Block address and size as the allocation fast path sees them (0 when the
 * cache has no block). A block under debug tracking (page_frag_debug.c) is
 * encoded with size 0, so that every allocation from it fails the fast
 * path's "does it fit" test and takes the slow path, which records the
 * fragment; page_frag_cache_size() is its real size.
 */
static inline char *page_frag_block_va(uintptr_t encoded)
{
	return (char *)(encoded & ~(uintptr_t)(MM_PAGE_SIZE - 1));
}

static inline unsigned int page_frag_block_size(uintptr_t encoded)
{
	return (unsigned int)(encoded & (MM_PAGE_SIZE - 1)) << MM_PAGE_SHIFT;
}

/* Does nc have a block under debug tracking? */
static inline bool page_frag_tracked(const struct page_frag_cache *nc)
{
	return nc->encoded_block && !page_frag_block_size(nc->encoded_block);
}

/* The head page of nc's block (nc must have one). */
static inline struct page *
page_frag_cache_page(const struct page_frag_cache *nc)
{
	return virt_to_page(page_frag_block_va(nc->encoded_block));
}

/* The real size of nc's block, tracked or not (0: no block). */
static inline unsigned int
page_frag_cache_size(const struct page_frag_cache *nc)
{
	if (mm_unlikely(page_frag_tracked(nc)))
		return (unsigned int)MM_PAGE_SIZE
		       << page_frag_cache_page(nc)->order;
	return page_frag_block_size(nc->encoded_block);
}

/*
 * Argument checks shared by every entry point: fragsz in 1..page (one
 * unsigned compare) and align a power of two no larger than a page. Each
 * refusal is counted. Returns true when the request may go on.
 */
static inline bool page_frag_fragsz_ok(unsigned int fragsz)
{
	if (mm_likely(fragsz - 1u < PAGE_FRAG_MAX_FRAGSZ))
		return true;
	page_frag_count(PF_ERR_OVERSIZE);
	return false;
}

static inline bool page_frag_align_ok(unsigned int align)
{
	if (mm_likely(align && !(align & (align - 1)) && align <= MM_PAGE_SIZE))
		return true;
	page_frag_count(PF_ERR_BAD_ALIGN);
	return false;
}

/*
 * __page_frag_refill - the slow path: nc's block cannot hold the request.
 * Recycles the block in place if every fragment came back, else takes a new
 * block (order 3, then order 0). Leaves nc with an empty block (offset 0, or
 * the block size when carving down) and returns true, or returns false
 * (counted) with nc empty when there is no memory.
 */
bool __page_frag_refill(struct page_frag_cache *nc, gfp_t gfp);

/* fail_page_frag's failure: counted as alloc_failed; returns NULL. */
void *__page_frag_alloc_injected(void);

/*
 * page_frag_refill_node - the node nc's next new block should come from,
 * by its refill policy (page_frag_policy.c); advances interleave's cursor.
 * Called by the refill, by nc's owner only.
 */
int page_frag_refill_node(struct page_frag_cache *nc);

/*
 * The free side (page_frag_free.c), as the other page_frag files use it.
 *
 * page_frag_release_block - give a block whose count reached zero back to
 * the page allocator (and its debug record, if any).
 */
void page_frag_release_block(struct page *page);

/* Apply this CPU's pending frees of page, if any: before its cache's
 * refill decides whether the block can be recycled in place. */
void page_frag_free_flush_page(struct page *page);

/*
 * page_frag_free_pending_add - add cpu's frees counted in its batch but
 * not yet applied to v[PF_FREES] and v[PF_REMOTE_FREES] (the batch counts
 * them only when it applies them). For the statistics: any context,
 * relaxed reads (exact when that CPU is quiet).
 */
void page_frag_free_pending_add(int cpu, uint64_t v[PF_NR_STATS]);

/* Drop every CPU's batch without applying it: a new machine only. */
void page_frag_free_forget(void);

/* page_frag_debug.c: the live-fragment record of debug mode. */
/* Start a cycle of the block: tracked (shadow attached and cleared) when
 * debug checks are on, else untracked (any shadow given back). */
bool page_frag_debug_arm(struct page *head);
/* The block goes back to the page allocator: give its shadow back. */
void page_frag_debug_release(struct page *head);
/* A fragment starting at offset was handed out / taken back (abort). */
void page_frag_debug_take(struct page *head, unsigned int offset);
void page_frag_debug_untake(struct page *head, unsigned int offset);
/* A free of addr in a tracked block: false (reported) if no live fragment
 * holds it. */
bool page_frag_debug_free(struct page *head, const void *addr,
			  const void *caller);

#endif /* MM_PAGE_FRAG_INTERNAL_H */
