/*
 * Page fragment cache: small buffers (packet data, socket TX bytes) carved
 * from a 32 KiB block, the block freed by reference count when its last
 * fragment comes back. This file is the cache and its allocation paths;
 * every free path is page_frag_free.c. Walk-through and measured figures,
 * each with the command that reproduces it: docs/page_frag.md.
 *
 * A cache (struct page_frag_cache) owns one block at a time: its address
 * and size in one word, the next free offset, and a bias. A refill takes,
 * in one atomic add, one block reference per byte of the block (more than
 * it can ever hand out) and keeps its share in pagecnt_bias, so handing
 * out a fragment only decrements that private counter: no atomic
 * operation on the allocation side (Duyck's NAPI fragments).
 *
 * Fast path (__page_frag_alloc, inline): align the offset, test that the
 * fragment fits, move the offset, count. A refill, a block under debug
 * tracking (encoded with size 0, so it never fits) and armed failure
 * injection are out-of-line functions called in tail position, so the
 * fast path saves no registers; a constant alignment is checked at
 * compile time (page_frag.h).
 *
 * Slow path (__page_frag_refill): the cache drops the references it still
 * holds. If that brings the count to zero, every fragment is back and the
 * block is recycled in place, with no trip to the page allocator;
 * otherwise the last page_frag_free() frees it. A new block is one cheap
 * order-3 try (no retry, no warning: Banerjee found order-3 allocations
 * that try hard pathologically slow under fragmentation), then one page,
 * both from the cache's refill node: this CPU's unless its policy says
 * otherwise (page_frag_policy.c), because packet buffers live briefly on
 * the CPU that polls them (Dumazet). Only a node with no page at all sends
 * the refill elsewhere (counted as refills_remote).
 *
 * Carving is upward, as in Linux since 6.13: only then can a TX writer of
 * unknown length grow its data into the space after the offset
 * (page_frag_tx.c). Downward carving (PAGE_FRAG_CARVE_DOWN=1, a benchmark
 * build) saves a few instructions per fragment and no measurable time.
 *
 * Context: the caller serialises every call on its cache (the per-CPU
 * caches of page_frag_percpu.c do it for theirs). Nothing here sleeps.
 */

#include "debug.h"
#include "fault_inject.h"
#include "page_frag_internal.h"

/* Trace points (mm_trace.h). A refill names where its block came from:
 * "recycled" (every fragment was back) or "new" (the page allocator). */
TRACE_EVENT(ev_frag_alloc, TRACE_MM, "page_frag_alloc", {"addr", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"size", TRACE_DEC});
TRACE_EVENT(ev_frag_refill, TRACE_MM, "page_frag_refill", {"block", TRACE_HEX},
	    {"from", TRACE_STR}, {"pages", TRACE_DEC}, {"node", TRACE_DEC});
TRACE_EVENT(ev_frag_drain, TRACE_MM, "page_frag_drain", {"block", TRACE_HEX},
	    {"caller", TRACE_SYM});

static atomic_bool page_frag_order0_only;

void page_frag_force_order0(bool on)
{
	atomic_store_explicit(&page_frag_order0_only, on, memory_order_relaxed);
}

/* Off again for a new machine (page_frag_forget_all). */
void page_frag_order0_forget(void)
{
	atomic_store_explicit(&page_frag_order0_only, false,
			      memory_order_relaxed);
}

/*
 * Take the cache's references in one batch, size + 1 of them: more than
 * fragments can ever take (each is at least one byte), so the bias never
 * runs out. refs_held is what the block's count already is (1 for a fresh
 * block, 0 for one whose fragments all came back).
 */
