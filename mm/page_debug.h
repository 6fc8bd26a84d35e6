/*
 * Page poisoning with a check on reuse (debug builds, mm_debug on): what
 * Linux's page_poison does. A block freed with the checks on is filled
 * with PAGE_POISON_BYTE and each of its pages stamped with the debug
 * epoch and the freeing caller; when any of those pages is handed out
 * again (any order, any path: the per-CPU lists, the buddy lists, a bulk
 * allocation) its bytes are compared with the poison, and a change is
 * reported as a write after free with the pfn, the address, the first
 * changed offset and who freed it. Internal to mm/.
 */
#ifndef MM_PAGE_DEBUG_H
#define MM_PAGE_DEBUG_H

#include "debug.h"
#include "page.h"

/*
 * page_debug_poison - fill the block of 2^order pages at @page with the
 * poison and stamp every page with the epoch and @caller (the public
 * entry point's caller that freed it). Clears the compound tails (their
 * .compound_head shares a word with the stamp). The caller owns the
 * block: its last reference is gone and it is not on a list yet.
 */
void page_debug_poison(struct page *page, unsigned int order,
		       const void *caller);

/*
 * page_debug_check - for each page of the block just taken off a list
 * that carries the current epoch's stamp, check the poison; report the
 * first damaged page (MM_DBG_WRITE_AFTER_FREE, @caller: who allocated)
 * and clear the stamps. Before the block is prepared (prep_page clears
 * .private, where the freeing caller is).
 */
void page_debug_check(struct page *page, unsigned int order,
		      const void *caller);

/* The allocation paths' hook: with the checks off, one load and branch. */
static inline void page_debug_on_alloc(struct page *page, unsigned int order,
				       const void *caller)
{
	if (mm_unlikely(mm_debug_on()))
		page_debug_check(page, order, caller);
}

#endif /* MM_PAGE_DEBUG_H */
