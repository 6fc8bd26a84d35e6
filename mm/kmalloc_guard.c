/*
 * Red zones for kmalloc's large blocks (above 8 KiB: pages straight from
 * the page allocator), while the debug checks are on. The slab classes
 * have their own (mm/slab_debug.c); this is the same idea for a block:
 *
 *   | front guard: 1 page | size bytes handed out | back guard: to the end |
 *
 * The front guard is a whole page so that the pointer stays page-aligned
 * (kmalloc's promise for large sizes) and an underflow of up to a page is
 * caught; the back guard is at least a cache line and takes the rest of
 * the block (10,000 bytes: 4 KiB + 10,000 + 64 fits order 2, as the
 * unguarded block does). Both are filled with KMALLOC_RZ_BYTE and
 * checked when the block is freed. The head page's .private holds the
 * size asked for while a guarded block is allocated (0 for an unguarded
 * one: every allocation clears it), so kfree knows which kind it frees
 * whatever the debug flag says by then.
 */
#include <string.h>

#include "debug.h"
#include "kmalloc_guard.h"

#define KMALLOC_RZ_BYTE 0xbb

size_t kmalloc_guarded_bytes(size_t size)
{
	return KMALLOC_GUARD_FRONT + size + MM_CACHE_LINE;
}

void *kmalloc_guard_block(struct page *page, size_t size, unsigned int order)
{
	unsigned char *base = page_address(page);
	size_t end = KMALLOC_GUARD_FRONT + size;

	memset(base, KMALLOC_RZ_BYTE, KMALLOC_GUARD_FRONT);
	memset(base + end, KMALLOC_RZ_BYTE, (MM_PAGE_SIZE << order) - end);
	page->private = size;
	return base + KMALLOC_GUARD_FRONT;
}

/* First byte in [p, p+n) that is not the guard byte, or -1. */
static long first_bad(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != KMALLOC_RZ_BYTE)
			return (long)i;
	return -1;
}

void kmalloc_guard_check(struct page *page, const void *obj, void *caller)
{
	const unsigned char *base = page_address(page);
	size_t size = page->private;
	size_t end = KMALLOC_GUARD_FRONT + size;
	/* The farthest write before the start: the front guard's first
	 * changed byte. */
	long before = first_bad(base, KMALLOC_GUARD_FRONT);
	long after = first_bad(base + end, (MM_PAGE_SIZE << page->order) - end);

	if (after >= 0)
		mm_debug_report(MM_DBG_RED_ZONE, caller,
				"kfree: large block %p (%zu bytes) overflowed: "
				"red zone written %ld bytes past its end",
				obj, size, after + 1);
	if (before >= 0)
		mm_debug_report(
			MM_DBG_RED_ZONE, caller,
			"kfree: large block %p (%zu bytes) underflowed: "
			"red zone written %ld bytes before its start",
			obj, size, (long)KMALLOC_GUARD_FRONT - before);
	page->private = 0;
}