static inline void page_frag_arm_block(struct page_frag_cache *nc,
				       struct page *page, unsigned int nr_pages,
				       int refs_held)
{
	unsigned int size = nr_pages * (unsigned int)MM_PAGE_SIZE;
	/* Debug tracking begins or ends with a cycle; with checks off and
	 * no record on the block there is nothing to do. */
	bool tracked = mm_unlikely(mm_debug_on() || page->private) &&
		       page_frag_debug_arm(page);

	page_ref_add(page, (int)size + 1 - refs_held);
	nc->pagecnt_bias = size + 1;
	/* A tracked block reads as size 0: see page_frag_internal.h. */
	nc->encoded_block =
		(uintptr_t)page_address(page) | (tracked ? 0 : nr_pages);
	nc->offset = PAGE_FRAG_CARVE_DOWN ? size : 0;
	nc->last_start = nc->offset; /* no fragment of this block yet */
}

/*
 * A new block from node nid first: order 3, then one page, each one cheap
 * try of that node only (__GFP_NORETRY: no other node, no drain, no
 * warning). Only when the node has no page at all does the last try let
 * the page allocator fall back to another node (and drain); that block is
 * one page, so the next refill soon tries nid again. It is counted twice
 * over: numa_miss on the node it came from (numa_foreign on nid),
 * refills_remote here.
 */
static struct page *page_frag_new_block(gfp_t gfp, int nid,
					unsigned int *nr_pages)
{
	struct page *page = NULL;

	gfp &= ~__GFP_ZERO; /* fragments are never zeroed, as in Linux */
	if (!atomic_load_explicit(&page_frag_order0_only,
				  memory_order_relaxed)) {
		page = alloc_pages_node(
			nid, gfp | __GFP_COMP | __GFP_NOWARN | __GFP_NORETRY,
			PAGE_FRAG_CACHE_MAX_ORDER);
		if (page) {
			page_frag_count(PF_REFILLS_ORDER3);
			*nr_pages = 1u << PAGE_FRAG_CACHE_MAX_ORDER;
			return page;
		}
		page_frag_count(PF_ORDER3_FALLBACKS);
	}
	page = alloc_pages_node(nid, gfp | __GFP_NOWARN | __GFP_NORETRY, 0);
	if (!page) {
		page = alloc_pages_node(nid, gfp, 0);
		if (!page)
			return NULL;
		if (page_to_nid(page) != nid)
			page_frag_count(PF_REFILLS_REMOTE);
	}
	page_frag_count(PF_REFILLS_ORDER0);
	*nr_pages = 1;
	return page;
}

bool __page_frag_refill(struct page_frag_cache *nc, gfp_t gfp)
{
	uintptr_t encoded = nc->encoded_block;
	unsigned int nr_pages;
	struct page *page;

	if (encoded) {
		page = virt_to_page(page_frag_block_va(encoded));
		nr_pages = 1u << page->order; /* also for a tracked block */
		/* This CPU's pending frees of the block count first: with
		 * them applied, a block whose fragments all came back here
		 * is recycled in place. */
		page_frag_free_flush_page(page);
		if (page_ref_sub_and_test(page, (int)nc->pagecnt_bias)) {
			/* Every fragment is back: the block is ours again. */
			page_frag_count(PF_RECYCLES);
			page_frag_arm_block(nc, page, nr_pages, 0);
			mm_trace(&ev_frag_refill, (uintptr_t)page_address(page),
				 (uintptr_t) "recycled", nr_pages, page->nid);
			return true;
		}
		/* Fragments are out: the last page_frag_free() frees it. */
		nc->encoded_block = 0;
		nc->offset = 0;
		nc->pagecnt_bias = 0;
		nc->last_start = 0;
	}
	page = page_frag_new_block(gfp, page_frag_refill_node(nc), &nr_pages);
	if (mm_unlikely(!page)) {
		page_frag_count(PF_ALLOC_FAILED);
		return false;
	}
	page_frag_count_node(page_to_nid(page));
	page_frag_arm_block(nc, page, nr_pages, 1);
	mm_trace(&ev_frag_refill, (uintptr_t)page_address(page),
		 (uintptr_t) "new", nr_pages, page->nid);
	return true;
}

