/*
 * TX side of the page fragment cache: prepare / commit / probe / abort, for
 * a writer that appends data whose length it learns only while copying
 * (a socket filling packets from user data, Lin's unified page_frag_cache).
 *
 * page_frag_alloc() must know the size up front. Here the writer instead
 * asks "give me at least N bytes" (prepare), sees how much room the current
 * block really has (pf->size), copies as much as fits, and then takes
 * exactly what it used (commit), which costs one bias decrement like any
 * fragment. probe looks at the room without refilling; abort hands back the
 * fragment just taken when the copy failed. Nothing of this touches the
 * page's reference count, so it is as cheap as page_frag_alloc().
 *
 * It relies on upward carving: the free space is [offset, block end).
 */
#include "fault_inject.h"
#include "page_frag_internal.h"

#if PAGE_FRAG_CARVE_DOWN
#error "the TX prepare/commit API needs upward carving (PAGE_FRAG_CARVE_DOWN=0)"
#endif

static void *page_frag_describe(struct page_frag_cache *nc, unsigned int offset,
				struct page_frag *pf)
{
	char *va = page_frag_block_va(nc->encoded_block);

	pf->page = virt_to_page(va);
	pf->offset = offset;
	pf->size = page_frag_cache_size(nc) - offset;
	return va + offset;
}

void *page_frag_prepare_align(struct page_frag_cache *nc, unsigned int fragsz,
			      struct page_frag *pf, gfp_t gfp,
			      unsigned int align)
{
	unsigned int mask = align - 1;
	unsigned int offset;

	if (mm_unlikely(!page_frag_fragsz_ok(fragsz) ||
			!page_frag_align_ok(align)))
		return NULL;
	if (mm_fault_should_fail(MM_FAULT_FRAG))
		return __page_frag_alloc_injected();
	offset = (nc->offset + mask) & ~mask;
	if (offset + fragsz > page_frag_cache_size(nc)) {
		if (!__page_frag_refill(nc, gfp))
			return NULL;
		offset = 0;
	}
	return page_frag_describe(nc, offset, pf);
}

void *page_frag_prepare(struct page_frag_cache *nc, unsigned int fragsz,
			struct page_frag *pf, gfp_t gfp)
{
	return page_frag_prepare_align(nc, fragsz, pf, gfp, 1);
}

void *page_frag_probe(struct page_frag_cache *nc, unsigned int fragsz,
		      struct page_frag *pf)
{
	/* The same fragsz check as every entry point: it also keeps
	 * offset + fragsz from wrapping around. */
	if (mm_unlikely(!page_frag_fragsz_ok(fragsz)))
		return NULL;
	if (!nc->encoded_block ||
	    nc->offset + fragsz > page_frag_cache_size(nc))
		return NULL;
	return page_frag_describe(nc, nc->offset, pf);
}

/*
 * pf still describes nc: same block, nothing taken since (the cache's
 * offset is at or before pf's, which may only be later by alignment), and
 * used fits.
 */
static bool page_frag_pf_current(const struct page_frag_cache *nc,
				 const struct page_frag *pf, unsigned int used)
{
	uintptr_t encoded = nc->encoded_block;

	if (!encoded || !pf->page ||
	    page_address(pf->page) != page_frag_block_va(encoded))
		return false;
	if (nc->offset > pf->offset ||
	    pf->offset + pf->size != page_frag_cache_size(nc))
		return false;
	return used >= 1 && used <= pf->size;
}

bool page_frag_commit(struct page_frag_cache *nc, const struct page_frag *pf,
		      unsigned int used)
{
	if (mm_unlikely(!page_frag_pf_current(nc, pf, used))) {
		page_frag_count(PF_TX_MISUSE);
		return false;
	}
	if (mm_unlikely(page_frag_tracked(nc)))
		page_frag_debug_take(pf->page, pf->offset);
	nc->last_start = pf->offset;
	nc->offset = pf->offset + used;
	nc->pagecnt_bias--;
	page_frag_count(PF_FRAGMENTS);
	return true;
}

bool page_frag_commit_noref(struct page_frag_cache *nc,
			    const struct page_frag *pf, unsigned int used)
{
	/* The fragment to extend must be in this block (last_start ==
	 * offset: none since the refill or the last abort). */
	if (mm_unlikely(!page_frag_pf_current(nc, pf, used) ||
			nc->last_start == nc->offset)) {
		page_frag_count(PF_TX_MISUSE);
		return false;
	}
	nc->offset = pf->offset + used;
	return true;
}

/*
 * Only the very last fragment: it starts at last_start and ends at offset.
 * Checking the end alone would accept any range ending there, e.g. the
 * second half of one fragment plus all of the next, and rewind the offset
 * into fragments still in use.
 */
bool page_frag_abort(struct page_frag_cache *nc, void *va, unsigned int fragsz)
{
	char *base = page_frag_block_va(nc->encoded_block);
	unsigned int start = nc->last_start;

	if (mm_unlikely(!nc->encoded_block || start == nc->offset ||
			(char *)va != base + start ||
			fragsz != nc->offset - start)) {
		page_frag_count(PF_TX_MISUSE);
		return false;
	}
	if (mm_unlikely(page_frag_tracked(nc)))
		page_frag_debug_untake(page_frag_cache_page(nc), start);
	nc->offset = start; /* == last_start: nothing left to abort */
	nc->pagecnt_bias++;
	return true;
}
