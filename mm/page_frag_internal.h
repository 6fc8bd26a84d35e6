/*
 * Private to mm/page_frag*.c: the per-CPU counters and the helpers that
 * read a cache's encoded block. Not part of the public API.
 */
#ifndef MM_PAGE_FRAG_INTERNAL_H
#define MM_PAGE_FRAG_INTERNAL_H

#include "page_frag.h"

enum page_frag_stat {
	PF_FRAGMENTS,
	PF_REFILLS_ORDER3,
	PF_REFILLS_ORDER0,
	PF_ORDER3_FALLBACKS,
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
	PF_NR_STATS
};

/*
 * Per-CPU counters, one cache line set per CPU so counting never bounces a
 * line between CPUs. Only the owning CPU writes its set (relaxed load +
 * store: a plain add on x86, no locked instruction); readers sum all sets.
 */
struct page_frag_cpu_stats {
	_Atomic uint64_t v[PF_NR_STATS];
} __mm_cacheline_aligned;

extern struct page_frag_cpu_stats page_frag_cpu_stats[MM_MAX_CPUS];

static inline void page_frag_count_add(enum page_frag_stat i, uint64_t n)
{
	_Atomic uint64_t *c = &page_frag_cpu_stats[mm_this_cpu()].v[i];

	atomic_store_explicit(c,
			      atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static inline void page_frag_count(enum page_frag_stat i)
{
	page_frag_count_add(i, 1);
}

/* Block address and size (0 when the cache has no block). */
static inline char *page_frag_block_va(uintptr_t encoded)
{
	return (char *)(encoded & ~(uintptr_t)(MM_PAGE_SIZE - 1));
}

static inline unsigned int page_frag_block_size(uintptr_t encoded)
{
	return (unsigned int)(encoded & (MM_PAGE_SIZE - 1)) << MM_PAGE_SHIFT;
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

#endif /* MM_PAGE_FRAG_INTERNAL_H */