/* Hand out [offset, offset + fragsz) of nc's block as one fragment. */
static inline void *page_frag_take(struct page_frag_cache *nc,
				   unsigned int offset, unsigned int fragsz)
{
	if (PAGE_FRAG_CARVE_DOWN) {
		nc->offset = offset;
	} else {
		nc->offset = offset + fragsz;
		nc->last_start = offset;
	}
	nc->pagecnt_bias--;
	page_frag_count(PF_FRAGMENTS);
	return page_frag_block_va(nc->encoded_block) + offset;
}

/* page_frag_take() for the slow path: a tracked block records it. */
static inline void *page_frag_take_recorded(struct page_frag_cache *nc,
					    unsigned int offset,
					    unsigned int fragsz)
{
	if (mm_unlikely(page_frag_tracked(nc)))
		page_frag_debug_take(page_frag_cache_page(nc), offset);
	return page_frag_take(nc, offset, fragsz);
}

#if PAGE_FRAG_CARVE_DOWN
/* The slow path of downward carving (a benchmark build; never tracked):
 * refill, then carve from the fresh block's end. */
static __attribute__((noinline)) void *
page_frag_alloc_slow_down(struct page_frag_cache *nc, unsigned int fragsz,
			  gfp_t gfp, unsigned int align_mask)
{
	if (!__page_frag_refill(nc, gfp))
		return NULL;
	return page_frag_take(nc, (nc->offset - fragsz) & ~align_mask, fragsz);
}
#else
/*
 * The slow path: nc's block cannot hold the request at the aligned offset
 * the fast path computed, or is under debug tracking (it then reads as
 * size 0). Carve there from a tracked block that has room; otherwise
 * refill (recycle in place or a new block) and carve from the fresh
 * block's start, which suits any alignment. Out of line and called in
 * tail position, so the fast path saves no registers for it; it takes the
 * offset rather than the alignment, which the fast path then need not
 * keep.
 */
static __attribute__((noinline)) void *
page_frag_alloc_slow(struct page_frag_cache *nc, unsigned int fragsz, gfp_t gfp,
		     unsigned int offset)
{
	if (page_frag_tracked(nc) &&
	    offset + fragsz <= page_frag_cache_size(nc))
		return page_frag_take_recorded(nc, offset, fragsz);
	if (!__page_frag_refill(nc, gfp))
		return NULL;
	return page_frag_take_recorded(nc, 0, fragsz);
}
#endif

/*
 * The fast path: a few instructions when the block has room. align_mask is
 * align - 1 (0 for no alignment, which the compiler folds away).
 */
static inline void *__page_frag_alloc(struct page_frag_cache *nc,
				      unsigned int fragsz, gfp_t gfp,
				      unsigned int align_mask)
{
#if PAGE_FRAG_CARVE_DOWN
	int offset = ((int)nc->offset - (int)fragsz) & ~(int)align_mask;

	if (mm_unlikely(offset < 0))
		return page_frag_alloc_slow_down(nc, fragsz, gfp, align_mask);
#else
	unsigned int offset = (nc->offset + align_mask) & ~align_mask;

	if (mm_unlikely(offset + fragsz >
			page_frag_block_size(nc->encoded_block)))
		return page_frag_alloc_slow(nc, fragsz, gfp, offset);
#endif
	return page_frag_take(nc, (unsigned int)offset, fragsz);
}

/* fail_page_frag: the caller sees what no memory would give it. */
__attribute__((noinline)) void *__page_frag_alloc_injected(void)
{
	page_frag_count(PF_ALLOC_FAILED);
	return NULL;
}

void *page_frag_alloc_align_checked(struct page_frag_cache *nc,
				    unsigned int fragsz, gfp_t gfp,
				    unsigned int align)
{
	/* fragsz first: a request bad in both ways counts as oversize. */
	if (mm_unlikely(!page_frag_fragsz_ok(fragsz) ||
			!page_frag_align_ok(align)))
		return NULL;
	return __page_frag_alloc_align(nc, fragsz, gfp, align - 1);
}

