/*
 * Lab page_frag: a page fragment cache with a reference-count bias and the
 * order-3/order-0 fallback (docs/labs/page_frag.md). This file replaces
 * mm/page_frag.c in the host library when you run make lab-page_frag;
 * your copy is in labs/work/.
 *
 * A cache (struct page_frag_cache) carves small buffers upward from one
 * block at a time: nc->encoded_block (the block's address with its size
 * in pages in the low bits), nc->offset (the next free byte) and
 * nc->pagecnt_bias. The block is freed by reference count when its last
 * fragment comes back (page_frag_free, mm/page_frag_free.c, given).
 *
 * The bias: a refill takes, in one atomic add, more block references than
 * fragments can ever take (size + 1) and keeps its share in
 * nc->pagecnt_bias; handing out a fragment only decrements that private
 * counter, so allocation does no atomic operation. At the next refill the
 * cache gives back the references it still holds: if that brings the
 * count to zero every fragment is back and the block is reused in place.
 *
 * You write the three functions marked LAB_TODO (the rest is given):
 *  - page_frag_arm_block: the bias, taken in one add;
 *  - page_frag_new_block: one cheap order-3 try, then one page;
 *  - __page_frag_refill: recycle in place, or let go and take a new block.
 */
#include "debug.h"
#include "fault_inject.h"
#include "lab_todo.h"
#include "page_frag_internal.h"

/* Given: trace points (mm_trace.h) of what the given code does. */
TRACE_EVENT(ev_frag_alloc, TRACE_MM, "page_frag_alloc", {"addr", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"size", TRACE_DEC});
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
 * page_frag_arm_block - make page (nr_pages of them) nc's block: the
 * block's count grows to size + 1 references (size = nr_pages pages in
 * bytes; refs_held is what it is now: 1 for a fresh block, 0 for a
 * recycled one) in one page_ref_add, nc->pagecnt_bias holds them all,
 * nc->encoded_block is page_address(page) | nr_pages (| 0 when tracked,
 * see below), and the offset and last_start go back to the block's start.
 */
static inline void page_frag_arm_block(struct page_frag_cache *nc,
				       struct page *page, unsigned int nr_pages,
				       int refs_held)
{
	/* Given: debug tracking begins or ends with a cycle; a tracked block
	 * is encoded with size 0 (page_frag_internal.h). */
	bool tracked = mm_unlikely(mm_debug_on() || page->private) &&
		       page_frag_debug_arm(page);

	LAB_TODO("page_frag");
	(void)nc;
	(void)nr_pages;
	(void)refs_held;
	(void)tracked;
}

/*
 * page_frag_new_block - a new block from node nid: order
 * PAGE_FRAG_CACHE_MAX_ORDER (unless page_frag_order0_only is set) as one
 * cheap try of that node only (__GFP_COMP | __GFP_NOWARN | __GFP_NORETRY),
 * counted PF_REFILLS_ORDER3 or else PF_ORDER3_FALLBACKS; then one page,
 * the same cheap try, and only if that fails one ordinary try that may
 * take another node's page (counted PF_REFILLS_REMOTE when it does);
 * a page counted PF_REFILLS_ORDER0. Never __GFP_ZERO. Sets *nr_pages;
 * NULL when no page was to be had.
 */
static struct page *page_frag_new_block(gfp_t gfp, int nid,
					unsigned int *nr_pages)
{
	LAB_TODO("page_frag");
	(void)gfp;
	(void)nid;
	(void)nr_pages;
	return NULL;
}

/*
 * __page_frag_refill - nc has no room: give back the references the cache
 * still holds on its block (after page_frag_free_flush_page(page): this
 * CPU's pending frees count first); if that was the last of them, count
 * PF_RECYCLES and arm the same block again (refs_held 0). Otherwise
 * forget the block (every field of nc 0) and arm a new one from
 * page_frag_new_block(gfp, page_frag_refill_node(nc), ...), counting its
 * node (page_frag_count_node) or, with none, PF_ALLOC_FAILED. The block's
 * size in pages is 1 << page->order. True when nc has a block to carve.
 */
bool __page_frag_refill(struct page_frag_cache *nc, gfp_t gfp)
{
	LAB_TODO("page_frag");
	(void)nc;
	(void)gfp;
	(void)page_frag_arm_block;
	(void)page_frag_new_block;
	return false;
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