/*
 * Failure injection is armed (at some site): ask whether this call fails,
 * then carve as usual. Out of line and called in tail position, like the
 * refill: with the call to __mm_fault_should_fail() inline, the fast path
 * saved two or three registers and moved the stack for it on every
 * fragment (6-8 of the aligned path's 43 instructions, callgrind).
 */
static __attribute__((noinline)) void *
page_frag_alloc_armed(struct page_frag_cache *nc, unsigned int fragsz,
		      gfp_t gfp, unsigned int align_mask)
{
	if (mm_fault_should_fail(MM_FAULT_FRAG))
		return __page_frag_alloc_injected();
	return __page_frag_alloc(nc, fragsz, gfp, align_mask);
}

/*
 * The mm class traces: the same allocation (failure injection included),
 * recorded with the caller of page_frag_alloc*. Out of line and called in
 * tail position, like the injection.
 */
static __attribute__((noinline)) void *
page_frag_alloc_traced(struct page_frag_cache *nc, unsigned int fragsz,
		       gfp_t gfp, unsigned int align_mask, const void *caller)
{
	void *va;

	if (mm_fault_should_fail(MM_FAULT_FRAG))
		va = __page_frag_alloc_injected();
	else
		va = __page_frag_alloc(nc, fragsz, gfp, align_mask);
	mm_trace(&ev_frag_alloc, (uintptr_t)va, (uintptr_t)caller, fragsz, 0);
	return va;
}

/* Any failure-injection site armed? One relaxed load (fault_inject.h). */
static inline bool page_frag_fault_armed(void)
{
	return atomic_load_explicit(&mm_fault_armed, memory_order_relaxed);
}

void *__page_frag_alloc_align(struct page_frag_cache *nc, unsigned int fragsz,
			      gfp_t gfp, unsigned int align_mask)
{
	if (mm_unlikely(!page_frag_fragsz_ok(fragsz)))
		return NULL;
	if (mm_unlikely(mm_tracing()))
		return page_frag_alloc_traced(nc, fragsz, gfp, align_mask,
					      __builtin_return_address(0));
	if (mm_unlikely(page_frag_fault_armed()))
		return page_frag_alloc_armed(nc, fragsz, gfp, align_mask);
	return __page_frag_alloc(nc, fragsz, gfp, align_mask);
}

void *page_frag_alloc(struct page_frag_cache *nc, unsigned int fragsz,
		      gfp_t gfp)
{
	if (mm_unlikely(!page_frag_fragsz_ok(fragsz)))
		return NULL;
	if (mm_unlikely(mm_tracing()))
		return page_frag_alloc_traced(nc, fragsz, gfp, 0,
					      __builtin_return_address(0));
	if (mm_unlikely(page_frag_fault_armed()))
		return page_frag_alloc_armed(nc, fragsz, gfp, 0);
	return __page_frag_alloc(nc, fragsz, gfp, 0);
}

void page_frag_cache_drain(struct page_frag_cache *nc)
{
	uintptr_t encoded = nc->encoded_block;

	/* Frees this CPU holds back count before the cache's references go:
	 * a drained cache whose fragments all came back here gives its block
	 * back now. */
	page_frag_free_flush();
	if (encoded) {
		struct page *page = virt_to_page(page_frag_block_va(encoded));

		page_frag_count(PF_DRAINS);
		mm_trace(&ev_frag_drain, (uintptr_t)page_address(page),
			 (uintptr_t)__builtin_return_address(0), 0, 0);
		if (page_ref_sub_and_test(page, (int)nc->pagecnt_bias))
			page_frag_release_block(page);
	}
	nc->encoded_block = 0;
	nc->offset = 0;
	nc->pagecnt_bias = 0;
	nc->last_start = 0;
}
